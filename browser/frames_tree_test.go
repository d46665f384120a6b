package browser

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// object evaluates expr in the page's main world and returns the object id.
func object(t *testing.T, p *Page, expr string) string {
	t.Helper()
	res, err := proto.RuntimeEvaluate{Expression: expr}.Call(p.Rod())
	if err != nil || res.Result.ObjectID == "" {
		t.Fatalf("evaluate %s: %v %+v", expr, err, res)
	}
	return string(res.Result.ObjectID)
}

func TestFrameTreeAndNodeFrames(t *testing.T) {
	p := open(t, "/frames.html")
	ctx := context.Background()
	tree, err := p.FrameTree(ctx)
	if err != nil || len(tree) != 3 || tree[0].Parent != "" || tree[1].Parent != tree[0].ID || tree[2].Parent != tree[0].ID {
		t.Fatalf("frame tree: %+v %v", tree, err)
	}
	if !strings.HasSuffix(tree[1].URL, "/frame_child.html") {
		t.Errorf("the child frame's url: %q", tree[1].URL)
	}
	owner, content, err := p.NodeFrames(ctx, object(t, p, "document.getElementById('same')"))
	if err != nil || owner != tree[0].ID || content != tree[1].ID {
		t.Errorf("the iframe: owner %q content %q (%v); tree %+v", owner, content, err, tree)
	}
	owner, content, err = p.NodeFrames(ctx, object(t, p, "document.getElementById('same').contentDocument.body"))
	if err != nil || owner != tree[1].ID || content != "" {
		t.Errorf("a node inside the child frame: owner %q content %q (%v)", owner, content, err)
	}
	// A removed <iframe> takes its frame out of the tree.
	object(t, p, "(() => { const f = document.getElementById('same'); f.remove(); return f; })()")
	tree, err = p.FrameTree(ctx)
	if err != nil || len(tree) != 2 {
		t.Errorf("after removing the iframe: %+v %v", tree, err)
	}
}

func TestFrameGoto(t *testing.T) {
	p := open(t, "/frames.html")
	ctx := context.Background()
	tree, err := p.FrameTree(ctx)
	if err != nil || len(tree) < 2 {
		t.Fatalf("frame tree: %+v %v", tree, err)
	}
	child := tree[1].ID
	res, err := p.FrameGoto(ctx, child, site.URL+"/page2.html", "", Load, 20*time.Second)
	if err != nil || res.Status != 200 {
		t.Fatalf("frame goto: %+v %v", res, err)
	}
	tree, _ = p.FrameTree(ctx)
	if tree[1].ID != child || !strings.HasSuffix(tree[1].URL, "/page2.html") || !strings.HasSuffix(tree[0].URL, "/frames.html") {
		t.Errorf("only the child frame navigates: %+v", tree)
	}
	_, err = p.FrameGoto(ctx, child, site.URL+"/slow?ms=20000", "", Load, 500*time.Millisecond)
	wantType(t, err, ErrTimeout, "500ms", "/slow?ms=20000")
	_, err = p.FrameGoto(ctx, "no-such-frame", site.URL+"/page2.html", "", Load, 5*time.Second)
	if err == nil {
		t.Errorf("navigating a frame that does not exist must fail")
	}
}

func TestCloseRunningBeforeUnload(t *testing.T) {
	p := open(t, "/nav.html")
	ctx := context.Background()
	// No handler asks to stay: the page closes.
	if err := p.CloseRunningBeforeUnload(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for p.Err() == nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	wantType(t, p.Err(), ErrTargetClosed)
	if err := p.CloseRunningBeforeUnload(ctx); err != nil {
		t.Errorf("closing twice: %v", err)
	}
}

func TestGotoNetworkIdleCountsChildFrames(t *testing.T) {
	p := testPage(t)
	ctx := context.Background()
	if _, err := p.Goto(ctx, site.URL+"/frames.html", NetworkIdle, 20*time.Second); err != nil {
		t.Fatalf("networkidle of a page with frames: %v", err)
	}
	// A child frame whose document never arrives keeps the page busy.
	_, err := p.Goto(ctx, site.URL+"/frames.html?cross="+site.URL+"/slow?ms=30000", NetworkIdle, 3*time.Second)
	wantType(t, err, ErrTimeout, `waiting until "networkidle"`, "/frames.html")
}
