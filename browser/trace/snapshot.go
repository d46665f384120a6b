package trace

// CaptureJS is evaluated in a page (as a function of no arguments) to take
// a DOM snapshot: it returns {doctype, html, viewport, url}, html being the
// format's node tree ([name, attributes, ...children], text as strings).
// What the viewer must not run or reach is left out or made inert: scripts
// and on* handlers are dropped, stylesheets are inlined from the CSSOM (so
// the snapshot renders without fetching them), URLs are made absolute, and
// form fields carry their current values, except passwords, whose values
// are never recorded.
const CaptureJS = `() => {
  const maxNodes = 200000;
  let count = 0;
  const absolute = (v) => { try { return new URL(v, document.baseURI).href; } catch (e) { return v; } };
  const sheetText = (sheet) => {
    try { return Array.from(sheet.cssRules, r => r.cssText).join('\n'); } catch (e) { return null; }
  };
  const fieldState = (n, attrs) => {
    if (n.nodeName === 'INPUT') {
      const type = (n.type || '').toLowerCase();
      if (type === 'checkbox' || type === 'radio') {
        if (n.checked) attrs.checked = ''; else delete attrs.checked;
      } else if (type === 'password') {
        delete attrs.value;
      } else if (type !== 'file') {
        attrs.value = n.value;
      }
    } else if (n.nodeName === 'OPTION') {
      if (n.selected) attrs.selected = ''; else delete attrs.selected;
    }
  };
  const visit = (n) => {
    if (++count > maxNodes) return null;
    if (n.nodeType === Node.TEXT_NODE || n.nodeType === Node.CDATA_SECTION_NODE) return n.nodeValue;
    if (n.nodeType !== Node.ELEMENT_NODE) return null;
    const name = n.nodeName;
    if (name === 'SCRIPT' || name === 'script') return null;
    if ((name === 'LINK' && /(^|\s)stylesheet(\s|$)/i.test(n.rel || '')) || name === 'STYLE') {
      const text = n.sheet ? sheetText(n.sheet) : null;
      if (text !== null) {
        const attrs = {};
        if (n.media) attrs.media = n.media;
        return ['STYLE', attrs, text];
      }
      if (name === 'STYLE') return null;
    }
    const attrs = {};
    for (const a of Array.from(n.attributes)) {
      const key = a.name;
      if (/^on/i.test(key)) continue;
      attrs[key] = (key === 'src' || key === 'href' || key === 'action' || key === 'poster') ? absolute(a.value) : a.value;
    }
    fieldState(n, attrs);
    const out = [name, attrs];
    if (name === 'TEXTAREA') { out.push(n.value); return out; }
    if (name === 'IFRAME' || name === 'FRAME') return out;
    for (let c = n.firstChild; c; c = c.nextSibling) {
      const s = visit(c);
      if (s !== null) out.push(s);
    }
    return out;
  };
  const root = document.documentElement;
  return {
    doctype: document.doctype ? document.doctype.name : '',
    html: root ? visit(root) : ['HTML', {}],
    viewport: { width: window.innerWidth, height: window.innerHeight },
    url: location.href,
  };
}`
