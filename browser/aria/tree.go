package aria

import (
	"context"
	"strconv"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"wright/browser/aria/roles"
)

// node is one entry of the snapshot: an element with a role, or (as an
// item with text) a run of text.
type node struct {
	role     string
	name     string
	checked  string // "", "true" or "mixed"
	pressed  string // "", "true" or "mixed"
	disabled bool
	expanded bool
	selected bool
	invalid  string // "", "true", "grammar" or "spelling"
	level    int
	props    []prop // rendered as "- /name: value" children
	kids     []item

	actionable bool   // gets a ref
	key        refKey // the element, for the registry
	loader     proto.NetworkLoaderID
	ref        string // set while rendering
	truncated  bool   // the budget cut its children: never printed on one line
	hole       int    // in-page builds: an iframe whose document is built apart (its tag)
}

type prop struct{ name, value string }

// item is a child: either a node or a run of text.
type item struct {
	text string
	n    *node
}

// walkState is what a node inherits from its ancestors while building.
type walkState struct {
	inScope    bool // inside Options.Scope (always true without a scope)
	inPopup    bool // inside a native <select>'s popup: its options are chosen through the combobox
	frameDepth int
}

// maxFrameDepth bounds iframe nesting, which a page could make endless.
const maxFrameDepth = 8

// builder turns Chromium's accessibility trees (one per frame) into nodes.
type builder struct {
	ctx  context.Context
	page *rod.Page
	main *session
	err  error // the first error that must end the snapshot (context ended)

	scope     map[proto.DOMBackendNodeID]bool // nil: the whole page
	scopeRoot *node
	inside    map[proto.DOMBackendNodeID]bool
}

// roleSet makes a set of roles from a list (render.go's and tests' own).
func roleSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, r := range strings.Fields(s) {
		m[r] = true
	}
	return m
}

// mapRole turns Chromium's role name into the role Playwright prints, or
// "" for nodes that are only wrappers and give their content to the parent.
func mapRole(chromium string) string {
	switch chromium {
	case "image":
		return "img"
	case "Date", "DateTime", "InputTime":
		// Playwright sees <input type=date|time|...> as a textbox with its value.
		return "textbox"
	case "LayoutTable":
		return "table"
	case "LayoutTableRow":
		return "row"
	case "LayoutTableCell":
		return "cell"
	case "Caption":
		return "caption"
	case "DisclosureTriangle":
		// <summary>: no ARIA role, but it is what one clicks to open <details>.
		return "generic"
	case "none", "presentation":
		return ""
	}
	if roles.Printed(chromium) {
		return chromium
	}
	if l := strings.ToLower(chromium); roles.Printed(l) && l != chromium {
		return l
	}
	// Chromium's own roles (LabelText, Section, Pre, Figcaption, Legend,
	// Abbr, Canvas, Video, ...) have no ARIA role: their content counts,
	// the wrapper does not.
	return ""
}

// build converts the main document (and the frames inside it).
func (b *builder) build(doc *axDoc) *node {
	root := &node{role: "fragment"}
	st := walkState{inScope: b.scope == nil}
	if b.scope != nil {
		b.scopeRoot = root
		b.inside = map[proto.DOMBackendNodeID]bool{}
	}
	b.visit(doc, doc.rootNode, root, st)
	finish(root)
	return root
}

// sink receives what is built outside the scope; it is never rendered.
var sink = &node{}

func (b *builder) add(parent *node, it item) {
	if parent != sink {
		parent.kids = append(parent.kids, it)
	}
}

func (b *builder) visit(d *axDoc, ax *axNode, parent *node, st walkState) {
	if b.err != nil {
		return
	}
	if !st.inScope && d.sess == b.main && ax.BackendDOMNodeID != 0 && b.isInside(ax.BackendDOMNodeID) {
		st.inScope = true
		parent = b.scopeRoot
	}
	if !st.inScope {
		parent = sink
	}
	if b.visitStructure(d, ax, parent, st) {
		return
	}
	b.visitElement(d, ax, parent, st)
}

// visitStructure handles the nodes that are not elements of their own in
// the snapshot: ignored ones (lifted, or a tbody's rowgroup), text, line
// breaks, the document, popups, iframes and a figure's caption. It says
// whether it handled ax.
func (b *builder) visitStructure(d *axDoc, ax *axNode, parent *node, st walkState) bool {
	if ax.Ignored {
		if dn := d.sess.dom[ax.BackendDOMNodeID]; dn != nil && rowGroupTags[dn.tag] && !ignoredAsHidden(ax) {
			// Chromium leaves a plain <tbody> out; ARIA (and Playwright)
			// give it the rowgroup role, so tables read the same.
			n := &node{role: "rowgroup"}
			b.children(d, ax, n, st)
			finish(n)
			if len(n.kids) > 0 {
				b.add(parent, item{n: n})
			}
			return true
		}
		b.lift(d, ax, parent, st)
		return true
	}
	chromeRole := axString(ax.Role)
	switch chromeRole {
	case "StaticText":
		b.add(parent, item{text: axString(ax.Name)})
		return true
	case "InlineTextBox", "ListMarker":
		return true
	case "LineBreak":
		b.add(parent, item{text: "\n"})
		return true
	case "RootWebArea":
		b.children(d, ax, parent, st)
		return true
	case "MenuListPopup":
		st.inPopup = true
		b.children(d, ax, parent, st)
		return true
	case "Iframe":
		b.iframe(d, ax, parent, st)
		return true
	case "Figcaption":
		if parent.role == "figure" && parent.name == "" {
			// HTML names a figure by its caption; Chromium leaves it unnamed.
			c := &node{}
			b.children(d, ax, c, st)
			finish(c)
			parent.name = contentText(c)
			for _, k := range c.kids {
				b.add(parent, k)
			}
			return true
		}
	}
	return false
}

// visitElement adds ax as an element of the snapshot, or lifts its children
// into parent when it has no role worth a line of its own.
func (b *builder) visitElement(d *axDoc, ax *axNode, parent *node, st walkState) {
	chromeRole := axString(ax.Role)
	dom := d.sess.dom[ax.BackendDOMNodeID]
	name := normalizeSpace(axString(ax.Name))
	role := mapRole(chromeRole)
	if (role == "form" || role == "region") && name == "" {
		// Landmarks only when named, as the HTML mapping says.
		role = ""
	}
	takesClicks := b.takesClicks(d.sess, dom, chromeRole)
	if role == "" || role == "generic" {
		if !takesClicks && chromeRole != "DisclosureTriangle" {
			b.lift(d, ax, parent, st)
			return
		}
		role = "generic"
	}

	n := &node{role: role, name: name}
	n.actionable = ax.BackendDOMNodeID != 0 &&
		(takesClicks || chromeRole == "DisclosureTriangle" || (roles.Has(role, roles.Action) && !(role == "option" && st.inPopup)))
	n.key = refKey{target: d.sess.target, frame: d.frame, backend: ax.BackendDOMNodeID}
	n.loader = d.loader
	readStates(n, ax, dom)

	isInput := dom != nil && (dom.tag == "INPUT" || dom.tag == "TEXTAREA")
	switch {
	case roles.Has(role, roles.Value) || (role == "combobox" && isInput):
		if v := axString(ax.Value); v != "" {
			n.kids = append(n.kids, item{text: v})
		}
		if role == "textbox" && dom != nil && dom.hasHolder && dom.placeholder != name {
			n.props = append(n.props, prop{"placeholder", dom.placeholder})
		}
	default:
		b.children(d, ax, n, st)
	}
	if role == "link" && dom != nil && dom.hasHref {
		n.props = append(n.props, prop{"url", dom.href})
	}
	finish(n)
	b.add(parent, item{n: n})
}

func (b *builder) children(d *axDoc, ax *axNode, parent *node, st walkState) {
	for _, id := range ax.ChildIDs {
		if c := d.nodes[id]; c != nil {
			b.visit(d, c, parent, st)
		}
	}
}

// lift gives a wrapper's content to its parent. A block-level wrapper
// separates its text from the text around it, as a reader sees it.
func (b *builder) lift(d *axDoc, ax *axNode, parent *node, st walkState) {
	block := isBlock(d.sess.dom[ax.BackendDOMNodeID])
	if block {
		b.add(parent, item{text: " "})
	}
	b.children(d, ax, parent, st)
	if block {
		b.add(parent, item{text: " "})
	}
}

var rowGroupTags = map[string]bool{"TBODY": true, "THEAD": true, "TFOOT": true}

// ignoredAsHidden says whether Chromium ignores a node because it is not
// shown (as opposed to being an uninteresting wrapper).
func ignoredAsHidden(ax *axNode) bool {
	for _, r := range ax.IgnoredReasons {
		switch r.Name {
		case "notRendered", "notVisible", "ariaHiddenElement", "ariaHiddenSubtree", "inertElement", "inertSubtree", "activeModalDialog":
			return true
		}
	}
	return false
}

func isBlock(dn *domNode) bool {
	if dn == nil {
		return false
	}
	if dn.tag == "BR" {
		return true
	}
	return dn.rendered && dn.display != "" && dn.display != "inline"
}

// takesClicks says whether an element without a widget role can still be
// acted on: it is in the tab order, is editable, listens for clicks, or is
// the outermost element showing a pointer cursor (what script-driven
// pages use for their clickable cards and rows).
func (b *builder) takesClicks(s *session, dn *domNode, chromeRole string) bool {
	if dn == nil || !dn.rendered || dn.tag == "HTML" || dn.tag == "BODY" || chromeRole == "LabelText" {
		return false
	}
	if dn.clickable || dn.editable || dn.tabIndex >= 0 {
		return true
	}
	if dn.cursor == "pointer" {
		for p := s.dom[dn.parent]; p != nil; p = s.dom[p.parent] {
			if p.rendered {
				return p.cursor != "pointer"
			}
		}
		return true
	}
	return false
}

func readStates(n *node, ax *axNode, dom *domNode) {
	for _, p := range ax.Properties {
		if p.Value == nil {
			continue
		}
		v := axString(p.Value)
		switch p.Name {
		case "checked":
			if roles.Has(n.role, roles.Checked) && (v == "true" || v == "mixed") {
				n.checked = v
			}
		case "pressed":
			if roles.Has(n.role, roles.Pressed) && (v == "true" || v == "mixed") {
				n.pressed = v
			}
		case "disabled":
			n.disabled = v == "true"
		case "expanded":
			n.expanded = v == "true" && roles.Has(n.role, roles.Expanded)
		case "invalid":
			// Chromium also flags every empty required field of a page
			// nobody has typed into yet; only the page's own verdict counts.
			if v != "false" && dom != nil && dom.ariaInvalid {
				n.invalid = v
			}
		case "selected":
			n.selected = v == "true" && roles.Has(n.role, roles.Selected)
		case "level":
			if n.role == "heading" || (roles.Has(n.role, roles.Level) && dom != nil && dom.ariaLevel) {
				n.level, _ = strconv.Atoi(v)
			}
		}
	}
}

// iframe renders an <iframe> with the frame's document inlined below it.
func (b *builder) iframe(d *axDoc, ax *axNode, parent *node, st walkState) {
	n := &node{role: "iframe", actionable: true, loader: d.loader,
		key: refKey{target: d.sess.target, frame: d.frame, backend: ax.BackendDOMNodeID}}
	if ax.BackendDOMNodeID != 0 && st.frameDepth < maxFrameDepth {
		child, err := b.childFrame(d.sess, ax.BackendDOMNodeID)
		switch {
		case b.ctx.Err() != nil:
			b.err = b.ctx.Err()
			return
		case err == nil && child != nil:
			cst := st
			cst.frameDepth++
			cst.inPopup = false
			b.visit(child, child.rootNode, n, cst)
		}
		// Any other failure (the frame went away while we read it, its
		// document is not there yet) leaves the iframe shown empty.
	}
	finish(n)
	b.add(parent, item{n: n})
}

// isInside says whether a node of the main session lies inside the scope
// element, walking up the DOM (through shadow hosts and frame owners).
func (b *builder) isInside(id proto.DOMBackendNodeID) bool {
	if v, ok := b.inside[id]; ok {
		return v
	}
	var path []proto.DOMBackendNodeID
	found := false
	for cur := id; cur != 0; {
		if b.scope[cur] {
			found = true
			break
		}
		if v, ok := b.inside[cur]; ok {
			found = v
			break
		}
		path = append(path, cur)
		dn := b.main.dom[cur]
		if dn == nil {
			break
		}
		cur = dn.parent
	}
	for _, p := range path {
		b.inside[p] = found
	}
	return found
}

// finish merges a node's text runs, collapses white space and drops text
// that only repeats the node's name.
func finish(n *node) {
	out := n.kids[:0]
	var buf strings.Builder
	pending := false
	flush := func() {
		if !pending {
			return
		}
		if t := normalizeSpace(buf.String()); t != "" {
			out = append(out, item{text: t})
		}
		buf.Reset()
		pending = false
	}
	for _, k := range n.kids {
		if k.n == nil {
			buf.WriteString(k.text)
			pending = true
			continue
		}
		flush()
		out = append(out, k)
	}
	flush()
	n.kids = out
	if n.role == "row" && n.name == "" {
		// Chromium leaves rows unnamed; ARIA names them from their
		// content, which is what tells one table row from the next.
		n.name = contentText(n)
	}
	if len(n.kids) == 1 && n.kids[0].n == nil && n.kids[0].text == n.name {
		n.kids = nil
	}
}

// contentText is the text of a subtree: names of named nodes, text of the rest.
func contentText(n *node) string {
	var parts []string
	var walk func(n *node)
	walk = func(n *node) {
		for _, k := range n.kids {
			switch {
			case k.n == nil:
				parts = append(parts, k.text)
			case k.n.name != "":
				parts = append(parts, k.n.name)
			default:
				walk(k.n)
			}
		}
	}
	walk(n)
	return normalizeSpace(strings.Join(parts, " "))
}
