// wright's one role and name engine. It computes, for an element, the
// ARIA role, the accessible name and description, the states (checked,
// disabled, expanded, level, pressed, selected, invalid) and whether it is
// hidden from the accessibility tree. The ARIA snapshot (snapshot.js) and
// the selector engine (browser/engine.js: role=, get_by_role, text
// matching) both read roles and names here, so the name the model reads
// in a snapshot is the name get_by_role matches.
//
// The file is a factory expression: `(ROLES)(T)` makes one instance. The
// page script (aria.PageScript) makes it once per document, in wright's
// isolated world, and shares it with the selector engine installed there;
// a selector engine in the page's own world (custom engines) makes a
// private one. T is the role table of roles.go. Computed styles and
// generated content are cached for one session (one call from Go):
// session(fn) opens it; every exported function opens one itself when
// called outside.
(T) => {
  'use strict';

  const closedRoots = new WeakMap(); // host -> closed shadow root (handed in by Go)

  // ---- roles

  // The role table is Go's (roles.go), handed in as T: per trait, its roles.
  const traitSet = (name) => new Set(T[name] || []);
  const ARIA_ROLES = traitSet('author'); // valid values of the role attribute
  ARIA_ROLES.add('image'); // ARIA 1.3's synonym of img

  const SKIP = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'HEAD', 'META', 'LINK', 'TITLE', 'BASE', 'script', 'style', 'title', 'defs', 'desc', 'metadata']);
  const SECTIONING = 'article, aside, main, nav, section';

  function explicitRole(el) {
    const attr = el.getAttribute('role');
    if (!attr) return null;
    for (const r of attr.trim().toLowerCase().split(/\s+/)) {
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
      case 'img': return el.getAttribute('alt') === '' && !el.hasAttribute('title') ? 'presentation' : 'img';
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

  // Roles named from their content (AccName 2.B.F); <summary> too.
  const NAME_FROM_CONTENT = traitSet('fromContent');
  NAME_FROM_CONTENT.add('summary');
  // Roles named only by their author or a label, never by content.
  const LABELABLE = new Set(['INPUT', 'TEXTAREA', 'SELECT', 'BUTTON', 'METER', 'OUTPUT', 'PROGRESS']);

  const CONTAINERS = traitSet('container');
  const ACTION_ROLES = traitSet('action');
  const VALUE_ROLES = traitSet('value');
  const CHECKED_ROLES = traitSet('checked');
  const SELECTED_ROLES = traitSet('selected');
  const LEVEL_ROLES = traitSet('level');
  const EXPANDED_ROLES = traitSet('expanded');

  // ---- styles and visibility

  let styles = new Map(); // per session: element -> computed style

  function styleOf(el) {
    let s = styles.get(el);
    if (s === undefined) {
      s = el.ownerDocument.defaultView ? el.ownerDocument.defaultView.getComputedStyle(el) : null;
      styles.set(el, s);
    }
    return s;
  }

  // hiddenSubtree: the element and everything inside it are out of the
  // tree (a modal dialog hiding the rest is the snapshot's to add).
  function hiddenSubtree(el) {
    if (SKIP.has(el.tagName) || el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('inert')) return true;
    if (el.localName === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'hidden') return true;
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

  // accName is the accessible name of el in role; allowHidden lets hidden
  // content name it (role selectors with include-hidden).
  function accName(el, role, allowHidden) {
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
    if (NAME_FROM_CONTENT.has(role) || el.localName === 'summary') {
      const t = normalize(pseudo(el, '::before') + childrenText(el, new Set([el]), !!allowHidden) + pseudo(el, '::after'));
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

  function parentOf(el) {
    if (el.assignedSlot) return el.assignedSlot;
    const p = el.parentNode;
    if (p && p.nodeType === 11) return p.host || null;
    return p && p.nodeType === 1 ? p : null;
  }

  // ---- the effective role

  // Attributes that keep an element's own role under role=none or
  // role=presentation (ARIA's presentational conflict resolution).
  const GLOBAL_ARIA = /^aria-(atomic|busy|controls|current|describedby|details|dropeffect|flowto|grabbed|keyshortcuts|live|owns|relevant|roledescription)$/;

  function hasGlobalAria(el) {
    for (const a of el.attributes) if (GLOBAL_ARIA.test(a.name)) return true;
    return false;
  }

  const isPresentational = (r) => r === 'none' || r === 'presentation';

  // roleOf is the role an element shows in the snapshot and matches in
  // role selectors: the first valid explicit role, else the HTML-AAM
  // mapping; 'none'/'presentation' (kept only when nothing overrides
  // them); '' for no role. <summary> is a 'generic' named by its content;
  // a form or region is one only with a name.
  function roleOf(el) {
    const explicit = explicitRole(el);
    let role = explicit;
    if (role === null || (isPresentational(role) && (focusable(el) || hasGlobalAria(el)))) {
      role = implicitRole(el);
      if (role === '' && explicit) role = explicit; // presentational, and nothing native to keep
    }
    if (role === 'hidden') return '';
    if (role === 'summary') return 'generic';
    if ((role === 'form' || role === 'region') && !accName(el, role)) return '';
    return role;
  }

  // ---- names, descriptions and states

  // rowName names a row from its content when nothing else names it, as
  // the snapshot does; the snapshot builder supplies it (nameRowsWith).
  let rowName = (el) => normalize(el.innerText || '');

  // nameOf is the accessible name of el in the role it has (roleOf when
  // role is not given); hidden content counts with includeHidden.
  function nameOf(el, role, includeHidden) {
    if (role === undefined || role === null) role = roleOf(el);
    if (!role || isPresentational(role) || (role === 'generic' && el.localName !== 'summary')) return '';
    const n = accName(el, role, !!includeHidden);
    if (n || role !== 'row') return n;
    return rowName(el);
  }

  // descriptionOf: aria-describedby, else aria-description, else a title
  // that is not already the name.
  function descriptionOf(el) {
    const refs = byIds(el, 'aria-describedby');
    if (refs.length) return normalize(refs.map((r) => textFrom(r, new Set(), true)).join(' '));
    const d = el.getAttribute('aria-description');
    if (d && d.trim()) return normalize(d);
    const title = el.getAttribute('title');
    return title && normalize(title) !== nameOf(el) ? normalize(title) : '';
  }

  const ariaToken = (el, attr) => (el.getAttribute(attr) || '').trim().toLowerCase();

  // The states, as role selectors compare them: true, false, 'mixed' where
  // it applies, or undefined for a role that has no such state. The
  // snapshot prints the true and mixed ones.
  function checkedOf(el, role) {
    if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
      return el.type === 'checkbox' && el.indeterminate ? 'mixed' : el.checked;
    }
    if (!CHECKED_ROLES.has(role)) return undefined;
    const a = ariaToken(el, 'aria-checked');
    return a === 'mixed' ? 'mixed' : a === 'true';
  }

  function pressedOf(el, role) {
    if (role !== 'button') return undefined;
    const a = ariaToken(el, 'aria-pressed');
    return a === 'mixed' ? 'mixed' : a === 'true';
  }

  function selectedOf(el, role) {
    if (!SELECTED_ROLES.has(role)) return undefined;
    if (el.localName === 'option' && !el.hasAttribute('aria-selected')) return el.selected;
    return ariaToken(el, 'aria-selected') === 'true';
  }

  function expandedOf(el, role) {
    if (el.localName === 'details') return el.open;
    if (!EXPANDED_ROLES.has(role)) return undefined;
    const a = ariaToken(el, 'aria-expanded');
    return a === 'true' ? true : a === 'false' ? false : undefined;
  }

  // levelOf: a heading's level (aria-level, else h1-h6, else 2), and the
  // aria-level of list items, rows and tree items.
  function levelOf(el, role) {
    const l = parseInt(el.getAttribute('aria-level'), 10);
    if (role === 'heading') {
      if (l > 0) return l;
      return /^h[1-6]$/.test(el.localName) ? +el.localName[1] : 2;
    }
    return LEVEL_ROLES.has(role) && l > 0 ? l : undefined;
  }

  function invalidOf(el) {
    if (!el.hasAttribute('aria-invalid')) return '';
    const v = el.getAttribute('aria-invalid').trim().toLowerCase();
    if (v === 'grammar' || v === 'spelling') return v;
    return v && v !== 'false' ? 'true' : '';
  }

  function stateOf(el, role, which) {
    switch (which) {
      case 'checked': return checkedOf(el, role);
      case 'pressed': return pressedOf(el, role);
      case 'selected': return selectedOf(el, role);
      case 'expanded': return expandedOf(el, role);
      case 'disabled': return isDisabled(el);
      case 'level': return levelOf(el, role);
      case 'invalid': return invalidOf(el);
    }
    return undefined;
  }

  // ---- hidden, seen from the element

  // hiddenFor says whether el is out of the accessibility tree, by the
  // rules the snapshot applies walking down: itself or an ancestor in the
  // flat tree hidden (display:none, aria-hidden, inert, not rendered
  // elements), itself visibility:hidden, a content-visibility:hidden
  // ancestor, inside a closed <details> but not its summary, or a light
  // child of a shadow host that no slot takes. Size does not matter.
  function hiddenFor(el) {
    if (!el.isConnected) return true;
    // A rendered element (the browser's own check, which leaves out what
    // display:none, a closed <details>, no slot or content-visibility:hidden
    // above it keeps from rendering, and visibility:hidden) can only be
    // hidden by markup, or by not rendering its own content. The walk below
    // gives the same answer for every other element; this is the fast way.
    if (el.checkVisibility && el.checkVisibility({ visibilityProperty: true })) {
      return hiddenByMarkup(el) || styleOf(el).contentVisibility === 'hidden';
    }
    if (hiddenSubtree(el)) return true;
    const s = styleOf(el);
    if (s.visibility === 'hidden' || s.visibility === 'collapse' || s.contentVisibility === 'hidden') return true;
    for (let child = el, p = parentOf(el); p; child = p, p = parentOf(p)) {
      if (hiddenSubtree(p)) return true;
      if (styleOf(p).contentVisibility === 'hidden') return true;
      if (p.localName === 'details' && !p.open && !(child.localName === 'summary' && child.parentElement === p)) return true;
      if (child.parentNode === p && shadowOf(p) && p.localName !== 'slot') return true;
    }
    return false;
  }

  // hiddenByMarkup: the element or an ancestor in the flat tree is hidden
  // by its markup (aria-hidden, inert, elements never rendered).
  function hiddenByMarkup(el) {
    for (let e = el; e; e = parentOf(e)) {
      if (SKIP.has(e.tagName) || e.getAttribute('aria-hidden') === 'true' || e.hasAttribute('inert')) return true;
    }
    return false;
  }

  // ---- sessions

  let depth = 0;

  function fresh() {
    styles = new Map();
    pseudos = new Map();
    sheetsGenerate = new Map();
  }

  // session runs fn with caches that live until it returns: the page does
  // not change while script runs, so a style read once stays right.
  function session(fn) {
    if (depth > 0) return fn();
    depth++;
    fresh();
    try {
      return fn();
    } finally {
      depth--;
      fresh();
    }
  }

  const inSession = (f) => (...a) => session(() => f(...a));

  return Object.freeze({
    session,
    role: inSession(roleOf),
    name: inSession(nameOf),
    description: inSession(descriptionOf),
    state: inSession(stateOf),
    hidden: inSession(hiddenFor),
    normalize,
    // For the snapshot builder.
    internals: Object.freeze({
      ARIA_ROLES, SKIP, NAME_FROM_CONTENT, LABELABLE, CONTAINERS, ACTION_ROLES, VALUE_ROLES,
      CHECKED_ROLES, SELECTED_ROLES, LEVEL_ROLES, EXPANDED_ROLES,
      explicitRole, implicitRole, roleOf, nameOf, stateOf, isPresentational, styleOf, hiddenSubtree, isBlock,
      accName, pseudo, flatChildren, shadowOf, parentOf, focusable, isDisabled,
      setClosedRoot: (host, root) => closedRoots.set(host, root),
      nameRowsWith: (f) => { rowName = f; },
    }),
  });
}
