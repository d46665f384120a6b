package browser

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

func TestFrames(t *testing.T) {
	p := open(t, "/frames.html?cross="+other+"/frame_child.html")
	if err := p.WaitForSelector(bg, "iframe#cross >> #b", stateVisible, 0); err != nil {
		t.Fatalf("cross-origin frame content: %v", err)
	}
	for _, c := range []struct{ frame, host string }{
		{"#same", strings.TrimPrefix(site.URL, "http://")},
		{"#cross", strings.TrimPrefix(other, "http://")},
	} {
		sel := "iframe" + c.frame + " >> role=button[name='Frame button']"
		if err := loc(t, p, sel).Click(bg, ClickOptions{}); err != nil {
			t.Fatalf("click in %s: %v", c.frame, err)
		}
		got := text(t, p, "iframe"+c.frame+" >> #b")
		if got != "pressed in "+c.host {
			t.Errorf("%s: %q", c.frame, got)
		}
		in := loc(t, p, "iframe"+c.frame+" >> label=Frame input")
		if err := in.Fill(bg, "typed "+c.frame, false, 0); err != nil {
			t.Fatalf("fill in %s: %v", c.frame, err)
		}
		if v, _ := in.InputValue(bg, 0); v != "typed "+c.frame {
			t.Errorf("%s input: %q", c.frame, v)
		}
	}
	n, err := loc(t, p, "iframe >> #b").Count(bg)
	if err != nil || n != 2 {
		t.Errorf("buttons in both frames: %d %v", n, err)
	}
	if err := loc(t, p, "iframe >> #b >> nth=1").Click(bg, ClickOptions{}); err != nil {
		t.Errorf("nth across frames: %v", err)
	}
	// Without a frame part, selectors stay in the page.
	if n, _ := loc(t, p, "#b").Count(bg); n != 0 {
		t.Errorf("#b matched %d in the top document", n)
	}
}

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
	if tree[0].ID != p.MainFrame().ID() {
		t.Errorf("the tree's root %q is not the main frame %q", tree[0].ID, p.MainFrame().ID())
	}
	owner, content, err := p.NodeFrames(ctx, object(t, p, "document.getElementById('same')"))
	if err != nil || owner == nil || owner.ID() != tree[0].ID || content == nil || content.ID() != tree[1].ID {
		t.Errorf("the iframe: owner %v content %v (%v); tree %+v", owner, content, err, tree)
	}
	owner, content, err = p.NodeFrames(ctx, object(t, p, "document.getElementById('same').contentDocument.body"))
	if err != nil || owner == nil || owner.ID() != tree[1].ID || content != nil {
		t.Errorf("a node inside the child frame: owner %v content %v (%v)", owner, content, err)
	}
	// A child frame's tree is itself and what is below it; its owner is its <iframe>.
	sub, err := p.Frame(tree[1].ID).Tree(ctx)
	if err != nil || len(sub) != 1 || sub[0].ID != tree[1].ID {
		t.Errorf("the child frame's tree: %+v %v", sub, err)
	}
	el, err := p.Frame(tree[1].ID).Owner(ctx)
	if err != nil || el == "" {
		t.Fatalf("the child frame's owner: %q %v", el, err)
	}
	r := call(t, p, JSCall{Source: "el => el.id", Element: el})
	if string(r.Value) != `"same"` {
		t.Errorf("the child frame's owner is %s", r.Value)
	}
	// A removed <iframe> takes its frame out of the tree.
	object(t, p, "(() => { const f = document.getElementById('same'); f.remove(); return f; })()")
	removed := tree[1].ID
	tree, err = p.FrameTree(ctx)
	if err != nil || len(tree) != 2 {
		t.Errorf("after removing the iframe: %+v %v", tree, err)
	}
	if sub, err := p.Frame(removed).Tree(ctx); err != nil || len(sub) != 0 {
		t.Errorf("a detached frame's tree: %+v %v", sub, err)
	}
	_, err = p.Frame(removed).Owner(ctx)
	wantType(t, err, ErrTargetClosed, "detached")
}

func TestFrameGoto(t *testing.T) {
	p := open(t, "/frames.html")
	ctx := context.Background()
	tree, err := p.FrameTree(ctx)
	if err != nil || len(tree) < 2 {
		t.Fatalf("frame tree: %+v %v", tree, err)
	}
	child := tree[1].ID
	res, err := p.Frame(child).Goto(ctx, site.URL+"/page2.html", "", Load, 20*time.Second)
	if err != nil || res.Status != 200 {
		t.Fatalf("frame goto: %+v %v", res, err)
	}
	tree, _ = p.FrameTree(ctx)
	if tree[1].ID != child || !strings.HasSuffix(tree[1].URL, "/page2.html") || !strings.HasSuffix(tree[0].URL, "/frames.html") {
		t.Errorf("only the child frame navigates: %+v", tree)
	}
	_, err = p.Frame(child).Goto(ctx, site.URL+"/slow?ms=20000", "", Load, 500*time.Millisecond)
	wantType(t, err, ErrTimeout, "500ms", "/slow?ms=20000")
	_, err = p.Frame("no-such-frame").Goto(ctx, site.URL+"/page2.html", "", Load, 5*time.Second)
	if err == nil {
		t.Errorf("navigating a frame that does not exist must fail")
	}
}
