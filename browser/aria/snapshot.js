// wright's in-page ARIA snapshot builder. It is evaluated once in an
// isolated world of a document and defines globalThis.__wrightAria; Go
// calls snapshot(options) and decodes the JSON string it returns.
//
// It walks the flat tree (shadow roots and same-process frames inlined) in
// document order and gives every element the role, name and states the
// Go renderer prints (the HTML-AAM role mapping, the AccName rules, the
// ARIA states), stopping once the lines it has built would pass the
// character budget. Elements that can be acted on get a tag number, kept
// in this world, that refs resolve through. A mutation counter tells
// whether the page changed since a given snapshot.
(() => {
  'use strict';
  if (globalThis.__wrightAria) return;

  // ---- page state kept between snapshots

  let version = 0; // bumped on any DOM mutation or form input
  const bump = () => { version++; };
  const watched = new WeakSet();
  const observer = new MutationObserver(bump);
  function watch(root) {
    if (watched.has(root)) return;
    watched.add(root);
    observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    for (const type of ['input', 'change', 'toggle', 'transitionend', 'animationend']) {
      root.addEventListener(type, bump, true);
    }
    const win = root.defaultView;
    if (win) win.addEventListener('resize', bump, true);
  }

  let nextTag = 0;
  const tagOf = new WeakMap();   // element -> tag number
  const byTag = new Map();       // tag number -> WeakRef(element)
  let sweepAt = 10000;
  const frameOwner = new WeakMap(); // document -> the <iframe> showing it
  const closedRoots = new WeakMap(); // host -> closed shadow root (handed in by Go)

  function tag(el) {
    let t = tagOf.get(el);
    if (t === undefined) {
      t = ++nextTag;
      tagOf.set(el, t);
      byTag.set(t, new WeakRef(el));
      if (byTag.size > sweepAt) {
        // Drop the tags of collected elements now and then.
        for (const [k, r] of byTag) if (!r.deref()) byTag.delete(k);
        sweepAt = Math.max(10000, byTag.size * 2);
      }
    }
    return t;
  }

  // ---- roles

  const ARIA_ROLES = new Set(`alert alertdialog application article banner blockquote button caption cell
checkbox code columnheader combobox complementary contentinfo definition deletion dialog directory
document emphasis feed figure form generic grid gridcell group heading img insertion link list
listbox listitem log main mark marquee math menu menubar menuitem menuitemcheckbox menuitemradio
meter navigation note option paragraph progressbar radio radiogroup region row rowgroup rowheader
scrollbar search searchbox separator slider spinbutton status strong subscript superscript switch
tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem comment
suggestion graphics-document graphics-object graphics-symbol none presentation image`.split(/\s+/));

  const SKIP = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'HEAD', 'META', 'LINK', 'TITLE', 'BASE', 'script', 'style', 'title', 'defs', 'desc', 'metadata']);
  const SECTIONING = 'article, aside, main, nav, section';

  function explicitRole(el) {
    const attr = el.getAttribute('role');
    if (!attr) return null;
    for (const r of attr.trim().toLowerCase().split(/\s+/)) {
      if (r.startsWith('doc-')) return r;
      if (ARIA_ROLES.has(r)) return r === 'image' ? 'img' : r;
    }
    return null;
  }

  function inputRole(el) {
    const type = (el.getAttribute('type') || '').toLowerCase();
    switch (type) {
      case 'hidden': return 'hidden';
      case 'button': case 'submit': case 'reset': case 'image': case 'file': return 'button';
      case 'checkbox': return 'checkbox';
      case 'radio': return 'radio';
      case 'range': return 'slider';
      case 'number': return 'spinbutton';
      case 'color': return '';
      case 'search': return el.hasAttribute('list') ? 'combobox' : 'searchbox';
      case 'email': case 'tel': case 'text': case 'url': case '':
        return el.hasAttribute('list') ? 'combobox' : 'textbox';
    }
    return 'textbox'; // password, date and time fields, unknown types
  }

  function implicitRole(el) {
    switch (el.localName) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : '';
      case 'article': return 'article';
      case 'aside': return el.parentElement && el.parentElement.closest(SECTIONING) ? '' : 'complementary';
      case 'blockquote': return 'blockquote';
      case 'button': return 'button';
      case 'caption': return 'caption';
      case 'code': return 'code';
      case 'datalist': return 'listbox';
      case 'del': case 's': return 'deletion';
      case 'details': return 'group';
      case 'dfn': case 'dt': return 'term';
      case 'dd': return 'definition';
      case 'dialog': return 'dialog';
      case 'em': return 'emphasis';
      case 'fieldset': case 'optgroup': case 'hgroup': return 'group';
      case 'figure': return 'figure';
      case 'footer': return el.closest(SECTIONING) ? '' : 'contentinfo';
      case 'header': return el.closest(SECTIONING) ? '' : 'banner';
      case 'form': return 'form';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'hr': return 'separator';
      case 'img': return el.getAttribute('alt') === '' && !el.hasAttribute('title') ? '' : 'img';
      case 'svg': return 'img';
      case 'input': return inputRole(el);
      case 'ins': return 'insertion';
      case 'li': return 'listitem';
      case 'main': return 'main';
      case 'mark': return 'mark';
      case 'math': return 'math';
      case 'menu': case 'ol': case 'ul': return 'list';
      case 'meter': return 'meter';
      case 'nav': return 'navigation';
      case 'option': return 'option';
      case 'output': return 'status';
      case 'p': return 'paragraph';
      case 'progress': return 'progressbar';
      case 'search': return 'search';
      case 'section': return 'region';
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'strong': return 'strong';
      case 'sub': return 'subscript';
      case 'sup': return 'superscript';
      case 'table': return 'table';
      case 'tbody': case 'thead': case 'tfoot': return 'rowgroup';
      case 'td': {
        const t = el.closest('table');
        const tr = t && explicitRole(t);
        return tr === 'grid' || tr === 'treegrid' ? 'gridcell' : 'cell';
      }
      case 'th': {
        const scope = (el.getAttribute('scope') || '').toLowerCase();
        if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
        if (scope === 'col' || scope === 'colgroup') return 'columnheader';
        const row = el.parentElement;
        if (row && !(el.parentElement.parentElement && el.parentElement.parentElement.localName === 'thead')) {
          for (const c of row.children) if (c.localName === 'td') return 'rowheader';
        }
        return 'columnheader';
      }
      case 'textarea': return 'textbox';
      case 'time': return 'time';
      case 'tr': return 'row';
      case 'summary': return 'summary';
      case 'iframe': case 'frame': return 'iframe';
    }
    return '';
  }

  // Roles named from their content (AccName 2.B.F).
  const NAME_FROM_CONTENT = new Set(`button cell checkbox columnheader gridcell heading link menuitem
menuitemcheckbox menuitemradio option radio rowheader switch tab tooltip treeitem summary term`.split(/\s+/));
  // Roles named only by their author or a label, never by content.
  const LABELABLE = new Set(['INPUT', 'TEXTAREA', 'SELECT', 'BUTTON', 'METER', 'OUTPUT', 'PROGRESS']);

  const CONTAINERS = new Set('group tree treegrid list listbox menu menubar table grid dialog'.split(' '));
  const ACTION_ROLES = new Set(`link button checkbox radio switch textbox searchbox combobox listbox slider
spinbutton tab menuitem menuitemcheckbox menuitemradio treeitem option iframe`.split(/\s+/));
  const VALUE_ROLES = new Set(['textbox', 'searchbox', 'spinbutton', 'slider']);
  const CHECKED_ROLES = new Set('checkbox menuitemcheckbox option radio switch menuitemradio treeitem'.split(' '));
  const SELECTED_ROLES = new Set('gridcell option row tab rowheader columnheader treeitem'.split(' '));
  const LEVEL_ROLES = new Set(['listitem', 'row', 'treeitem']);
  const EXPANDED_ROLES = new Set(`application button checkbox combobox gridcell link listbox menuitem row rowheader
tab treeitem columnheader menuitemcheckbox menuitemradio switch`.split(/\s+/));

  // ---- styles and visibility

  let styles = new Map(); // per snapshot: element -> computed style

  function styleOf(el) {
    let s = styles.get(el);
    if (s === undefined) {
      s = el.ownerDocument.defaultView ? el.ownerDocument.defaultView.getComputedStyle(el) : null;
      styles.set(el, s);
    }
    return s;
  }

  // hiddenSubtree: the element and everything inside it are out of the tree.
  function hiddenSubtree(el, st) {
    if (SKIP.has(el.tagName) || el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('inert')) return true;
    if (el.localName === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'hidden') return true;
    if (st.modal && !st.inModal && el !== st.modal && !el.contains(st.modal)) return true;
    const s = styleOf(el);
    return !s || s.display === 'none';
  }

  function isBlock(el, s) {
    if (el.localName === 'br') return true;
    return !!s && s.display !== 'inline' && s.display !== 'contents' && s.display !== 'none';
  }

  // ---- names (AccName, the parts pages use)

  function normalize(s) {
    return s.replace(/[\u200b\u00ad]/g, '').replace(/[\s\ufeff]+/g, ' ').trim();
  }

  function byIds(el, attr) {
    const ids = (el.getAttribute(attr) || '').trim().split(/\s+/).filter(Boolean);
    const root = el.getRootNode();
    const out = [];
    for (const id of ids) {
      const t = root.getElementById ? root.getElementById(id) : el.ownerDocument.getElementById(id);
      if (t) out.push(t);
    }
    return out;
  }

  function controlValue(el) {
    if (el.localName === 'select') {
      const o = el.selectedOptions && el.selectedOptions[0];
      return o ? o.textContent : '';
    }
    if (el.localName === 'input' || el.localName === 'textarea') return el.value;
    return '';
  }

  // Generated content is costly to read (a style object per call), so it
  // is read once per element and snapshot, and only in documents and
  // shadow trees whose style sheets can generate any.
  let pseudos = new Map();
  let sheetsGenerate = new Map();

  function pseudo(el, which) {
    const root = el.getRootNode();
    let gen = sheetsGenerate.get(root);
    if (gen === undefined) {
      gen = generates(root);
      sheetsGenerate.set(root, gen);
    }
    if (!gen) return '';
    let p = pseudos.get(el);
    if (p === undefined) {
      p = [readPseudo(el, '::before'), readPseudo(el, '::after')];
      pseudos.set(el, p);
    }
    return which === '::before' ? p[0] : p[1];
  }

  // generates says whether a document or shadow root has style rules for
  // ::before or ::after (or sheets it cannot read).
  function generates(root) {
    const sheets = [...(root.styleSheets || []), ...(root.adoptedStyleSheets || [])];
    if (root.nodeType === 11 && root.host) {
      // A shadow tree also shows what the document's sheets generate for it.
      const outer = root.host.getRootNode();
      let gen = sheetsGenerate.get(outer);
      if (gen === undefined) {
        gen = generates(outer);
        sheetsGenerate.set(outer, gen);
      }
      if (gen) return true;
    }
    for (const sheet of sheets) {
      let rules;
      try { rules = sheet.cssRules; } catch (e) { return true; }
      if (rulesGenerate(rules)) return true;
    }
    return false;
  }

  function rulesGenerate(rules) {
    for (const r of rules) {
      if (r.selectorText !== undefined) {
        if (/:(?:before|after)\b/i.test(r.selectorText)) return true;
        if (r.cssRules && r.cssRules.length && rulesGenerate(r.cssRules)) return true;
      } else if (r.cssRules) {
        if (rulesGenerate(r.cssRules)) return true;
      } else if (r.styleSheet) {
        let inner;
        try { inner = r.styleSheet.cssRules; } catch (e) { return true; }
        if (rulesGenerate(inner)) return true;
      }
    }
    return false;
  }

  function readPseudo(el, which) {
    const win = el.ownerDocument.defaultView;
    if (!win) return '';
    const cs = win.getComputedStyle(el, which);
    const c = cs.content;
    if (!c || c === 'none' || c === 'normal') return '';
    if (c === 'open-quote') return '\u201c';
    if (c === 'close-quote') return '\u201d';
    const m = /^"((?:[^"\\]|\\.)*)"$/.exec(c);
    const text = m ? m[1].replace(/\\(.)/g, '$1') : '';
    // Block-level generated content stands apart from the text around it.
    return text && cs.display !== 'inline' ? ' ' + text + ' ' : text;
  }

  // textFrom: the text alternative of a subtree, computed from content.
  function textFrom(node, visiting, allowHidden) {
    if (node.nodeType === 3) return node.data;
    if (node.nodeType !== 1 && node.nodeType !== 11) return '';
    if (node.nodeType === 11) return childrenText(node, visiting, allowHidden);
    const el = node;
    if (visiting.has(el)) return '';
    if (!allowHidden) {
      if (SKIP.has(el.tagName) || el.getAttribute('aria-hidden') === 'true') return '';
      const s = styleOf(el);
      if (!s || s.display === 'none' || s.visibility === 'hidden' || s.visibility === 'collapse') return '';
    }
    visiting.add(el);
    try {
      const label = el.getAttribute('aria-label');
      if (label && label.trim()) return ' ' + label + ' ';
      const role = explicitRole(el) || implicitRole(el);
      if (!allowHidden && CONTAINERS.has(role)) return ''; // a nested tree's items do not name the item holding them
      if (role === 'textbox' || role === 'searchbox' || role === 'combobox' || role === 'listbox' || role === 'spinbutton' || role === 'slider') {
        if (LABELABLE.has(el.tagName)) return ' ' + controlValue(el) + ' ';
      }
      if (el.localName === 'svg') return ' ' + nativeName(el, role) + ' ';
      if (el.localName === 'img' || (el.localName === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'image')) {
        return ' ' + (el.getAttribute('alt') || el.getAttribute('title') || '') + ' ';
      }
      if (el.localName === 'input') {
        const t = (el.getAttribute('type') || '').toLowerCase();
        if (t === 'button' || t === 'submit' || t === 'reset') return ' ' + buttonValue(el) + ' ';
      }
      const s = styleOf(el);
      const block = s && isBlock(el, s) ? ' ' : '';
      const text = pseudo(el, '::before') + childrenText(el, visiting, allowHidden) + pseudo(el, '::after');
      if (!normalize(text) && el.hasAttribute('title')) return ' ' + el.getAttribute('title') + ' ';
      return block + text + block;
    } finally {
      visiting.delete(el);
    }
  }

  function childrenText(node, visiting, allowHidden) {
    let out = '';
    for (const c of flatChildren(node)) out += textFrom(c, visiting, allowHidden);
    return out;
  }

  function buttonValue(el) {
    const t = (el.getAttribute('type') || '').toLowerCase();
    if (el.hasAttribute('value')) return el.getAttribute('value');
    if (t === 'submit') return 'Submit';
    if (t === 'reset') return 'Reset';
    return '';
  }

  function labelsText(el) {
    const labels = el.labels;
    if (!labels || !labels.length) return '';
    let out = '';
    for (const l of labels) {
      const v = new Set([el]);
      out += ' ' + pseudo(l, '::before') + childrenText(l, v, false) + pseudo(l, '::after');
    }
    return normalize(out);
  }

  function accName(el, role) {
    if (el.hasAttribute('aria-labelledby')) {
      const refs = byIds(el, 'aria-labelledby');
      if (refs.length) {
        const t = normalize(refs.map(r => textFrom(r, new Set(), true)).join(' '));
        if (t) return t;
      }
    }
    const label = el.getAttribute('aria-label');
    if (label && label.trim()) return normalize(label);
    const name = nativeName(el, role);
    if (name) return name;
    if (NAME_FROM_CONTENT.has(role)) {
      const t = normalize(pseudo(el, '::before') + childrenText(el, new Set([el]), false) + pseudo(el, '::after'));
      if (t) return t;
    }
    return normalize(el.getAttribute('title') || '');
  }

  function nativeName(el, role) {
    switch (el.localName) {
      case 'input': {
        const t = (el.getAttribute('type') || '').toLowerCase();
        if (t === 'button' || t === 'submit' || t === 'reset') return normalize(labelsText(el) || buttonValue(el));
        if (t === 'image') return normalize(labelsText(el) || el.getAttribute('alt') || el.getAttribute('value') || el.getAttribute('title') || 'Submit');
        return labelsText(el) || normalize(el.getAttribute('title') || el.getAttribute('placeholder') || '');
      }
      case 'textarea':
        return labelsText(el) || normalize(el.getAttribute('title') || el.getAttribute('placeholder') || '');
      case 'select': case 'meter': case 'output': case 'progress':
        return labelsText(el);
      case 'button':
        return labelsText(el);
      case 'img': case 'area':
        return normalize(el.getAttribute('alt') || '');
      case 'svg': {
        for (const c of el.children) if (c.localName === 'title') return normalize(c.textContent);
        return '';
      }
      case 'fieldset': {
        for (const c of el.children) if (c.localName === 'legend') return normalize(childrenText(c, new Set([el]), false));
        return '';
      }
      case 'table': {
        const c = el.caption;
        return c ? normalize(childrenText(c, new Set([el]), false)) : '';
      }
      case 'optgroup':
        return normalize(el.getAttribute('label') || '');
      case 'option':
        if (el.hasAttribute('label')) return normalize(el.getAttribute('label'));
        return '';
    }
    return '';
  }

  // ---- the flat tree

  function shadowOf(el) {
    return el.shadowRoot || closedRoots.get(el) || null;
  }

  function flatChildren(node) {
    if (node.nodeType === 1) {
      const root = shadowOf(node);
      if (root) return slotted(root.childNodes);
      if (node.localName === 'slot') {
        const assigned = node.assignedNodes();
        if (assigned.length) return assigned;
      }
      if (node.localName === 'details' && !node.open) {
        // A closed <details> shows its summary only.
        for (const c of node.children) if (c.localName === 'summary') return [c];
        return [];
      }
    }
    return slotted(node.childNodes);
  }

  function slotted(nodes) {
    let hasSlot = false;
    for (const n of nodes) if (n.nodeType === 1 && n.localName === 'slot') { hasSlot = true; break; }
    if (!hasSlot) return nodes;
    const out = [];
    for (const n of nodes) {
      if (n.nodeType === 1 && n.localName === 'slot') {
        const assigned = n.assignedNodes();
        for (const a of (assigned.length ? assigned : n.childNodes)) out.push(a);
      } else out.push(n);
    }
    return out;
  }

  // ---- building

  // A node is {r: role, n: name, k: kids (strings for text, objects for
  // nodes), and when set: a (tag of an actionable element), c (checked),
  // p (pressed), d (disabled), x (expanded), s (selected), i (invalid),
  // l (level), u (url), h (placeholder), f (1: iframe with a document
  // this world cannot reach)}.

  class Builder {
    constructor(opts) {
      this.budget = opts.maxChars > 0 ? opts.maxChars : 0;
      this.interactive = !!opts.interactiveOnly;
      this.maxDepth = opts.maxDepth > 0 ? opts.maxDepth : 0;
      // Past this many characters (a lower bound of what the lines built
      // so far print) everything further is cut: stop building.
      this.limit = this.budget ? this.budget + 2000 : 0;
      this.refs = !!opts.refs;
      this.chars = 0;       // estimated characters of the lines built so far
      this.stopped = false; // the budget is reached: count, do not build
      this.more = 0;        // lines counted after the stop
      this.controls = [];
      this.unreachable = false;
      this.suspects = [];
    }

    visitChildren(node, parent, st) {
      for (const c of flatChildren(node)) this.visit(c, parent, st);
    }

    // spend counts a lower bound of the characters of a line shown at
    // depth (interactive-only snapshots show the actionable nodes alone).
    spend(depth, len, actionable) {
      if (!this.limit || (this.interactive && !actionable) || (this.maxDepth && depth >= this.maxDepth)) return;
      this.chars += len;
      if (this.chars > this.limit) this.stopped = true;
    }

    visit(node, parent, st) {
      if (this.stopped) {
        this.more += estimate(node);
        return;
      }
      if (node.nodeType === 3) {
        if (!st.textHidden) {
          parent.k.push(node.data);
          // Text inside a node named from its content may only repeat the
          // name: not counted, so that the count stays a lower bound.
          if (this.limit && !st.named) this.spend(st.depth, node.data.trim().length, false);
        }
        return;
      }
      if (node.nodeType === 11) {
        watch(node);
        this.visitChildren(node, parent, st);
        return;
      }
      if (node.nodeType !== 1) return;
      const el = node;
      if (hiddenSubtree(el, st)) return;
      const s = styleOf(el);
      const cst = { ...st };
      if (st.modal && el === st.modal) cst.inModal = true;
      const invisible = s.visibility === 'hidden' || s.visibility === 'collapse';
      cst.textHidden = invisible;
      if (el.localName === 'label' && labelsToggle(el)) {
        // The label of a checkbox or radio is its name, not text of its own.
        cst.textHidden = true;
      }
      if (!shadowOf(el) && el.childNodes.length === 0 && el.localName !== 'iframe' && s.display !== 'contents' && this.suspects.length < 64 && !checked.has(el)) {
        // A host of a closed shadow root looks like an empty element with
        // content: Go looks into those through the DevTools protocol.
        if (el.offsetHeight > 0 && el.offsetWidth > 0 && hostable(el)) this.suspects.push(el);
      }
      if (invisible) {
        this.visitChildren(el, parent, cst);
        return;
      }
      if (s.contentVisibility === 'hidden') return; // its content is not rendered

      let role = explicitRole(el);
      if (role === 'none' || role === 'presentation') {
        role = focusable(el) ? null : '';
      }
      if (role === null) role = implicitRole(el);
      if (role === 'hidden') return;
      if (role === 'iframe') {
        this.iframe(el, parent, cst);
        return;
      }
      if (el.localName === 'figcaption' && parent.r === 'figure' && !parent.n) {
        const tmp = { k: [] };
        this.visitChildren(el, tmp, cst);
        parent.n = normalize(tmp.k.map(k => typeof k === 'string' ? k : (k.n || contentOf(k))).join(' '));
        for (const k of tmp.k) parent.k.push(k);
        return;
      }
      let name = '';
      if (role && role !== 'generic') name = accName(el, role);
      if (role === 'summary') role = 'generic-action';
      if ((role === 'form' || role === 'region') && !name) role = '';
      const clicks = takesClicks(el, s);
      if (role === '' || role === 'generic') {
        if (!clicks) {
          this.lift(el, s, parent, cst);
          return;
        }
        role = 'generic';
      }
      if (role === 'generic-action') role = 'generic';

      const n = { r: role, k: [] };
      if (name) n.n = name;
      if (clicks || el.localName === 'summary' || (ACTION_ROLES.has(role) && !(role === 'option' && st.inPopup))) {
        n.a = tag(el);
      }
      this.states(n, el, role);

      const isInput = el.localName === 'input' || el.localName === 'textarea';
      if (VALUE_ROLES.has(role) || (role === 'combobox' && isInput)) {
        this.controls.push(el);
        const v = valueOf(el, role);
        if (v) n.k.push(v);
        if (role === 'textbox' && el.hasAttribute('placeholder') && el.getAttribute('placeholder') !== name) {
          n.h = el.getAttribute('placeholder');
        }
      } else {
        if (el.localName === 'select' || el.localName === 'input') this.controls.push(el);
        if (el.localName === 'select' && role === 'combobox') cst.inPopup = true;
        cst.depth = st.depth + 1;
        cst.named = NAME_FROM_CONTENT.has(role) || role === 'row';
        // Generated content is a text of its own, apart from the element's.
        const b = pseudo(el, '::before');
        if (b) n.k.push(b);
        const open = !this.stopped;
        const more = this.more;
        this.visitChildren(el, n, cst);
        if (open && this.more > more) n.t = 1; // the budget cut its children
        const a = pseudo(el, '::after');
        if (a && !this.stopped) n.k.push(a);
      }
      if (role === 'link' && el.hasAttribute('href')) n.u = el.getAttribute('href');
      finish(n);
      if (role === 'rowgroup' && !n.k.length) return;
      // A pointer cursor alone does not make an empty box worth a line:
      // the accessibility tree leaves such wrappers out.
      if (clicks === 'cursor' && role === 'generic' && !n.k.length && !n.n) return;
      parent.k.push(n);
      // The node's line (role, quoted name, ref) and its /url line.
      let len = st.depth * 2 + 2 + role.length + (n.n ? n.n.length + 3 : 0) + (n.a && this.refs ? 9 : 0);
      if (n.u !== undefined) len += st.depth * 2 + 11 + n.u.length;
      this.spend(st.depth, len, !!n.a);
    }

    lift(el, s, parent, st) {
      const block = isBlock(el, s);
      if (block) parent.k.push(' ');
      if (el.localName === 'br') {
        parent.k.push('\n');
        return;
      }
      const b = pseudo(el, '::before');
      if (b) parent.k.push(b);
      this.visitChildren(el, parent, st);
      const a = pseudo(el, '::after');
      if (a && !this.stopped) parent.k.push(a);
      if (block) parent.k.push(' ');
    }

    iframe(el, parent, st) {
      const n = { r: 'iframe', k: [], a: tag(el) };
      let doc = null;
      try { doc = el.contentDocument; } catch (e) { doc = null; }
      if (doc && doc.documentElement && st.frameDepth < 8) {
        frameOwner.set(doc, el);
        watch(doc);
        const cst = { ...st, depth: st.depth + 1, frameDepth: st.frameDepth + 1, inPopup: false, textHidden: false };
        cst.modal = modalOf(doc);
        cst.inModal = false;
        const body = doc.body || doc.documentElement;
        const open = !this.stopped;
        const more = this.more;
        this.visit(body, n, cst);
        if (open && this.more > more) n.t = 1;
      } else if (!doc && el.contentWindow && st.frameDepth < 8) {
        // A cross-origin document: Go builds it in a world of its own frame.
        n.f = n.a;
      }
      finish(n);
      parent.k.push(n);
      this.spend(st.depth, st.depth * 2 + 8, true);
    }

    states(n, el, role) {
      if (CHECKED_ROLES.has(role)) {
        let c = '';
        if (el.localName === 'input' && (role === 'checkbox' || role === 'radio' || role === 'switch') && (el.type === 'checkbox' || el.type === 'radio')) {
          c = el.indeterminate && el.type === 'checkbox' ? 'mixed' : el.checked ? 'true' : '';
          this.controls.push(el);
        } else {
          const a = (el.getAttribute('aria-checked') || '').toLowerCase();
          c = a === 'true' || a === 'mixed' ? a : '';
        }
        if (c) n.c = c;
      }
      if (role === 'button') {
        const p = (el.getAttribute('aria-pressed') || '').toLowerCase();
        if (p === 'true' || p === 'mixed') n.p = p;
      }
      if (isDisabled(el)) n.d = 1;
      if (EXPANDED_ROLES.has(role) && (el.getAttribute('aria-expanded') || '').toLowerCase() === 'true') n.x = 1;
      if (el.hasAttribute('aria-invalid')) {
        const v = el.getAttribute('aria-invalid').trim().toLowerCase();
        if (v === 'grammar' || v === 'spelling') n.i = v;
        else if (v && v !== 'false') n.i = 'true';
      }
      if (SELECTED_ROLES.has(role)) {
        if (el.localName === 'option' && !el.hasAttribute('aria-selected')) {
          if (el.selected) n.s = 1;
        } else if ((el.getAttribute('aria-selected') || '').toLowerCase() === 'true') n.s = 1;
      }
      if (role === 'heading') {
        const l = parseInt(el.getAttribute('aria-level'), 10);
        if (l > 0) n.l = l;
        else if (/^h[1-6]$/.test(el.localName)) n.l = +el.localName[1];
        else n.l = 2;
      } else if (LEVEL_ROLES.has(role) && el.hasAttribute('aria-level')) {
        const l = parseInt(el.getAttribute('aria-level'), 10);
        if (l > 0) n.l = l;
      }
    }
  }

  const checked = new WeakSet(); // elements already looked at for a closed shadow root
  const HOSTABLE = new Set('article aside blockquote body div footer h1 h2 h3 h4 h5 h6 header main nav p section span'.split(' '));
  function hostable(el) {
    return HOSTABLE.has(el.localName) || el.localName.includes('-');
  }

  // finish merges a node's text runs, collapses white space, names rows
  // from their content and drops text that only repeats the name.
  function finish(n) {
    const out = [];
    let buf = null;
    for (const k of n.k) {
      if (typeof k === 'string') {
        buf = buf === null ? k : buf + k;
        continue;
      }
      if (buf !== null) {
        const t = normalize(buf);
        if (t) out.push(t);
        buf = null;
      }
      out.push(k);
    }
    if (buf !== null) {
      const t = normalize(buf);
      if (t) out.push(t);
    }
    n.k = out;
    if (n.r === 'row' && !n.n) {
      const t = contentOf(n);
      if (t) n.n = t;
    }
    if (n.k.length === 1 && typeof n.k[0] === 'string' && n.k[0] === (n.n || '') && !n.t) n.k = [];
  }

  // estimate counts the lines a subtree past the budget would print,
  // cheaply: roles from markup alone, no styles, no names (a node named
  // from its content shows its text in its own line).
  function estimate(node) {
    if (node.nodeType === 3) return node.data.trim() ? 1 : 0;
    if (node.nodeType !== 1 && node.nodeType !== 11) return 0;
    if (node.nodeType === 1) {
      const el = node;
      if (SKIP.has(el.tagName) || el.hidden || el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('inert')) return 0;
      let role = explicitRole(el);
      if (role === 'none' || role === 'presentation') role = '';
      if (role === null) role = implicitRole(el);
      if (role === 'hidden') return 0;
      if ((role === 'form' || role === 'region') && !el.hasAttribute('aria-label') && !el.hasAttribute('aria-labelledby')) role = '';
      if (role && role !== 'generic' && role !== 'summary') {
        let c = 1 + (role === 'link' && el.hasAttribute('href') ? 1 : 0);
        if (VALUE_ROLES.has(role) || role === 'iframe') return c;
        for (const k of flatChildren(el)) {
          if (k.nodeType !== 3 || !NAME_FROM_CONTENT.has(role)) c += estimate(k);
        }
        return c;
      }
    }
    let c = 0;
    for (const k of flatChildren(node)) c += estimate(k);
    return c;
  }

  // ---- the budget

  // lineCount is the number of lines the Go renderer makes of a finished
  // node at depth (see render.go: the forms must agree).
  function lineCount(n, depth, maxDepth) {
    const props = (n.u !== undefined ? 1 : 0) + (n.h !== undefined ? 1 : 0);
    if (n.k.length === 1 && typeof n.k[0] === 'string' && !props && !n.t) return 1;
    if ((maxDepth > 0 && depth + 1 >= maxDepth) || (!n.k.length && !props && !n.t)) return 1;
    let c = 1 + props;
    for (const k of n.k) c += typeof k === 'string' ? 1 : lineCount(k, depth + 1, maxDepth);
    return c;
  }

  // Cutter keeps the nodes whose lines fit the budget, counting a lower
  // bound of each line's length (the Go side, which knows the exact
  // lines, cuts again): what it keeps is never less than what fits.
  class Cutter {
    constructor(limit, maxDepth) {
      this.limit = limit;
      this.maxDepth = maxDepth;
      this.used = 0;
      this.lines = 0;
      this.full = false;
    }

    take(len, force) {
      if (this.full) return false;
      if (!force && this.used + len > this.limit) {
        this.full = true;
        return false;
      }
      this.used += len + 1;
      this.lines++;
      return true;
    }

    kids(list, depth) {
      const out = [];
      for (const k of list) {
        if (typeof k === 'string') {
          if (!this.take(depth * 2 + 8 + k.length)) return [out, true];
          out.push(k);
          continue;
        }
        const c = this.node(k, depth);
        if (!c) return [out, true];
        out.push(c);
        if (c.t) return [out, true];
      }
      return [out, false];
    }

    node(n, depth) {
      const head = depth * 2 + 2 + n.r.length + (n.n ? n.n.length + 3 : 0);
      const props = (n.u !== undefined ? 1 : 0) + (n.h !== undefined ? 1 : 0);
      if (n.k.length === 1 && typeof n.k[0] === 'string' && !props && !n.t) return this.take(head + 2 + n.k[0].length) ? n : null;
      if ((this.maxDepth > 0 && depth + 1 >= this.maxDepth) || (!n.k.length && !props && !n.t)) return this.take(head) ? n : null;
      if (!this.take(head)) return null;
      if (n.u !== undefined) this.take(0, true);
      if (n.h !== undefined) this.take(0, true);
      const [kept, cut] = this.kids(n.k, depth + 1);
      if (!cut) return n;
      return Object.assign({}, n, { k: kept, t: 1 });
    }
  }

  function contentOf(n) {
    return normalize(n.k.map(k => typeof k === 'string' ? k : (k.n || contentOf(k))).join(' '));
  }

  function valueOf(el, role) {
    if (el.localName === 'input' || el.localName === 'textarea') {
      if (el.type === 'password') return '•'.repeat(el.value.length);
      return el.value;
    }
    const vt = el.getAttribute('aria-valuetext');
    if (vt) return vt;
    const vn = el.getAttribute('aria-valuenow');
    if (vn && (role === 'slider' || role === 'spinbutton')) return vn;
    if (el.isContentEditable) return el.textContent;
    return '';
  }

  function labelsToggle(label) {
    const c = label.control;
    return !!c && c.localName === 'input' && (c.type === 'checkbox' || c.type === 'radio');
  }

  function focusable(el) {
    return el.hasAttribute('tabindex') || (el.localName === 'a' && el.hasAttribute('href')) ||
      ['button', 'input', 'select', 'textarea'].includes(el.localName);
  }

  function isDisabled(el) {
    if (LABELABLE.has(el.tagName) || el.localName === 'option' || el.localName === 'optgroup') {
      try { if (el.matches(':disabled')) return true; } catch (e) { /* not a form element */ }
    }
    for (let e = el; e; e = e.parentElement) {
      if ((e.getAttribute('aria-disabled') || '').toLowerCase() === 'true') return true;
    }
    return false;
  }

  // takesClicks: an element without a widget role that can still be acted
  // on: in the tab order, editable, with a click handler attribute, or the
  // outermost element showing a pointer cursor.
  function takesClicks(el, s) {
    if (el.localName === 'html' || el.localName === 'body' || el.localName === 'label') return false;
    if (s.display === 'contents') return false;
    const ti = el.getAttribute('tabindex');
    if (ti !== null && parseInt(ti, 10) >= 0) return true;
    if (el.hasAttribute('onclick') || el.hasAttribute('onmousedown') || el.hasAttribute('onmouseup')) return true;
    const ce = el.getAttribute('contenteditable');
    if (ce !== null && ce.toLowerCase() !== 'false') return true;
    if (s.cursor === 'pointer') {
      for (let p = parentOf(el); p; p = parentOf(p)) {
        const ps = styleOf(p);
        if (ps && ps.display !== 'contents') return ps.cursor !== 'pointer' && 'cursor';
      }
      return 'cursor';
    }
    return false;
  }

  function parentOf(el) {
    if (el.assignedSlot) return el.assignedSlot;
    const p = el.parentNode;
    if (p && p.nodeType === 11) return p.host || null;
    return p && p.nodeType === 1 ? p : null;
  }

  function modalOf(doc) {
    try {
      return doc.querySelector('dialog:modal');
    } catch (e) {
      return null;
    }
  }

  // hiddenByAncestor says whether an element (a scope) lies in a hidden
  // subtree, and whether it is inside a native <select>'s popup.
  function scopeState(el) {
    const st = { depth: 0, frameDepth: 0, inPopup: false, textHidden: false, modal: null, inModal: false };
    for (let p = parentOf(el); p; p = parentOf(p)) {
      if (p.localName === 'select') st.inPopup = true;
      if (SKIP.has(p.tagName) || p.getAttribute('aria-hidden') === 'true' || p.hasAttribute('inert')) return null;
      const s = styleOf(p);
      if (!s || s.display === 'none') return null;
    }
    return st;
  }

  // fingerprint is what a snapshot shows that no mutation reports: the
  // values and states of the form controls it read.
  function fingerprint(controls) {
    let out = '';
    for (const c of controls) {
      out += c.isConnected ? (c.value === undefined ? '' : c.value.length + ':' + c.value) + (c.checked ? '1' : '0') + (c.selectedIndex === undefined ? '' : c.selectedIndex) + '|' : 'x|';
    }
    return out;
  }
  let lastControls = [];
  let lastToken = '';
  let builds = 0;
  const instance = Math.random().toString(36).slice(2);

  function snapshot(opts) {
    const doc = document;
    watch(doc);
    if (observer.takeRecords().length) bump();
    if (opts.since && opts.since === lastToken && lastToken.endsWith(':' + version) && fingerprint(lastControls) === opts.print) {
      return JSON.stringify({ same: 1 });
    }
    styles = new Map();
    const b = new Builder(opts);
    const root = { r: 'fragment', k: [] };
    try {
      let scopeEl = opts.scope || null;
      if (scopeEl) {
        const st = scopeEl.nodeType === 11 ? scopeState(scopeEl.host) : scopeState(scopeEl);
        if (st) {
          st.modal = null;
          b.visit(scopeEl, root, st);
        }
      } else {
        const st = { depth: 0, frameDepth: 0, inPopup: false, textHidden: false, modal: modalOf(doc), inModal: false };
        if (doc.documentElement) b.visit(doc.body || doc.documentElement, root, st);
      }
    } finally {
      styles = new Map();
      pseudos = new Map();
      sheetsGenerate = new Map();
    }
    finish(root);
    lastControls = b.controls;
    lastToken = instance + ':' + (++builds) + ':' + version;
    const out = { root, more: b.more, token: lastToken, print: fingerprint(b.controls) };
    if (b.budget && !b.interactive) {
      const maxDepth = opts.maxDepth || 0;
      let total = 0;
      for (const k of root.k) total += typeof k === 'string' ? 1 : lineCount(k, 0, maxDepth);
      const c = new Cutter(b.budget, maxDepth);
      const [kept] = c.kids(root.k, 0);
      if (c.full) {
        out.root = { r: 'fragment', k: kept, t: 1 };
        out.more += total - c.lines;
      }
    }
    if (b.unreachable) out.unreachable = 1;
    if (b.suspects.length) {
      out.suspects = b.suspects.map(tag);
      for (const s of b.suspects) checked.add(s);
    }
    return JSON.stringify(out);
  }

  // lookup returns the element a tag was given to, or a string saying why
  // there is none.
  function lookup(t) {
    const ref = byTag.get(t);
    const el = ref && ref.deref();
    if (!el) return 'element removed';
    let doc = el.ownerDocument;
    while (doc && doc !== document) {
      const owner = frameOwner.get(doc);
      if (!owner || !owner.isConnected) return 'element removed';
      let cur = null;
      try { cur = owner.contentDocument; } catch (e) { cur = null; }
      if (cur !== doc) return 'frame navigated';
      doc = owner.ownerDocument;
    }
    if (!el.isConnected) return 'element removed';
    return el;
  }

  // addClosedRoot hands in a closed shadow root found through the protocol.
  function addClosedRoot(t, root) {
    const ref = byTag.get(t);
    const el = ref && ref.deref();
    if (el && root) {
      closedRoots.set(el, root);
      watch(root);
      version++;
    }
  }

  Object.defineProperty(globalThis, '__wrightAria', {
    value: Object.freeze({ snapshot, lookup, addClosedRoot, element: lookup }),
    enumerable: false,
  });
})();
