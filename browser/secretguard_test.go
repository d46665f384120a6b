package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"wright/browser/apirequest"
)

// hostSecrets is the smallest SecretSource: one value, typed only where the
// host is allowed.
type hostSecrets struct{ name, value, host string }

func (s hostSecrets) Split(text string) ([]SecretPiece, error) {
	ph := "<secret>" + s.name + "</secret>"
	var out []SecretPiece
	for {
		i := strings.Index(text, ph)
		if i < 0 {
			break
		}
		if i > 0 {
			out = append(out, SecretPiece{Text: text[:i]})
		}
		out = append(out, SecretPiece{Text: s.value, Name: s.name})
		text = text[i+len(ph):]
	}
	if text != "" {
		out = append(out, SecretPiece{Text: text})
	}
	return out, nil
}

func (s hostSecrets) MayType(name, origin string) error {
	u, err := url.Parse(origin)
	if err != nil || u.Hostname() != s.host {
		return fmt.Errorf("the secret %q may only be typed on %s, not in %s", name, s.host, origin)
	}
	return nil
}

func (s hostSecrets) RedactReads(text string) string {
	return strings.ReplaceAll(text, s.value, "<secret>"+s.name+"</secret>")
}

// A secret meant for 127.0.0.1 reaches no localhost document: not through
// a localhost iframe of a 127.0.0.1 page, not after the page navigates at
// the first keystroke, not after it moves the focus into such an iframe
// mid-typing. Each refusal is an error, and the page stays usable.
func TestSecretsFollowTheFocusedFrame(t *testing.T) {
	needBrowser(t)
	const value = "S3cretValue-0123456789"
	mux := http.NewServeMux()
	var otherURL string
	mux.HandleFunc("/top", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><input id="top"><iframe id="f" src="%s/inner"></iframe>
<input id="jump"><input id="move">
<script>
document.getElementById('jump').addEventListener('keydown', () => { location.href = %q; }, {once: true});
document.getElementById('move').addEventListener('keydown', () => { document.getElementById('f').focus(); }, {once: true});
</script>`, otherURL, otherURL+"/catch")
	})
	mux.HandleFunc("/inner", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><input id="in"><script>window.addEventListener('focus', () => document.getElementById('in').focus());</script>`)
	})
	mux.HandleFunc("/catch", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>caught</title><input id="catch" autofocus>`)
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
	load := func() {
		t.Helper()
		if _, err := p.Goto(ctx, srv.URL+"/top", Load, 0); err != nil {
			t.Fatal(err)
		}
		if err := loc(t, p, "#f >> internal:control=enter-frame >> #in").Focus(ctx, 0); err != nil {
			t.Fatal(err)
		}
		if err := loc(t, p, "#top").Focus(ctx, 0); err != nil {
			t.Fatal(err)
		}
	}
	inner := loc(t, p, "#f >> internal:control=enter-frame >> #in")
	innerValue := func() string {
		t.Helper()
		v, err := inner.InputValue(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	refused := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "may only be typed on 127.0.0.1") || strings.Contains(err.Error(), value) {
			t.Errorf("%s: %v, want a refusal without the value", what, err)
		}
	}

	// The top page is the secret's: fill and type work there.
	load()
	if err := loc(t, p, "#top").Fill(ctx, "<secret>pw</secret>", false, 0); err != nil {
		t.Fatalf("fill on the secret's host: %v", err)
	}
	if v, _ := loc(t, p, "#top").InputValue(ctx, 0); v != value {
		t.Errorf("top field holds %q, want the value", v)
	}

	// 1. The localhost iframe of the 127.0.0.1 page: fill, type, press_sequentially.
	refused("fill in the iframe", inner.Fill(ctx, "<secret>pw</secret>", false, 0))
	refused("press_sequentially in the iframe", inner.PressSequentially(ctx, "<secret>pw</secret>", 0, 0))
	if err := inner.Focus(ctx, 0); err != nil {
		t.Fatal(err)
	}
	refused("keyboard.type in the iframe", p.Keyboard().Type(ctx, "<secret>pw</secret>", 0))
	if v := innerValue(); v != "" {
		t.Errorf("the localhost iframe received %q", v)
	}
	// Plain text still goes there: only the secret is held back.
	if err := inner.Fill(ctx, "plain", false, 0); err != nil || innerValue() != "plain" {
		t.Errorf("plain fill in the iframe after a refusal: %v", err)
	}

	// 2. The focus moves into the localhost iframe at the first keystroke.
	load()
	err = loc(t, p, "#move").PressSequentially(ctx, "<secret>pw</secret>", 20*time.Millisecond, 0)
	refused("focus moved mid-typing", err)
	if err != nil && !strings.Contains(err.Error(), "typing stopped after 1 of") {
		t.Errorf("want typing stopped after the first character: %v", err)
	}
	if v := innerValue(); v != "" {
		t.Errorf("the iframe the focus moved to received %q", v)
	}

	// 3. The page leaves for localhost at the first keystroke.
	load()
	err = loc(t, p, "#jump").PressSequentially(ctx, "<secret>pw</secret>", 30*time.Millisecond, 0)
	if err == nil || strings.Contains(err.Error(), value) || !strings.Contains(err.Error(), "nothing more was typed") {
		t.Errorf("navigation mid-typing: %v, want a refusal without the value", err)
	}
	if _, err := p.WaitForURL(ctx, otherURL+"/catch", Load, 0); err != nil {
		t.Fatalf("the page did not reach the catch page: %v", err)
	}
	// Typing goes on until the navigation commits; then nothing more.
	if err := p.Keyboard().Type(ctx, "<secret>pw</secret>", 0); err == nil {
		t.Errorf("typing on the catch page was allowed")
	}
	if v, err := loc(t, p, "#catch").InputValue(ctx, 0); err != nil || v != "" {
		t.Errorf("the page navigated to received %q (%v)", v, err)
	}
	// The page is usable after a refusal.
	if err := loc(t, p, "#catch").Fill(ctx, "still works", false, 0); err != nil {
		t.Errorf("fill after a refusal: %v", err)
	}
}

// An http_credentials password naming a secret gets its value only in an
// answer to a challenge of a host the secret may go to: another host's
// challenge is cancelled and sees nothing of it.
func TestSecretHTTPCredentials(t *testing.T) {
	needBrowser(t)
	const value = "S3cretValue-0123456789"
	var mu sync.Mutex
	var other []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pw, ok := r.BasicAuth()
		if ok && !strings.HasPrefix(r.Host, "127.0.0.1") {
			mu.Lock()
			other = append(other, pw)
			mu.Unlock()
		}
		if !ok || pw != value {
			w.Header().Set("WWW-Authenticate", `Basic realm="s"`)
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
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
	if err := p.SetHTTPCredentials(ctx, &apirequest.Credentials{Username: "u", Password: "<secret>pw</secret>"}); err != nil {
		t.Fatal(err)
	}
	if res, err := p.Goto(ctx, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)+"/", Load, 0); err != nil || res.Status != 401 {
		t.Fatalf("another host: %+v %v", res, err)
	}
	if res, err := p.Goto(ctx, srv.URL+"/", Load, 0); err != nil || res.Status != 200 {
		t.Fatalf("the secret's host: %+v %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(other) != 0 {
		t.Fatalf("another host was sent %q", other)
	}
}
