// The in-page half of wright's selector and actionability engine. The driver
// installs it once per execution context (see engine.go) and calls its
// methods with the engine object as `this`. Selectors arrive already parsed
// (selector.go), so this file only evaluates them.
//
// Roles, accessible names, descriptions, states and hidden-from-the-tree
// are not computed here: R is the one role and name engine
// (browser/aria/role_engine.js), the instance the ARIA snapshot uses in the same
// world, so a role and name the snapshot prints are what role= matches.
//
// Errors meant for the client are thrown as WrightError with the message
// "Type|text"; the driver turns them into protocol errors of that type.
(R) => {
  'use strict';

  const W = {};

  function fail(type, msg) {
    const e = new Error(type + '|' + msg);
    e.name = 'WrightError';
    e.stack = 'WrightError: ' + type + '|' + msg;
    throw e;
  }

  // ---- text matching -----------------------------------------------------

  // One normalisation for names and text: the role engine's.
  const normalize = (s) => R.normalize(String(s == null ? '' : s));

  // textMatcher implements the BODY kinds of selector.go on an element's
  // text ({full, normalized, immediate}, see elementText): exact and eqi
  // compare the whole normalised text, ci and cs look for a substring, re
  // tests the raw text, node compares each of the element's own text runs,
  // raw and rawci compare the raw text (attribute values).
  function textMatcher(m) {
    const v = normalize(m.value);
    const lower = v.toLowerCase();
    switch (m.kind) {
      case 'exact': return (t) => t.normalized === v;
      case 'eqi': return (t) => t.normalized.toLowerCase() === lower;
      case 'ci': return (t) => t.normalized.toLowerCase().includes(lower);
      case 'cs': return (t) => t.normalized.includes(v);
      case 'node': return (t) => (!v && !t.immediate.length) || t.immediate.some((s) => normalize(s) === v);
      case 'raw': return (t) => t.full === m.value;
      case 'rawci': {
        const rl = String(m.value).toLowerCase();
        return (t) => t.full.toLowerCase().includes(rl);
      }
      case 're': {
        let re;
        try {
          re = new RegExp(m.value, (m.flags || '').replace(/[gy]/g, ''));
        } catch (e) {
          fail('InvalidSelector', 'invalid regular expression /' + m.value + '/' + (m.flags || '') + ': ' + e.message);
        }
        return (t) => re.test(t.full);
      }
    }
    fail('InvalidSelector', 'unknown text match kind ' + m.kind);
  }

  // A string as element text, for names, labels and attribute values.
  const asText = (s) => {
    const full = String(s == null ? '' : s);
    return { full, normalized: normalize(full), immediate: [full] };
  };

  // matcher matches plain strings (names are matched normalised, as
  // Playwright does, so a regex sees the normalised name).
  function matcher(m) {
    const tm = textMatcher(m);
    return m.kind === 're' ? (s) => tm(asText(normalize(s))) : (s) => tm(asText(s));
  }

  // ---- tree walking ------------------------------------------------------

  const isElement = (n) => !!n && n.nodeType === 1;
  const tag = (el) => (el.localName || el.nodeName || '').toLowerCase();
  const parentComposed = (n) => {
    if (n.assignedSlot) return n.assignedSlot;
    const p = n.parentNode;
    if (p && p.nodeType === 11 && p.host) return p.host; // shadow root
    return p;
  };
  const parentElementComposed = (n) => {
    let p = parentComposed(n);
    while (p && !isElement(p)) p = p.nodeType === 11 && p.host ? p.host : (p.nodeType === 9 ? null : p.parentNode);
    return p;
  };

  // Every element under scope in composed order (the element, then its open
  // shadow tree, then its light children). Frames are not entered.
  function descendants(scope, light) {
    const out = [];
    const visit = (node) => {
      for (let c = node.firstElementChild; c; c = c.nextElementSibling) {
        out.push(c);
        if (c.shadowRoot && !light) visit(c.shadowRoot);
        visit(c);
      }
    };
    if (isElement(scope) && scope.shadowRoot && !light) visit(scope.shadowRoot);
    visit(scope);
    return out;
  }

  // Open shadow roots under scope (not including scope's own, see scopesOf).
  function shadowRootsUnder(scope) {
    const out = [];
    for (const el of descendants(scope)) if (el.shadowRoot) out.push(el.shadowRoot);
    return out;
  }

  function scopesOf(root) {
    const s = [root];
    if (isElement(root) && root.shadowRoot) s.push(root.shadowRoot);
    return s.concat(shadowRootsUnder(root));
  }

  // The order of elements across documents, shadow trees and same-origin
  // frames, built lazily because most queries never need it.
  function orderOf(doc) {
    const map = new Map();
    let i = 0;
    const visit = (node) => {
      for (let c = node.firstElementChild; c; c = c.nextElementSibling) {
        map.set(c, i++);
        if (c.shadowRoot) visit(c.shadowRoot);
        if (c.localName === 'iframe' || c.localName === 'frame') {
          let d = null;
          try { d = c.contentDocument; } catch (e) { /* cross-origin */ }
          if (d) visit(d);
        }
        visit(c);
      }
    };
    visit(doc);
    return map;
  }

  function sortUnique(list) {
    const uniq = [...new Set(list)];
    if (uniq.length < 2) return uniq;
    const order = orderOf(document);
    return uniq.sort((a, b) => (order.has(a) ? order.get(a) : 1e9) - (order.has(b) ? order.get(b) : 1e9));
  }

  // ---- visibility --------------------------------------------------------

  const styleOf = (el, pseudo) => {
    const view = (el.ownerDocument && el.ownerDocument.defaultView) || window;
    return view.getComputedStyle(el, pseudo);
  };

  // Visible as Playwright defines it: rendered, not visibility:hidden, and a
  // non-empty box. display:contents elements are visible when a child is.
  function isVisible(el) {
    if (!el.isConnected) return false;
    const style = styleOf(el);
    if (style.display === 'contents') {
      for (let c = el.firstChild; c; c = c.nextSibling) {
        if (isElement(c) && isVisible(c)) return true;
        if (c.nodeType === 3 && c.data.trim()) {
          const r = document.createRange();
          r.selectNodeContents(c);
          const b = r.getBoundingClientRect();
          if (b.width > 0 && b.height > 0) return true;
        }
      }
      return false;
    }
    if (typeof el.checkVisibility === 'function') {
      if (!el.checkVisibility({ visibilityProperty: true })) return false;
    } else if (style.visibility !== 'visible') {
      return false;
    }
    if (tag(el) === 'option' || tag(el) === 'optgroup') {
      const sel = el.closest('select');
      if (sel) return isVisible(sel);
    }
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }

  // Hidden from assistive technology, as the snapshot leaves it out (the
  // role engine's rule). Size does not matter, so visually hidden controls
  // stay in the tree.
  const isHiddenForAria = (el) => R.hidden(el);

  // ---- element text ------------------------------------------------------

  const SKIP_TEXT = new Set(['script', 'style', 'noscript']);

  function skipForText(el) {
    if (SKIP_TEXT.has(tag(el))) return true;
    const head = el.ownerDocument && el.ownerDocument.head;
    return !!head && (head === el || head.contains(el));
  }

  function childNodesComposed(n) {
    if (isElement(n) && n.shadowRoot) return n.shadowRoot.childNodes;
    if (isElement(n) && tag(n) === 'slot') {
      const a = n.assignedNodes();
      return a.length ? a : n.childNodes;
    }
    return n.childNodes;
  }

  // elementText is the text selectors match, as Playwright computes it:
  // full is every text node below (light children, then the open shadow
  // tree; scripts and styles skipped; <br> adds nothing), normalized the
  // same with white space collapsed, immediate the element's own runs of
  // text between child elements. Buttons made of <input> give their value.
  function elementText(node, cache) {
    if (cache.has(node)) return cache.get(node);
    let v = { full: '', normalized: '', immediate: [] };
    if (!(isElement(node) && skipForText(node))) {
      if (isElement(node) && tag(node) === 'input' && /^(submit|button)$/i.test(node.type)) {
        v = asText(node.value);
      } else {
        let run = '';
        for (let c = node.firstChild; c; c = c.nextSibling) {
          if (c.nodeType === 3) {
            v.full += c.data;
            run += c.data;
          } else if (c.nodeType !== 8) {
            if (run) v.immediate.push(run);
            run = '';
            if (isElement(c)) v.full += elementText(c, cache).full;
          }
        }
        if (run) v.immediate.push(run);
        if (isElement(node) && node.shadowRoot) v.full += elementText(node.shadowRoot, cache).full;
        v.normalized = normalize(v.full);
      }
    }
    cache.set(node, v);
    return v;
  }

  // textMatchOf says how el's text matches: 'none', 'self' (el matches and
  // no child element does: el is the smallest match) or 'selfAndChildren'.
  function textMatchOf(el, tm, cache) {
    if (skipForText(el) || !tm(elementText(el, cache))) return 'none';
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      if (tm(elementText(c, cache))) return 'selfAndChildren';
    }
    if (el.shadowRoot && tm(elementText(el.shadowRoot, cache))) return 'selfAndChildren';
    return 'self';
  }

  // ---- roles and names: the role engine's -------------------------------

  const roleOf = (el) => R.role(el) || null;

  function idrefs(el, attr) {
    const ids = (el.getAttribute(attr) || '').split(/\s+/).filter(Boolean);
    const root = el.getRootNode();
    const out = [];
    for (const id of ids) {
      const t = (root.getElementById ? root.getElementById(id) : null) || el.ownerDocument.getElementById(id);
      if (t) out.push(t);
    }
    return out;
  }

  // isDisabled is Playwright's enabled/disabled for actions (a disabled
  // fieldset itself counts); role selectors' [disabled] is the role
  // engine's, which the snapshot prints.
  function isDisabled(el) {
    const t = tag(el);
    if (/^(button|input|select|textarea|option|optgroup|fieldset)$/.test(t)) {
      if (el.disabled) return true;
      // Inside a disabled fieldset, except within its first legend.
      const fs = el.closest('fieldset[disabled]');
      if (fs && fs !== el) {
        const legend = [...fs.children].find((c) => tag(c) === 'legend');
        if (!legend || !legend.contains(el)) return true;
      }
      if ((t === 'option' || t === 'optgroup')) {
        const g = el.closest('optgroup');
        if (g && g !== el && g.disabled) return true;
      }
    }
    for (let n = el; n; n = parentElementComposed(n)) {
      if (n.getAttribute('aria-disabled') === 'true') return true;
    }
    return false;
  }

  // ---- query engines -----------------------------------------------------

  // Splits a CSS selector at top-level occurrences of any char in `seps`,
  // respecting quotes, brackets and parentheses.
  function splitTop(s, isSep) {
    const out = [];
    let depth = 0, quote = '', cur = '';
    for (let i = 0; i < s.length; i++) {
      const ch = s[i];
      if (quote) {
        cur += ch;
        if (ch === '\\') { cur += s[++i] || ''; continue; }
        if (ch === quote) quote = '';
        continue;
      }
      if (ch === '"' || ch === "'") { quote = ch; cur += ch; continue; }
      if (ch === '\\') { cur += ch + (s[++i] || ''); continue; }
      if (ch === '(' || ch === '[') depth++;
      if (ch === ')' || ch === ']') depth--;
      const n = depth === 0 ? isSep(s, i) : 0;
      if (n) { out.push(cur); cur = ''; i += n - 1; continue; }
      cur += ch;
    }
    out.push(cur);
    return out;
  }

  // Descendant combinators (plain whitespace) are the only places a CSS
  // selector may cross into a shadow tree, so we split there and search each
  // chunk in every shadow root below the previous matches.
  function descendantChunks(sel) {
    const chunks = splitTop(sel.trim(), (s, i) => {
      if (!/\s/.test(s[i])) return 0;
      let j = i;
      while (j < s.length && /\s/.test(s[j])) j++;
      let k = i - 1;
      while (k >= 0 && /\s/.test(s[k])) k--;
      const prev = s[k], next = s[j];
      if (prev === '>' || prev === '+' || prev === '~' || prev === ',' || next === '>' || next === '+' || next === '~' || next === ',' || next === undefined) return 0;
      return j - i;
    });
    return chunks.map((c) => c.trim()).filter(Boolean);
  }

  const cssChecked = new Map();
  function checkCSS(sel) {
    if (cssChecked.has(sel)) return;
    try {
      document.createDocumentFragment().querySelector(sel);
    } catch (e) {
      fail('InvalidSelector', 'invalid CSS selector ' + JSON.stringify(sel) + ': ' + e.message.replace(/^.*?: /, ''));
    }
    cssChecked.set(sel, true);
  }

  function queryNativeCSS(root, sel, light) {
    checkCSS(sel);
    if (light) return [...root.querySelectorAll(sel)];
    const out = [];
    for (const group of splitTop(sel, (s, i) => (s[i] === ',' ? 1 : 0))) {
      let current = [root];
      for (const chunk of descendantChunks(group)) {
        const next = [];
        for (const r of current) {
          for (const scope of scopesOf(r)) {
            for (const el of scope.querySelectorAll(chunk)) next.push(el);
          }
        }
        current = [...new Set(next)];
      }
      for (const e of current) if (e !== root) out.push(e);
    }
    return out;
  }

  // queryCSS runs a parsed selector (selector_css.go): a native one in the
  // browser, one with Playwright's pseudo-classes by matching every element
  // under root against its compounds, right to left, crossing into open
  // shadow trees at descendant and child combinators.
  function queryCSS(root, sel, st, light) {
    if (typeof sel === 'string') return queryNativeCSS(root, sel, light);
    if (sel.native) return queryNativeCSS(root, sel.native, light);
    const found = [];
    let scored = false;
    for (const el of descendants(root, light)) {
      for (const cx of sel.list) {
        if (!matchComplex(el, cx, cx.length - 1, root, st)) continue;
        const score = layoutScore(el, cx[cx.length - 1], root, st);
        if (score !== undefined) scored = true;
        found.push({ el, score: score || 0 });
        break;
      }
    }
    if (scored) found.sort((a, b) => a.score - b.score);
    return found.map((f) => f.el);
  }

  function matchesNative(el, native) {
    if (!native) return true;
    try {
      return el.matches(native);
    } catch (e) {
      fail('InvalidSelector', 'invalid CSS selector ' + JSON.stringify(native) + ': ' + e.message.replace(/^.*?: /, ''));
    }
  }

  const parentForCSS = (el) => parentElementComposed(el);

  function matchComplex(el, cx, i, root, st) {
    const c = cx[i];
    if (!matchCompound(el, c, root, st)) return false;
    if (i === 0) {
      // A relative selector inside :has(> a) starts with a combinator.
      if (c.comb === '>') return parentForCSS(el) === st.hasScope;
      if (c.comb === '+') return el.previousElementSibling === st.hasScope;
      if (c.comb === '~') { for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s === st.hasScope) return true; return false; }
      return true;
    }
    switch (c.comb) {
      case '>': {
        const p = parentForCSS(el);
        return !!p && matchComplex(p, cx, i - 1, root, st);
      }
      case '+': {
        const s = el.previousElementSibling;
        return !!s && matchComplex(s, cx, i - 1, root, st);
      }
      case '~':
        for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (matchComplex(s, cx, i - 1, root, st)) return true;
        return false;
      default:
        for (let p = parentForCSS(el); p; p = parentForCSS(p)) if (matchComplex(p, cx, i - 1, root, st)) return true;
        return false;
    }
  }

  function matchCompound(el, c, root, st) {
    if (c.native === ':scope') {
      if (el !== (root.nodeType === 9 ? root.documentElement : root)) return false;
    } else if (!matchesNative(el, c.native)) {
      return false;
    }
    for (const p of c.pseudo || []) if (!matchPseudo(el, p, root, st)) return false;
    return true;
  }

  // cached evaluates a nested selector once per query and root.
  function cached(st, key, root, make) {
    let m = st.nested.get(key);
    if (!m) { m = new Map(); st.nested.set(key, m); }
    if (!m.has(root)) m.set(root, make());
    return m.get(root);
  }

  function matchSel(el, sel, root, st) {
    if (sel.native) return matchesNative(el, sel.native);
    return sel.list.some((cx) => matchComplex(el, cx, cx.length - 1, root, st));
  }

  function matchPseudo(el, p, root, st) {
    switch (p.name) {
      case 'visible': return isVisible(el);
      case 'has-text': return !skipForText(el) && textMatcher({ kind: 'ci', value: p.text })(elementText(el, st.text));
      case 'text': return textMatchOf(el, textMatcher({ kind: 'ci', value: p.text }), st.text) === 'self';
      case 'text-is': return textMatchOf(el, textMatcher({ kind: 'node', value: p.text }), st.text) !== 'none';
      case 'text-matches': return textMatchOf(el, textMatcher({ kind: 're', value: p.text, flags: p.flags }), st.text) === 'self';
      case 'is': case 'where': return matchSel(el, p.sel, root, st);
      case 'not': return !matchSel(el, p.sel, root, st);
      case 'has': {
        const saved = st.hasScope;
        st.hasScope = el;
        try {
          return queryCSS(el, p.sel, st).length > 0;
        } finally {
          st.hasScope = saved;
        }
      }
      case 'nth-match': return cached(st, p, root, () => queryCSS(root, p.sel, st))[p.n - 1] === el;
    }
    if (LAYOUT[p.name]) return layoutPseudoScore(el, p, root, st) !== undefined;
    fail('InvalidSelector', 'unknown pseudo-class :' + p.name);
  }

  // Layout pseudo-classes: el is left of, right of, above, below or near
  // some element the inner selector matches; the score (smaller is closer)
  // orders the results.
  const LAYOUT = {
    'left-of': (a, b, max) => {
      const d = b.left - a.right;
      if (d < 0 || (max !== undefined && d > max)) return undefined;
      return d + Math.max(b.bottom - a.bottom, 0) + Math.max(a.top - b.top, 0);
    },
    'right-of': (a, b, max) => {
      const d = a.left - b.right;
      if (d < 0 || (max !== undefined && d > max)) return undefined;
      return d + Math.max(b.bottom - a.bottom, 0) + Math.max(a.top - b.top, 0);
    },
    'above': (a, b, max) => {
      const d = b.top - a.bottom;
      if (d < 0 || (max !== undefined && d > max)) return undefined;
      return d + Math.max(a.left - b.left, 0) + Math.max(b.right - a.right, 0);
    },
    'below': (a, b, max) => {
      const d = a.top - b.bottom;
      if (d < 0 || (max !== undefined && d > max)) return undefined;
      return d + Math.max(a.left - b.left, 0) + Math.max(b.right - a.right, 0);
    },
    'near': (a, b, max) => {
      const limit = max === undefined ? 50 : max;
      let d = 0;
      if (a.left - b.right >= 0) d += a.left - b.right;
      if (b.left - a.right >= 0) d += b.left - a.right;
      if (b.top - a.bottom >= 0) d += b.top - a.bottom;
      if (a.top - b.bottom >= 0) d += a.top - b.bottom;
      return d > limit ? undefined : d;
    },
  };

  function layoutPseudoScore(el, p, root, st) {
    const anchors = cached(st, p, root, () => queryCSS(root, p.sel, st));
    const box = el.getBoundingClientRect();
    let best;
    for (const a of anchors) {
      if (a === el) continue;
      const s = LAYOUT[p.name](box, a.getBoundingClientRect(), p.dist == null ? undefined : p.dist);
      if (s !== undefined && (best === undefined || s < best)) best = s;
    }
    return best;
  }

  function layoutScore(el, c, root, st) {
    let total;
    for (const p of c.pseudo || []) {
      if (!LAYOUT[p.name]) continue;
      total = (total || 0) + layoutPseudoScore(el, p, root, st);
    }
    return total;
  }

  function queryXPath(root, expr) {
    const doc = root.nodeType === 9 ? root : root.ownerDocument;
    let e = expr;
    if (root.nodeType !== 9 && e.startsWith('/')) e = '.' + e;
    let res;
    try {
      res = doc.evaluate(e, root, null, 7 /* ORDERED_NODE_SNAPSHOT_TYPE */, null);
    } catch (err) {
      fail('InvalidSelector', 'invalid XPath ' + JSON.stringify(expr) + ': ' + err.message.replace(/^.*?: /, ''));
    }
    const out = [];
    for (let i = 0; i < res.snapshotLength; i++) {
      const n = res.snapshotItem(i);
      if (isElement(n)) out.push(n);
    }
    return out;
  }

  // queryText finds the smallest elements whose text matches, the root
  // included; a quoted text= (kind node) also keeps an element whose own
  // text run matches when a child matches as well. Hidden elements match
  // too: actions then wait for them to show.
  function queryText(root, m, st, light) {
    const tm = textMatcher(m);
    const out = [];
    const consider = (el) => {
      const how = textMatchOf(el, tm, st.text);
      if (how === 'self' || (how === 'selfAndChildren' && m.kind === 'node')) out.push(el);
    };
    if (isElement(root)) consider(root);
    for (const el of descendants(root, light)) consider(el);
    return out;
  }

  // roleDescendants is descendants() seen as the snapshot sees the flat
  // tree: closed shadow roots the snapshot was handed are searched too, so
  // that an element the snapshot shows is one role= can find.
  function roleDescendants(scope) {
    const out = [];
    const shadowOf = R.internals.shadowOf;
    const visit = (node) => {
      for (let c = node.firstElementChild; c; c = c.nextElementSibling) {
        out.push(c);
        const sr = shadowOf(c);
        if (sr) visit(sr);
        visit(c);
      }
    };
    if (isElement(scope) && shadowOf(scope)) visit(shadowOf(scope));
    visit(scope);
    return out;
  }

  // queryRole: role, states, name and description all come from the role
  // engine (rows are named from their cells there, as in the snapshot).
  function queryRole(root, p) {
    return R.session(() => {
      const out = [];
      const nameMatch = p.name ? matcher(p.name) : null;
      const descMatch = p.description ? matcher(p.description) : null;
      for (const el of roleDescendants(root)) {
        const role = R.role(el);
        if (role !== p.role) continue;
        if (!p.includeHidden && R.hidden(el)) continue;
        let ok = true;
        for (const a of p.attrs || []) {
          const v = R.state(el, role, a.name);
          if (a.value === undefined || a.value === null) { if (v !== true) ok = false; }
          else if (v !== a.value) ok = false;
          if (!ok) break;
        }
        if (!ok) continue;
        if (nameMatch && !nameMatch(R.name(el, role, p.includeHidden))) continue;
        if (descMatch && !descMatch(R.description(el))) continue;
        out.push(el);
      }
      return out;
    });
  }

  // labelsOf lists the texts that label el, as get_by_label reads them:
  // aria-labelledby, else aria-label, else the <label>s of a form control.
  function labelsOf(el, st) {
    const refs = idrefs(el, 'aria-labelledby');
    if (refs.length) return refs.map((r) => elementText(r, st.text));
    const aria = el.getAttribute('aria-label');
    if (aria && aria.trim()) return [asText(aria)];
    const t = tag(el);
    if (/^(button|meter|output|progress|select|textarea)$/.test(t) || (t === 'input' && el.type !== 'hidden')) {
      return el.labels ? [...el.labels].map((l) => elementText(l, st.text)) : [];
    }
    return [];
  }

  function queryLabel(root, m, st) {
    const tm = textMatcher(m);
    return descendants(root).filter((el) => labelsOf(el, st).some(tm));
  }

  // wright's placeholder=, alt= and title=: normalised values of elements
  // in the accessibility tree.
  function queryAttr(root, name, m, st) {
    const match = matcher(m);
    const out = [];
    for (const el of descendants(root)) {
      const v = el.getAttribute(name);
      if (v == null || !match(v)) continue;
      if (isHiddenForAria(el)) continue;
      out.push(el);
    }
    return out;
  }

  // The attr engine (id=, data-testid=, internal:attr=, internal:testid=):
  // raw attribute values, hidden elements included.
  function queryAttrEngine(root, p, light) {
    const tm = textMatcher(p.match);
    return descendants(root, light).filter((el) => {
      const v = el.getAttribute(p.attr);
      return v != null && tm(asText(v));
    });
  }

  function queryTestID(root, value) {
    const out = [];
    for (const el of descendants(root)) if (el.getAttribute('data-testid') === value) out.push(el);
    return out;
  }

  function search(root, p, st) {
    switch (p.engine) {
      case 'css': return queryCSS(root, p.sel || p.css, st, p.light);
      case 'xpath': return queryXPath(root, p.xpath);
      case 'text': return queryText(root, p.match, st, p.light);
      case 'role': return queryRole(root, p);
      case 'label': return queryLabel(root, p.match, st);
      case 'placeholder': case 'alt': case 'title': return queryAttr(root, p.engine, p.match, st);
      case 'attr': return queryAttrEngine(root, p, p.light);
      case 'testid': return queryTestID(root, p.value);
      case 'custom': return queryCustom(root, p);
      // A nested locator's own chain, run inside each element reached so far.
      case 'chain': return chain(p.inner, [root], st);
    }
    fail('InvalidSelector', 'unknown selector engine ' + p.engine);
  }

  const FILTERS = new Set(['nth', 'has-text', 'has-not-text', 'visible', 'has', 'has-not', 'and', 'or']);
  const isFilter = (p) => FILTERS.has(p.engine);

  // filter keeps (or, for or, adds to) the elements of list; st.roots are
  // the roots the whole chain started from, where and/or search.
  function filter(list, p, st) {
    const els = list.filter(isElement);
    switch (p.engine) {
      case 'nth': {
        const i = p.n < 0 ? els.length + p.n : p.n;
        return i >= 0 && i < els.length ? [els[i]] : [];
      }
      case 'has-text': case 'has-not-text': {
        const tm = textMatcher(p.match);
        const want = p.engine === 'has-text';
        return els.filter((el) => (!skipForText(el) && tm(elementText(el, st.text))) === want);
      }
      case 'visible':
        return els.filter((el) => isVisible(el) === p.visible);
      case 'has': case 'has-not': {
        const want = p.engine === 'has';
        return els.filter((el) => (chain(p.inner, [el], st).length > 0) === want);
      }
      case 'and': {
        const other = new Set(chain(p.inner, st.roots, st));
        return els.filter((el) => other.has(el));
      }
      case 'or':
        return sortUnique(els.concat(chain(p.inner, st.roots, st)));
    }
    return els;
  }

  // chain runs a nested chain (internal:has= and friends) from roots; a
  // frame it cannot enter holds no matches.
  function chain(parts, roots, st) {
    const inner = { ...st, roots };
    let cur = roots;
    for (const p of parts) {
      if (isFilter(p)) { cur = filter(cur, p, inner); continue; }
      const next = [];
      for (const r of cur) {
        let scope = r;
        if (isFrame(r)) { try { scope = r.contentDocument; } catch (e) { scope = null; } }
        if (scope) for (const el of search(scope, p, inner)) next.push(el);
      }
      cur = sortUnique(next);
    }
    return cur;
  }

  const isFrame = (el) => isElement(el) && (tag(el) === 'iframe' || tag(el) === 'frame');

  const ordersByLayout = (p) => !!p.sel && !!p.sel.list &&
    p.sel.list.some((cx) => (cx[cx.length - 1].pseudo || []).some((ps) => LAYOUT[ps.name]));

  const newState = (roots) => ({ text: new Map(), hidden: new Map(), nested: new Map(), roots, hasScope: null });

  // run evaluates parts against roots (null: this context's document). It
  // returns the matches as an array. When a search part must descend into a
  // frame whose document this context cannot reach (cross-origin), it stops
  // and returns the roots at that part with stopAt (the part index) and
  // opaque (comma-separated indexes of the unreachable frames), so the driver
  // can continue in the frame's own context.
  W.run = function (parts, ...roots) {
    // One session of the role engine: styles read once per call.
    return R.session(() => runChain(parts, roots));
  };

  function runChain(parts, roots) {
    let cur = roots.length ? roots : [document];
    const st = newState(cur);
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      if (isFilter(p)) {
        cur = filter(cur, p, st);
        continue;
      }
      if (p.engine === 'enter-frame') {
        // The next part searches inside the frame: there must be one.
        const frames = cur.filter(isElement);
        if (frames.length > 1) {
          fail('StrictModeViolation', 'strict mode violation: ' + p.value + ' resolved to ' + frames.length + ' elements:\n' +
            frames.slice(0, 5).map((e, k) => '  ' + (k + 1) + ') ' + describe(e)).join('\n') +
            '\nA frame locator enters one <iframe>: pick one with .first / .nth(i), or narrow its selector.');
        }
        if (frames.length === 1 && !isFrame(frames[0])) {
          fail('BrowserError', p.value + ' resolved to ' + describe(frames[0]) + ', which is not an <iframe> or <frame>: a frame locator needs a frame element');
        }
        continue;
      }
      const opaque = [];
      cur.forEach((r, k) => {
        if (isFrame(r)) {
          let d = null;
          try { d = r.contentDocument; } catch (e) { /* cross-origin */ }
          if (!d) opaque.push(k);
        }
      });
      if (opaque.length) {
        const res = [...cur];
        res.stopAt = i;
        res.opaque = opaque.join(',');
        return res;
      }
      const next = [];
      for (const r of cur) {
        const scope = isFrame(r) ? r.contentDocument : r;
        if (!scope) continue;
        const found = search(scope, p, st);
        for (const el of found) next.push(el);
      }
      // Layout pseudo-classes order their matches by distance; keep that.
      // A registered engine's order is its own, as in Playwright.
      cur = p.engine !== 'custom' && (cur.length > 1 || (p.engine === 'css' && !ordersByLayout(p))) ? sortUnique(next) : [...new Set(next)];
    }
    const res = [...cur];
    res.stopAt = -1;
    return res;
  }

  // Selector engines registered by scripts (selectors.register), defined
  // in this world by the driver before a chain that uses them runs.
  const CUSTOM = new Map();
  W.defineEngine = function (name, engine) {
    if (!engine || typeof engine.queryAll !== 'function')
      fail('InvalidSelector', 'selector engine "' + name + '" has no queryAll(root, selector) method');
    CUSTOM.set(name, engine);
  };

  // queryCustom keeps the engine's own order, as a registered engine may
  // rank its matches.
  function queryCustom(root, p) {
    const engine = CUSTOM.get(p.custom);
    if (!engine) fail('InvalidSelector', 'selector engine "' + p.custom + '" is not defined in this frame');
    const found = engine.queryAll(root, p.value || '');
    if (found == null) return [];
    return Array.from(found).filter((el) => isElement(el));
  }

  W.filterOne = function (p, el) {
    return R.session(() => filter([el], p, newState([el.ownerDocument])).length === 1);
  };

  // ---- descriptions for messages -----------------------------------------

  const VOID_TAGS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
  function describe(el) {
    if (!isElement(el)) return String(el);
    let s = '<' + tag(el);
    const keep = ['id', 'class', 'name', 'type', 'role', 'aria-label', 'data-testid', 'href', 'placeholder', 'value', 'title', 'alt'];
    for (const a of keep) {
      let v = el.getAttribute(a);
      if (v == null) continue;
      if (v.length > 40) v = v.slice(0, 37) + '...';
      s += ' ' + a + '="' + v + '"';
    }
    s += '>';
    let text = elementText(el, new Map()).normalized;
    if (text.length > 50) text = text.slice(0, 47) + '...';
    // Closed as Playwright's previews are (<div id="blocker"></div>), but
    // for void elements, which have no end tag.
    if (text || !VOID_TAGS.has(tag(el))) s += text + '</' + tag(el) + '>';
    return s;
  }

  W.describe = function (...els) {
    return els.map(describe);
  };

  // ---- actionability -----------------------------------------------------

  const raf = (view) => new Promise((r) => {
    // Background pages may not run animation frames; a timer keeps us going.
    const t = setTimeout(r, 50);
    (view || window).requestAnimationFrame(() => { clearTimeout(t); r(); });
  });

  // laterFrame waits until the document's animation time has moved past
  // what it was when the caller read a box: the next rendered frame. A
  // frame callback or raf's timer can come while the animation time still
  // stands (a busy machine), and a box read twice at one animation time
  // makes a moving element look stable. A page that renders no frames (a
  // background one) is let through after a second.
  const laterFrame = async (view) => {
    const w = view || window;
    const timeline = w.document.timeline;
    const t0 = timeline ? timeline.currentTime : null;
    const start = w.performance.now();
    for (;;) {
      await raf(w);
      if (t0 === null || timeline.currentTime === null || timeline.currentTime > t0) return;
      if (w.performance.now() - start >= 1000) return;
    }
  };

  function isEditable(el) {
    const t = tag(el);
    if (t === 'input' || t === 'textarea' || t === 'select') return !el.readOnly && !isDisabled(el);
    if (el.isContentEditable) return true;
    const role = roleOf(el);
    if (role === 'textbox' || role === 'searchbox' || role === 'combobox' || role === 'spinbutton') {
      return el.getAttribute('aria-readonly') !== 'true' && !isDisabled(el);
    }
    return false;
  }

  // retarget moves from an element to the control that acts for it, as
  // Playwright does: 'follow-label' (for enabled, editable, checked) goes
  // from a part of a button, checkbox or radio to that control and from a
  // <label>'s content to its control; 'button-link' (for hit testing) goes
  // from a part of a button or link to it.
  function retarget(el, behavior) {
    if (!isElement(el)) return el;
    let t = el;
    const own = t.matches('input, textarea, select') || t.isContentEditable;
    if (!own) {
      const sel = behavior === 'button-link' ? 'button, [role=button], a, [role=link]' : 'button, [role=button], [role=checkbox], [role=radio]';
      t = t.closest(sel) || t;
    }
    if (behavior === 'follow-label' && !t.matches('a, input, textarea, button, select, [role=link], [role=button], [role=checkbox], [role=switch], [role=radio]') && !t.isContentEditable) {
      const label = t.closest('label');
      if (label && label.control) t = label.control;
    }
    return t;
  }

  // check reports the first failing actionability condition, or 'ok'.
  // checks: visible, stable, enabled, editable. With scroll, an element
  // that passes them is scrolled into view in the same call, as the
  // action's next step would (one round trip fewer per click).
  W.check = async function (el, checks, scroll) {
    if (!el.isConnected) return { state: 'detached' };
    if (checks.visible && !isVisible(el)) return { state: 'hidden' };
    // Laid out at all (a box, maybe hidden or of no size): what scrolling to an element needs.
    if (checks.rendered && el.getClientRects().length === 0) return { state: 'hidden' };
    if (checks.enabled && isDisabled(retarget(el, 'follow-label'))) return { state: 'disabled' };
    if (checks.editable) {
      const t = tag(el);
      if (t !== 'input' && t !== 'textarea' && !el.isContentEditable) {
        fail('BrowserError', 'Element is not an <input>, <textarea> or [contenteditable] element: cannot fill ' + describe(el));
      }
      if (!isEditable(retarget(el, 'follow-label'))) return { state: 'readonly' };
    }
    if (checks.stable) {
      // The box now and in the next rendered frame must agree.
      const view = el.ownerDocument.defaultView;
      // While CSS animations or transitions run, the next frame must be
      // one at a later animation time (laterFrame); otherwise any next
      // frame will do, which keeps a click on a still page one frame long.
      const doc = el.ownerDocument;
      const animating = typeof doc.getAnimations === 'function' && doc.getAnimations().some((x) => x.playState === 'running');
      const a = el.getBoundingClientRect();
      await (animating ? laterFrame(view) : raf(view));
      if (!el.isConnected) return { state: 'detached' };
      const b = el.getBoundingClientRect();
      if (a.x !== b.x || a.y !== b.y || a.width !== b.width || a.height !== b.height) return { state: 'unstable' };
    }
    if (scroll) W.scrollIntoView(el);
    return { state: 'ok' };
  };

  W.scrollIntoView = function (el) {
    // Centre the element so sticky headers are less likely to cover it.
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
  };

  function deepElementFromPoint(doc, x, y) {
    let hit = doc.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }

  function containsComposed(el, n) {
    for (let x = n; x; x = parentElementComposed(x)) if (x === el) return true;
    return false;
  }

  function receives(el, hit) {
    if (!hit) return false;
    if (containsComposed(el, hit)) return true;
    // A <label> hands its clicks to its control.
    for (let x = hit; x; x = parentElementComposed(x)) {
      if (tag(x) === 'label' && x.control === el) return true;
    }
    return false;
  }

  // previewNode is an element as Playwright's messages show it: its
  // attributes shortest first, its text when it holds only text, else "…".
  const voidTags = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
  function previewNode(el) {
    if (!isElement(el)) return String(el);
    const t = tag(el);
    const attrs = [];
    for (const a of Array.from(el.attributes)) {
      if (a.name === 'style') continue;
      attrs.push(a.value === '' ? ' ' + a.name : ' ' + a.name + '="' + a.value + '"');
    }
    attrs.sort((a, b) => a.length - b.length);
    const oneLine = (s) => s.replace(/\n/g, '↵').replace(/\t/g, '⇆');
    const at = oneLine(attrs.join('')).slice(0, 500);
    if (voidTags.has(t)) return '<' + t + at + '/>';
    const kids = el.childNodes;
    const onlyText = kids.length <= 5 && Array.from(kids).every((k) => k.nodeType === 3);
    let text = onlyText ? (el.textContent || '') : (kids.length ? '\u2026' : '');
    if (text.length > 50) text = text.slice(0, 49) + '\u2026';
    return oneLine('<' + t + at + '>' + text + '</' + t + '>');
  }

  // hitDescription names what took the click instead of el: the element
  // hit and, when it sits deeper, the subtree it belongs to (the child of
  // the nearest ancestor it shares with el).
  function hitDescription(el, hit) {
    const path = [];
    for (let x = hit; x; x = parentElementComposed(x)) path.push(x);
    let root = null;
    for (let x = el; x; x = parentElementComposed(x)) {
      const i = path.indexOf(x);
      if (i !== -1) {
        if (i > 1) root = path[i - 1];
        break;
      }
    }
    return previewNode(hit) + (root ? ' from ' + previewNode(root) + ' subtree' : '');
  }

  // mouseAt is the page point the driver last moved the mouse to while
  // this document was loaded ("x,y"; '' before any), so that an action can
  // tell that the mouse is over its point already in this very document
  // (a new document starts with none, and the driver moves again).
  let mouseAt = '';

  // hitTargetAt says whether el would receive a click at the page point
  // (px, py), given (qx, qy), the top-left of el's box in page coordinates
  // (from DOM.getContentQuads): the difference maps the point into el's own
  // frame. Same-origin parent frames are checked too. moved says the mouse
  // has just been moved to the point (recorded in mouseAt); the answer
  // carries mouseAt.
  W.hitTargetAt = function (el0, px, py, qx, qy, moved) {
    if (moved) mouseAt = px + ',' + py;
    const hit = hitTest(el0, px, py, qx, qy);
    hit.at = mouseAt;
    return hit;
  };

  function hitTest(el0, px, py, qx, qy) {
    const r = el0.getBoundingClientRect();
    // A click on a part of a button or link is a click on it, so a hit on
    // the button itself (its label span has pointer-events: none) counts.
    const el = retarget(el0, 'button-link');
    let x = px - qx + r.left, y = py - qy + r.top;
    const doc = el.ownerDocument;
    const hit = deepElementFromPoint(doc, x, y);
    if (!receives(el, hit)) return { ok: false, other: hit ? hitDescription(el, hit) : 'nothing (the point is outside the page)' };
    let win = doc.defaultView;
    for (;;) {
      let fe = null;
      try { fe = win.frameElement; } catch (e) { /* cross-origin parent */ }
      if (!fe) break;
      const fr = fe.getBoundingClientRect();
      const cs = styleOf(fe);
      x += fr.left + fe.clientLeft + (parseFloat(cs.paddingLeft) || 0);
      y += fr.top + fe.clientTop + (parseFloat(cs.paddingTop) || 0);
      const h = deepElementFromPoint(fe.ownerDocument, x, y);
      if (h !== fe) return { ok: false, other: h ? describe(h) : 'nothing' };
      win = fe.ownerDocument.defaultView;
    }
    return { ok: true };
  }

  // Form submissions. A click or a key that submits a form queues the
  // navigation as a task of the page, so the action's navigation wait
  // must let that task run before it looks; every submission (submit(),
  // requestSubmit(), a submit button, implicit submission) first builds
  // the form's entry list, which fires formdata, and that is counted here.
  // The listener is added on the first inputMark, in the world the driver
  // calls it in (wright's), never at install: the engine is also made in
  // the page's own world for custom selectors.
  let submissions = -1;

  // inputMark is what an input action reads of the document before and
  // after it acts: whether the tab is hidden, the document's URL, and the
  // submissions so far.
  W.inputMark = function () {
    if (submissions < 0) {
      submissions = 0;
      addEventListener('formdata', () => { submissions++; }, true);
    }
    return { hidden: document.visibilityState === 'hidden', href: location.href, submissions };
  };

  W.frameWindowOf = function (el) {
    return el.ownerDocument.defaultView;
  };

  // ---- element state -----------------------------------------------------

  W.state = function (el, what) {
    switch (what) {
      case 'visible': return isVisible(el);
      case 'hidden': return !isVisible(el);
      case 'enabled': return !isDisabled(retarget(el, 'follow-label'));
      case 'disabled': return isDisabled(retarget(el, 'follow-label'));
      case 'editable': {
        if (!isElement(el)) return false;
        return isEditable(retarget(el, 'follow-label'));
      }
      case 'checked': {
        const s = checkedState(el);
        if (s.error) fail('BrowserError', s.error);
        return s.checked === true;
      }
    }
    fail('InvalidParams', 'unknown state ' + what);
  };

  function checkTarget(el) {
    if (tag(el) === 'label' && el.control) return el.control;
    return el;
  }

  function checkedState(el0) {
    const el = checkTarget(el0);
    const t = tag(el);
    if (t === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
      return { checked: el.type === 'checkbox' && el.indeterminate ? 'mixed' : el.checked, radio: el.type === 'radio' };
    }
    const role = roleOf(el);
    if (['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio'].includes(role)) {
      const a = el.getAttribute('aria-checked');
      return { checked: a === 'mixed' ? 'mixed' : a === 'true', radio: role === 'radio' || role === 'menuitemradio' };
    }
    return { error: 'Not a checkbox or radio button: ' + describe(el0) + '; check() works on <input type=checkbox|radio>, role=checkbox|radio|switch, or a <label> of one' };
  }
  W.checkedState = checkedState;

  W.texts = function (what, ...els) {
    return els.map((el) => {
      switch (what) {
        case 'inner_text':
          if (!(el instanceof el.ownerDocument.defaultView.HTMLElement)) fail('BrowserError', 'Node is not an HTMLElement: ' + describe(el) + ' has no rendered text (inner_text); use text_content');
          return tag(el) === 'input' || tag(el) === 'textarea' ? '' : el.innerText;
        case 'text_content': return el.textContent;
        case 'inner_html': return el.innerHTML;
      }
      return '';
    });
  };

  W.inputValue = function (el) {
    const t = tag(el);
    if (t === 'input' || t === 'textarea' || t === 'select') return el.value;
    fail('BrowserError', 'input_value works on <input>, <textarea> and <select>, not on ' + describe(el));
  };

  // ---- form actions ------------------------------------------------------

  const NOT_FILLABLE = new Set(['checkbox', 'radio', 'file', 'button', 'submit', 'reset', 'image', 'hidden']);
  const SET_VALUE_TYPES = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range']);

  function fire(el, type) {
    el.dispatchEvent(new Event(type, { bubbles: true, composed: type === 'input' }));
  }

  // prepareFill returns 'done' when it set the value itself (date-like
  // inputs that have no text to type), or 'type' after focusing the element
  // and selecting its content so the driver's inserted text replaces it.
  W.prepareFill = function (el, value) {
    const t = tag(el);
    if (t === 'input') {
      const type = (el.type || 'text').toLowerCase();
      if (NOT_FILLABLE.has(type)) fail('BrowserError', 'Input of type "' + type + '" cannot be filled: ' + (type === 'checkbox' || type === 'radio' ? 'use check()/uncheck()' : type === 'file' ? 'use set_input_files()' : 'use click()'));
      if (type === 'number' && String(value).trim() !== '' && isNaN(Number(String(value).trim()))) {
        fail('BrowserError', 'Cannot type text into input[type=number]: ' + JSON.stringify(value) + ' is not a number');
      }
      if (SET_VALUE_TYPES.has(type)) {
        el.focus();
        const before = el.value;
        el.value = value;
        if (el.value !== value && !(type === 'color' && el.value.toLowerCase() === String(value).toLowerCase())) {
          el.value = before;
          fail('BrowserError', 'Malformed value ' + JSON.stringify(value) + ' for <input type=' + type + '>' + (type === 'date' ? ' (use YYYY-MM-DD)' : type === 'time' ? ' (use HH:MM)' : type === 'datetime-local' ? ' (use YYYY-MM-DDTHH:MM)' : ''));
        }
        fire(el, 'input');
        fire(el, 'change');
        return 'done';
      }
      el.focus();
      el.select();
      return 'type';
    }
    if (t === 'textarea') {
      el.focus();
      el.select();
      return 'type';
    }
    if (el.isContentEditable) {
      el.focus();
      const sel = el.ownerDocument.getSelection();
      const range = el.ownerDocument.createRange();
      range.selectNodeContents(el);
      sel.removeAllRanges();
      sel.addRange(range);
      return 'type';
    }
    fail('BrowserError', 'Element is not an <input>, <textarea> or [contenteditable] element: cannot fill ' + describe(el));
  };

  W.finishFill = function (el, value) {
    const t = tag(el);
    if (t === 'input' || t === 'textarea') {
      fire(el, 'change');
      return el.value;
    }
    return el.textContent;
  };

  W.clearSelection = function (el) {
    // After inserting nothing into a fully selected field: remove the text.
    const t = tag(el);
    if (t === 'input' || t === 'textarea') {
      if (el.value !== '') {
        el.value = '';
        fire(el, 'input');
      }
      return;
    }
    if (el.isContentEditable && el.textContent !== '') {
      el.textContent = '';
      fire(el, 'input');
    }
  };

  W.focus = function (el) {
    el.focus();
    return el.ownerDocument.activeElement === el || el.contains(el.ownerDocument.activeElement) || (el.shadowRoot && !!el.shadowRoot.activeElement);
  };

  // selectOptions returns {retry: message} while the wanted options are not
  // there yet, or {values} once they are selected.
  W.selectOptions = function (el, want) {
    el = retarget(el, 'follow-label'); // a <label> selects in the <select> it labels
    if (tag(el) !== 'select') {
      fail('BrowserError', 'Element is not a <select> element: select_option works on <select> elements, not on ' + describe(el) + '; for a custom dropdown, click it and then click the option');
    }
    const opts = [...el.options];
    const label = (o) => normalize(o.label || o.text);
    // A value that no option has may name an option by its label.
    const criteria = [];
    for (const v of want.value || []) criteria.push({ kind: 'value', item: v, byLabel: !opts.some((o) => o.value === v) });
    for (const v of want.label || []) criteria.push({ kind: 'label', item: v });
    for (const v of want.index || []) criteria.push({ kind: 'index', item: v });
    const matches = (o, c) => {
      if (c.kind === 'value') return o.value === c.item || (c.byLabel && label(o) === normalize(c.item));
      if (c.kind === 'label') return label(o) === normalize(c.item);
      return o.index === c.item;
    };
    if (!criteria.length) {
      // Nothing to select: every option is deselected, as Playwright does
      // (a selectedIndex of -1 keeps a drop-down from selecting its first).
      el.selectedIndex = -1;
      fire(el, 'input');
      fire(el, 'change');
      return { values: [] };
    }
    // Options are taken in document order; a <select> without multiple
    // takes the first that matches any criterion, a multiple one every
    // option a criterion matches first (and waits until all have one).
    const picked = [];
    let remaining = criteria.slice();
    for (const o of opts) {
      const hit = remaining.filter((c) => matches(o, c));
      if (!hit.length) continue;
      picked.push(o);
      if (!el.multiple) {
        remaining = [];
        break;
      }
      remaining = remaining.filter((c) => !hit.includes(c));
    }
    if (remaining.length || !picked.length) {
      const missing = (remaining.length ? remaining : criteria).map((c) => c.kind + ' ' + JSON.stringify(c.item));
      const avail = opts.slice(0, 10).map((o) => JSON.stringify(o.value) + (o.label && o.label !== o.value ? ' (' + JSON.stringify(o.label) + ')' : '')).join(', ');
      return { retry: 'no option with ' + missing.join(', ') + '; options are: ' + (avail || 'none') + (opts.length > 10 ? ', ...' : '') };
    }
    const disabled = picked.find((o) => o.disabled);
    if (disabled) return { retry: 'option ' + JSON.stringify(disabled.value) + ' is disabled' };
    if (el.multiple) {
      for (const o of opts) o.selected = picked.includes(o);
    } else {
      el.value = picked[0].value;
      picked[0].selected = true;
    }
    fire(el, 'input');
    fire(el, 'change');
    return { values: [...el.selectedOptions].map((o) => o.value) };
  };

  W.boundingBox = function (el) {
    const r = el.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  };

  W.attribute = function (el, name) {
    return el.getAttribute(name);
  };

  // ---- waiting for page state ------------------------------------------

  W.readyState = function () {
    return document.readyState;
  };

  // ---- roles for tests and for callers that want them --------------------

  W.roleAndName = function (el) {
    return R.session(() => ({ role: roleOf(el), name: R.name(el) }));
  };

  return W;
}
