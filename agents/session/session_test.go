package session

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"wright/trust/sandbox"
)

// The test binary stands in for wright inside the runner's sandbox: run
// as `<test> sandbox-init ...` it is sandbox.Init.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.InitCommand {
		err := sandbox.Init(os.Args[2:])
		fmt.Fprintln(os.Stderr, err)
		os.Exit(126)
	}
	os.Exit(m.Run())
}

const formPage = `<!doctype html><title>Sign up</title>
<h1>Sign up</h1>
<form action="/done" method="post">
<label>Name <input name="name"></label>
<label>Colour <select name="colour"><option>Red</option><option>Blue</option></select></label>
<label><input type="checkbox" name="news"> News</label>
<button type="submit">Send</button>
</form>
<button id="more" onclick="document.getElementById('extra').hidden=false">More</button>
<p id="extra" hidden>Extra text shown</p>
<button onclick="console.error('boom from page')">Fail</button>
<a href="/other">Other page</a>`

// site is the tests' own small site: a form that posts to /done, which
// echoes what it got, and a second page.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, formPage)
	})
	mux.HandleFunc("/done", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		fmt.Fprintf(w, `<!doctype html><title>Thanks</title><h1>Thanks %s</h1><p>colour %s news %s</p>`,
			r.FormValue("name"), r.FormValue("colour"), r.FormValue("news"))
	})
	mux.HandleFunc("/other", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Other</title><h1>Other</h1><a href="/">Home</a>`)
	})
	mux.HandleFunc("/long", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Long</title><ul>`)
		for i := 0; i < 400; i++ {
			fmt.Fprintf(w, `<li><a href="/item/%d">Item number %d</a></li>`, i, i)
		}
		fmt.Fprint(w, `</ul>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func open(t *testing.T, start string, mod ...func(*Options)) *Session {
	t.Helper()
	opt := Options{StartURL: start, Dir: t.TempDir()}
	for _, m := range mod {
		m(&opt)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := Open(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func call(t *testing.T, s *Session, tool string, args any) Result {
	t.Helper()
	res, err := callErr(s, tool, args)
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	return res
}

func callErr(s *Session, tool string, args any) (Result, error) {
	b, _ := json.Marshal(args)
	if args == nil {
		b = nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return s.Call(ctx, tool, b)
}

// refOf finds the ref of the line with role and name in a snapshot text.
func refOf(t *testing.T, text, role, name string) string {
	t.Helper()
	re := regexp.MustCompile(`- ` + role + ` "` + regexp.QuoteMeta(name) + `".*\[ref=(e\d+)\]`)
	m := re.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no %s %q with a ref in:\n%s", role, name, text)
	}
	return m[1]
}

func TestFormByRefs(t *testing.T) {
	srv := site(t)
	s := open(t, srv.URL+"/")
	snap := call(t, s, "snapshot", map[string]any{"mode": "full"})
	if !strings.Contains(snap.Text, `heading "Sign up"`) {
		t.Fatalf("full snapshot lacks the heading:\n%s", snap.Text)
	}
	name := refOf(t, snap.Text, "textbox", "Name")
	res := call(t, s, "fill", map[string]any{"ref": name, "text": "Ada"})
	if res.Code != `page.get_by_role("textbox", name="Name", exact=True).fill("Ada")` {
		t.Errorf("fill code = %s", res.Code)
	}
	call(t, s, "select", map[string]any{"ref": refOf(t, snap.Text, "combobox", "Colour"), "values": []string{"Blue"}})
	call(t, s, "check", map[string]any{"ref": refOf(t, snap.Text, "checkbox", "News")})
	res = call(t, s, "click", map[string]any{"ref": refOf(t, snap.Text, "button", "Send")})
	if !strings.Contains(res.Text, "/done") || !strings.Contains(res.Text, "Thanks Ada") || !strings.Contains(res.Text, "colour Blue news on") {
		t.Fatalf("after the click the result should show the new page:\n%s", res.Text)
	}
	t.Logf("click result (%d chars):\n%s", len(res.Text), res.Text)
	script := s.Script()
	for _, want := range []string{`page.goto("` + srv.URL + `/")`, `.fill("Ada")`, `.select_option("Blue")`, `.check()`, `get_by_role("button", name="Send", exact=True).click()`} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %s:\n%s", want, script)
		}
	}
}
