// wright's in-page ARIA snapshot builder. The page script (aria.PageScript)
// evaluates it once per document in wright's isolated world, after the
// role and name engine (role_engine.js), which it is given as R; it defines
// globalThis.__wrightAria there, and Go calls snapshot(options) and decodes
// the JSON string it returns.
//
// It walks the flat tree (shadow roots and same-process frames inlined) in
// document order and gives every element the role, name and states of
// role_engine.js, the ones the selector engine matches, stopping once the lines
// it has built would pass the character budget. Elements that can be
// acted on get a tag number, kept in this world, that refs resolve
// through. A mutation counter tells whether the page changed since a
// given snapshot.
(R) => {
  'use strict';
  if (globalThis.__wrightAria) return;
  const {
    SKIP, NAME_FROM_CONTENT, ACTION_ROLES, VALUE_ROLES, CHECKED_ROLES, SELECTED_ROLES, EXPANDED_ROLES,
    explicitRole, implicitRole, roleOf, stateOf, isPresentational, styleOf, hiddenSubtree, isBlock,
    accName, pseudo, flatChildren, shadowOf, parentOf, setClosedRoot, nameRowsWith,
  } = R.internals;
  const normalize = R.normalize;
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

  // hiddenIn: hiddenSubtree, and outside an open modal dialog.
  function hiddenIn(el, st) {
    if (hiddenSubtree(el)) return true;
    return !!(st.modal && !st.inModal && el !== st.modal && !el.contains(st.modal));
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
      if (hiddenIn(el, st)) return;
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

      let role = roleOf(el);
      if (isPresentational(role)) role = '';
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
      // A <summary> is a generic named by its content (roleOf), one that
      // is acted on: it stays even without a pointer cursor.
      const summary = el.localName === 'summary';
      let name = '';
      if (role && (role !== 'generic' || summary)) name = accName(el, role);
      const clicks = takesClicks(el, s);
      if ((role === '' || role === 'generic') && !summary) {
        if (!clicks) {
          this.lift(el, s, parent, cst);
          return;
        }
        role = 'generic';
      }

      const n = { r: role, k: [] };
      if (name) n.n = name;
      if (clicks || summary || (ACTION_ROLES.has(role) && !(role === 'option' && st.inPopup))) {
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

    // states sets the states the snapshot prints (the true and mixed
    // ones, for the roles Playwright prints them for) from role_engine.js.
    states(n, el, role) {
      if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) this.controls.push(el);
      if (CHECKED_ROLES.has(role)) {
        const c = stateOf(el, role, 'checked');
        if (c === true || c === 'mixed') n.c = c === true ? 'true' : c;
      }
      const p = stateOf(el, role, 'pressed');
      if (p === true || p === 'mixed') n.p = p === true ? 'true' : p;
      if (stateOf(el, role, 'disabled')) n.d = 1;
      if (EXPANDED_ROLES.has(role) && stateOf(el, role, 'expanded') === true) n.x = 1;
      const i = stateOf(el, role, 'invalid');
      if (i) n.i = i;
      if (stateOf(el, role, 'selected') === true) n.s = 1;
      const l = stateOf(el, role, 'level');
      if (l) n.l = l;
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
      if (isPresentational(role)) role = '';
      if (role === null) role = implicitRole(el);
      if (role === 'hidden' || isPresentational(role)) return 0;
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
    const b = new Builder(opts);
    const root = { r: 'fragment', k: [] };
    R.session(() => {
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
    });
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
      setClosedRoot(el, root);
      watch(root);
      version++;
    }
  }

  // rowOf names a row from its content, as the snapshot does: the row is
  // built as a snapshot of its own and its name read (role_engine.js asks for
  // it when nothing else names a row).
  function rowOf(el) {
    const st = scopeState(el);
    if (!st) return '';
    const b = new Builder({});
    const root = { r: 'fragment', k: [] };
    b.visit(el, root, st);
    const n = root.k.find((k) => typeof k !== 'string');
    return n && n.r === 'row' ? n.n || '' : '';
  }
  nameRowsWith(rowOf);

  Object.defineProperty(globalThis, '__wrightAria', {
    value: Object.freeze({ snapshot, lookup, addClosedRoot, element: lookup, roles: R }),
    enumerable: false,
  });
}