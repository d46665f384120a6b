package aria

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
)

// session is one CDP session whose documents we read: the page's own, or
// the target of an out-of-process iframe (site isolation puts a
// cross-site iframe in its own renderer, reachable only through its own
// target). Backend node ids are unique within a session's renderer only.
type session struct {
	page    *rod.Page            // already bound to the snapshot's context
	target  proto.TargetTargetID // "" for the page's own session
	dom     map[proto.DOMBackendNodeID]*domNode
	loaders map[proto.PageFrameID]proto.NetworkLoaderID
	root    proto.PageFrameID // the session's top frame
}

// domNode holds what the accessibility tree does not say about an
// element: its tag and a few attributes (Playwright prints the raw href,
// not the resolved URL), whether it takes clicks, and its layout.
type domNode struct {
	tag          string // upper case; "#text", "#document", ... for others
	href         string
	placeholder  string
	hasHref      bool
	hasHolder    bool
	editable     bool // contenteditable
	ariaLevel    bool // has aria-level (Playwright prints levels of tree items only then)
	ariaInvalid  bool // has aria-invalid (native constraint failures alone are not shown)
	tabIndex     int  // -1 when absent or negative
	parent       proto.DOMBackendNodeID
	rendered     bool // has a layout object
	display      string
	cursor       string
	clickable    bool
	contentFrame proto.PageFrameID // for frame owners whose document lives in this session
}

// openSession reads one session: its frames' loader ids first (a ref must
// never outlive the document it was read from, so the ids are taken before
// anything else), then its DOM facts and its top frame's accessibility
// tree, concurrently: the renderer serialises while we decode.
func openSession(p *rod.Page, target proto.TargetTargetID) (*session, *axDoc, error) {
	s := &session{page: p, target: target, dom: map[proto.DOMBackendNodeID]*domNode{}, loaders: map[proto.PageFrameID]proto.NetworkLoaderID{}}
	tree, err := proto.PageGetFrameTree{}.Call(p)
	if err != nil {
		return nil, nil, fmt.Errorf("read frame tree: %w", err)
	}
	s.root = tree.FrameTree.Frame.ID
	var walk func(t *proto.PageFrameTree)
	walk = func(t *proto.PageFrameTree) {
		s.loaders[t.Frame.ID] = t.Frame.LoaderID
		for _, c := range t.ChildFrames {
			walk(c)
		}
	}
	walk(tree.FrameTree)

	domDone := make(chan error, 1)
	go func() { domDone <- s.readDOM() }()
	doc, axErr := readAXTree(s, "")
	if err := <-domDone; err != nil {
		return nil, nil, err
	}
	if axErr != nil {
		return nil, nil, fmt.Errorf("read accessibility tree: %w", axErr)
	}
	return s, doc, nil
}

// readDOM reads the DOM facts of every document in the session's renderer.
func (s *session) readDOM() error {
	snap, err := proto.DOMSnapshotCaptureSnapshot{ComputedStyles: []string{"display", "cursor"}}.Call(s.page)
	if err != nil {
		return fmt.Errorf("capture DOM snapshot: %w", err)
	}
	str := func(i proto.DOMSnapshotStringIndex) string {
		if i < 0 || int(i) >= len(snap.Strings) {
			return ""
		}
		return snap.Strings[i]
	}
	// The document root of each document, so a frame's document can be
	// hung under its owner element when walking up for Scope.
	docRoots := make([]proto.DOMBackendNodeID, len(snap.Documents))
	for i, d := range snap.Documents {
		if d.Nodes != nil && len(d.Nodes.BackendNodeID) > 0 {
			docRoots[i] = d.Nodes.BackendNodeID[0]
		}
	}
	for _, d := range snap.Documents {
		n := d.Nodes
		if n == nil {
			continue
		}
		ids := n.BackendNodeID
		for i, id := range ids {
			dn := &domNode{tabIndex: -1}
			if i < len(n.NodeName) {
				dn.tag = strings.ToUpper(str(n.NodeName[i]))
			}
			if i < len(n.ParentIndex) && n.ParentIndex[i] >= 0 && n.ParentIndex[i] < len(ids) {
				dn.parent = ids[n.ParentIndex[i]]
			}
			if i < len(n.Attributes) {
				dn.readAttributes(n.Attributes[i], str)
			}
			s.dom[id] = dn
		}
		if n.IsClickable != nil {
			for _, i := range n.IsClickable.Index {
				if i >= 0 && i < len(ids) {
					s.dom[ids[i]].clickable = true
				}
			}
		}
		if n.ContentDocumentIndex != nil {
			for k, i := range n.ContentDocumentIndex.Index {
				if i < 0 || i >= len(ids) || k >= len(n.ContentDocumentIndex.Value) {
					continue
				}
				doc := n.ContentDocumentIndex.Value[k]
				if doc < 0 || doc >= len(snap.Documents) {
					continue
				}
				s.dom[ids[i]].contentFrame = proto.PageFrameID(str(snap.Documents[doc].FrameID))
				if root := s.dom[docRoots[doc]]; root != nil {
					root.parent = ids[i]
				}
			}
		}
		if d.Layout != nil {
			s.readLayout(d.Layout, ids, str)
		}
	}
	return nil
}

// axNode is the part of Chromium's AXNode the snapshot reads. Decoding
// into these lean types (values kept raw) instead of rod's proto types
// nearly halves the allocations of a snapshot.
type axNode struct {
	NodeID           string                 `json:"nodeId"`
	Ignored          bool                   `json:"ignored"`
	IgnoredReasons   []axProp               `json:"ignoredReasons"`
	Role             *axValue               `json:"role"`
	Name             *axValue               `json:"name"`
	Value            *axValue               `json:"value"`
	Properties       []axProp               `json:"properties"`
	ParentID         string                 `json:"parentId"`
	ChildIDs         []string               `json:"childIds"`
	BackendDOMNodeID proto.DOMBackendNodeID `json:"backendDOMNodeId"`
}

type axValue struct {
	Value json.RawMessage `json:"value"`
}

type axProp struct {
	Name  string   `json:"name"`
	Value *axValue `json:"value"`
}

// axDoc is the accessibility tree of one frame's document.
type axDoc struct {
	sess     *session
	frame    proto.PageFrameID
	loader   proto.NetworkLoaderID
	nodes    map[string]*axNode
	rootNode *axNode
}

// readAXTree reads the full accessibility tree of frame (the session's top
// frame when frame is empty).
func readAXTree(s *session, frame proto.PageFrameID) (*axDoc, error) {
	req := proto.AccessibilityGetFullAXTree{FrameID: frame}
	raw, err := s.page.Call(s.page.GetContext(), string(s.page.SessionID), req.ProtoReq(), req)
	if err != nil {
		return nil, err
	}
	var res struct {
		Nodes []*axNode `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("decode accessibility tree: %w", err)
	}
	if frame == "" {
		frame = s.root
	}
	d := &axDoc{sess: s, frame: frame, loader: s.loaders[frame], nodes: make(map[string]*axNode, len(res.Nodes))}
	for _, n := range res.Nodes {
		d.nodes[n.NodeID] = n
	}
	for _, n := range res.Nodes {
		if n.ParentID == "" || d.nodes[n.ParentID] == nil {
			d.rootNode = n
			break
		}
	}
	if d.rootNode == nil {
		return nil, errors.New("accessibility tree has no root")
	}
	return d, nil
}

// childFrame finds the document shown by an iframe element: in the same
// session when the frame shares the renderer, else through the frame's own
// target. It returns nil without error when the frame has no document yet.
func (b *builder) childFrame(parent *session, owner proto.DOMBackendNodeID) (*axDoc, error) {
	var frame proto.PageFrameID
	if dn := parent.dom[owner]; dn != nil {
		frame = dn.contentFrame
	}
	if frame == "" {
		desc, err := proto.DOMDescribeNode{BackendNodeID: owner}.Call(parent.page)
		if err != nil {
			return nil, fmt.Errorf("describe iframe: %w", err)
		}
		frame = desc.Node.FrameID
	}
	if frame == "" {
		return nil, nil
	}
	// The parent's frame tree lists out-of-process child frames too, so
	// asking is the way to know whether the document is in this renderer.
	doc, err := readAXTree(parent, frame)
	if err == nil || !isNodeGone(err) {
		return doc, err
	}
	// Not in this renderer: an out-of-process iframe with its own target.
	return b.targetDoc(proto.TargetTargetID(frame))
}

// targetDoc attaches to the target of an out-of-process iframe and reads
// its document.
func (b *builder) targetDoc(target proto.TargetTargetID) (*axDoc, error) {
	if err := b.ctx.Err(); err != nil {
		return nil, err
	}
	p, err := framePage(b.page, target)
	if err != nil {
		return nil, err
	}
	_, doc, err := openSession(p.Context(b.ctx), target)
	return doc, err
}

// framePage returns the page that talks to an out-of-process iframe's
// target. rod caches the attached page per target, so it is created on a
// clone with the browser's own long-lived context (callers bind theirs)
// and without rod's default device emulation, which has no business on an
// iframe's target.
func framePage(page *rod.Page, target proto.TargetTargetID) (*rod.Page, error) {
	browser := page.Browser()
	if browser == nil {
		return nil, errors.New("page has no browser to reach the iframe's target")
	}
	clone := browser.Context(browser.GetContext()).NoDefaultDevice()
	p, err := clone.PageFromTarget(target)
	if err != nil {
		return nil, fmt.Errorf("attach to iframe target %s: %w", target, err)
	}
	return p, nil
}

// isNodeGone says whether err is Chromium saying the node (or frame) does
// not exist any more, as opposed to a transport or context failure.
func isNodeGone(err error) bool {
	var ce *cdp.Error
	return errors.As(err, &ce)
}

// axString renders an AX value as text: strings as they are, numbers
// without exponent noise, nothing for null or a missing value.
func axString(v *axValue) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	switch v.Value[0] {
	case '"':
		var s string
		if json.Unmarshal(v.Value, &s) == nil {
			return s
		}
		return ""
	case 'n':
		return ""
	case 't', 'f':
		return string(v.Value)
	}
	var f float64
	if json.Unmarshal(v.Value, &f) == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return string(v.Value)
}

// scopeNodes returns the nodes whose subtrees make up the scope: the node
// itself, or for a shadow root (which the DOM snapshot leaves out, hanging
// its children on the host) the root's children.
func scopeNodes(p *rod.Page, main *session, scope proto.DOMBackendNodeID) (map[proto.DOMBackendNodeID]bool, error) {
	if main.dom[scope] != nil {
		return map[proto.DOMBackendNodeID]bool{scope: true}, nil
	}
	depth := 1
	res, err := proto.DOMDescribeNode{BackendNodeID: scope, Depth: &depth, Pierce: true}.Call(p)
	if err != nil {
		if isNodeGone(err) {
			return nil, fmt.Errorf("scope node %d is not in the page (take a new handle to the element)", scope)
		}
		return nil, fmt.Errorf("describe scope node %d: %w", scope, err)
	}
	ids := map[proto.DOMBackendNodeID]bool{scope: true}
	for _, c := range res.Node.Children {
		ids[c.BackendNodeID] = true
	}
	return ids, nil
}

// readAttributes keeps what the snapshot needs of an element's attributes,
// given as name, value, name, value... indexes into the snapshot's strings.
func (dn *domNode) readAttributes(a proto.DOMSnapshotArrayOfStrings, str func(proto.DOMSnapshotStringIndex) string) {
	for j := 0; j+1 < len(a); j += 2 {
		switch strings.ToLower(str(a[j])) {
		case "href":
			dn.href, dn.hasHref = str(a[j+1]), true
		case "placeholder":
			dn.placeholder, dn.hasHolder = str(a[j+1]), true
		case "aria-level":
			dn.ariaLevel = true
		case "aria-invalid":
			dn.ariaInvalid = true
		case "tabindex":
			if v, err := strconv.Atoi(strings.TrimSpace(str(a[j+1]))); err == nil && v >= 0 {
				dn.tabIndex = v
			}
		case "contenteditable":
			dn.editable = strings.ToLower(str(a[j+1])) != "false"
		}
	}
}

// readLayout marks the nodes that have a layout box as rendered, with the
// two computed styles readDOM asked for (display, cursor).
func (s *session) readLayout(l *proto.DOMSnapshotLayoutTreeSnapshot, ids []proto.DOMBackendNodeID, str func(proto.DOMSnapshotStringIndex) string) {
	for k, i := range l.NodeIndex {
		if i < 0 || i >= len(ids) {
			continue
		}
		dn := s.dom[ids[i]]
		dn.rendered = true
		if k < len(l.Styles) {
			st := l.Styles[k]
			if len(st) > 0 {
				dn.display = str(st[0])
			}
			if len(st) > 1 {
				dn.cursor = str(st[1])
			}
		}
	}
}
