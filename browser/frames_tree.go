package browser

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// FrameInfo is one frame of a page's frame tree, as CDP names it: the
// client keeps one Frame object per ID (Playwright's frames keep their
// identity while they live).
type FrameInfo struct {
	ID     string `json:"frame"`
	Parent string `json:"parent"` // "" for the main frame
	Name   string `json:"name"`
	URL    string `json:"url"`
}

// FrameTree lists the page's live frames, parents before their children.
// A frame missing from it has been detached.
func (p *Page) FrameTree(ctx context.Context) ([]FrameInfo, error) {
	if err := p.closedErr(); err != nil {
		return nil, err
	}
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	tree, err := proto.PageGetFrameTree{}.Call(o.rodPage())
	if err != nil {
		return nil, o.fail(p.jsErr(err), "waiting for the page's frame tree")
	}
	var out []FrameInfo
	var walk func(t *proto.PageFrameTree)
	walk = func(t *proto.PageFrameTree) {
		url := t.Frame.URL + t.Frame.URLFragment // an error page's is chrome-error://chromewebdata/
		out = append(out, FrameInfo{ID: string(t.Frame.ID), Parent: string(t.Frame.ParentID), Name: t.Frame.Name, URL: url})
		for _, c := range t.ChildFrames {
			walk(c)
		}
	}
	walk(tree.FrameTree)
	return out, nil
}

// NodeFrames names the frames of the node a handle holds: owner is the frame
// whose document holds it, content the frame an <iframe> or <frame> element
// shows ("" for other nodes, or a frame element without a document).
func (p *Page) NodeFrames(ctx context.Context, obj string) (owner, content string, err error) {
	if err := p.closedErr(); err != nil {
		return "", "", err
	}
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	node, err := proto.DOMDescribeNode{ObjectID: proto.RuntimeRemoteObjectID(obj)}.Call(o.rodPage())
	if err != nil {
		return "", "", o.fail(p.jsErr(err), "")
	}
	if name := node.Node.NodeName; name == "IFRAME" || name == "FRAME" {
		content = string(node.Node.FrameID)
	}
	// CDP names the frame of a document's root element: reach it from the node.
	root, err := proto.RuntimeCallFunctionOn{
		ObjectID:            proto.RuntimeRemoteObjectID(obj),
		FunctionDeclaration: "function () { const d = this.nodeType === 9 ? this : this.ownerDocument; return d && d.documentElement; }",
		ObjectGroup:         o.objectGroup(),
	}.Call(o.rodPage())
	if err != nil {
		return "", "", o.fail(p.jsErr(err), "")
	}
	if root.Result.ObjectID == "" {
		return "", content, nil
	}
	rn, err := proto.DOMDescribeNode{ObjectID: root.Result.ObjectID}.Call(o.rodPage())
	if err != nil {
		return "", "", o.fail(p.jsErr(err), "")
	}
	return string(rn.Node.FrameID), content, nil
}

// frameLoads records the lifecycle events and document statuses of one
// frame's documents while a navigation of it is waited for.
type frameLoads struct {
	mu      sync.Mutex
	events  map[proto.NetworkLoaderID]map[string]bool
	status  map[proto.NetworkLoaderID]int
	changed chan struct{}
}

func (f *frameLoads) note(loader proto.NetworkLoaderID, event string, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if event != "" {
		if f.events[loader] == nil {
			f.events[loader] = map[string]bool{}
		}
		f.events[loader][event] = true
	}
	if status != 0 {
		f.status[loader] = status
	}
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *frameLoads) seen(loader proto.NetworkLoaderID, event string) (bool, int, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.events[loader][event], f.status[loader], f.changed
}

// FrameGoto navigates one frame of the page (a child frame: Playwright's
// frame.goto) and waits for waitUntil of the document it loads.
func (p *Page) FrameGoto(ctx context.Context, frame, url, referer string, waitUntil WaitUntil, timeout time.Duration) (GotoResult, error) {
	url, ev, err := p.gotoTarget(url, waitUntil)
	if err != nil {
		return GotoResult{}, err
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	loads := &frameLoads{events: map[proto.NetworkLoaderID]map[string]bool{}, status: map[proto.NetworkLoaderID]int{}, changed: make(chan struct{})}
	fid := proto.PageFrameID(frame)
	// Listen before navigating: the events of the new document may come
	// before Page.navigate answers.
	wait := o.rodPage().EachEvent(func(e *proto.PageLifecycleEvent) {
		if e.FrameID == fid {
			loads.note(e.LoaderID, string(e.Name), 0)
		}
	}, func(e *proto.NetworkResponseReceived) {
		if e.FrameID == fid && e.Type == proto.NetworkResourceTypeDocument {
			loads.note(e.LoaderID, "", e.Response.Status)
		}
	})
	listening := make(chan struct{})
	go func() {
		defer close(listening)
		wait() // ends with the op's context
	}()
	defer func() {
		o.cancel()
		<-listening
	}()
	res, err := proto.PageNavigate{URL: url, FrameID: fid, Referrer: referer}.Call(o.rodPage())
	if err != nil {
		return GotoResult{}, o.fail(p.jsErr(err), fmt.Sprintf("navigating frame to %s", url))
	}
	if res.ErrorText != "" && res.ErrorText != "net::ERR_HTTP_RESPONSE_CODE_FAILURE" {
		res.ErrorText = p.tunnelError(o.ctx, url, res.ErrorText)
		return GotoResult{}, newErr(ErrNavigation, "navigation to %s failed: %s", url, res.ErrorText)
	}
	if res.LoaderID == "" { // same-document navigation
		return GotoResult{URL: url}, nil
	}
	for {
		ok, status, ch := loads.seen(res.LoaderID, ev)
		if ok {
			return GotoResult{URL: url, Status: status}, nil
		}
		if err := o.waitChange(ch, time.Second); err != nil {
			return GotoResult{}, o.fail(err, fmt.Sprintf("navigating frame to %q, waiting until %q", url, strings.ToLower(ev)))
		}
		if err := p.closedErr(); err != nil {
			return GotoResult{}, err
		}
	}
}
