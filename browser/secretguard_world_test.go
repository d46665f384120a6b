package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// Issue 34's attack on the secret guard, with the hole it used left open
// on purpose: code that can run in wright's own engine world (as a CDP
// Runtime.evaluate into it could, before the driver refused that) and in
// the page's main world redefines document.activeElement in both to say
// the focus is in the top frame, while it is in a localhost iframe. The
// guard reads the focus in a world of its own, so the secret meant for
// 127.0.0.1 still goes nowhere.
func TestSecretGuardIgnoresPoisonedWorlds(t *testing.T) {
	needBrowser(t)
	const value = "Poison-S3cret-0123"
	mux := http.NewServeMux()
	var otherURL string
	mux.HandleFunc("/top", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><input id="top"><iframe id="f" src="%s/inner"></iframe>`, otherURL)
	})
	mux.HandleFunc("/inner", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><input id="in">`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	otherURL = strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b, err := Launch(ctx, Options{Secrets: hostSecrets{"pw", value, "127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Goto(ctx, srv.URL+"/top", Load, 0); err != nil {
		t.Fatal(err)
	}
	inner := loc(t, p, "#f >> internal:control=enter-frame >> #in")
	if err := inner.Focus(ctx, 0); err != nil {
		t.Fatal(err)
	}
	// The lie, told in the page's main world and in wright's engine world
	// of the top frame (and its frames: the iframe is a frame element, and
	// null says "no frame holds the focus").
	const lie = `Object.defineProperty(Document.prototype, 'activeElement', {get() { return null; }, configurable: true}); Object.defineProperty(document, 'activeElement', {get() { return null; }}); 'lied'`
	rp := p.Rod()
	for _, world := range []string{"", worldName} {
		var ctxID proto.RuntimeExecutionContextID
		if world != "" {
			w, err := proto.PageCreateIsolatedWorld{FrameID: p.mainFrame(), WorldName: world}.Call(rp)
			if err != nil {
				t.Fatal(err)
			}
			ctxID = w.ExecutionContextID
		}
		res, err := proto.RuntimeEvaluate{Expression: lie, ContextID: ctxID, ReturnByValue: true}.Call(rp)
		if err != nil || res.ExceptionDetails != nil {
			t.Fatalf("the lie in world %q: %v %v", world, err, res)
		}
	}
	// The engine world believes the lie...
	w, _ := proto.PageCreateIsolatedWorld{FrameID: p.mainFrame(), WorldName: worldName}.Call(rp)
	if res, err := (proto.RuntimeEvaluate{Expression: "document.activeElement === null", ContextID: w.ExecutionContextID, ReturnByValue: true}).Call(rp); err != nil || res.Result.Value.Bool() != true {
		t.Fatalf("the engine world was not fooled (%v %v): the test proves nothing", err, res)
	}
	// ...the guard does not.
	err = p.Keyboard().Type(ctx, "<secret>pw</secret>", 0)
	if err == nil || !strings.Contains(err.Error(), "may only be typed on 127.0.0.1") {
		t.Errorf("keyboard.type with the focus in the localhost iframe: %v, want a refusal", err)
	}
	if v, err := inner.InputValue(ctx, 0); err != nil || v != "" {
		t.Errorf("the localhost iframe received %q (%v)", v, err)
	}
	// The top frame, focused for real, still takes the value.
	if err := loc(t, p, "#top").Focus(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := p.Keyboard().Type(ctx, "<secret>pw</secret>", 0); err != nil {
		t.Errorf("keyboard.type on the secret's host: %v", err)
	}
}
