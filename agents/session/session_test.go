package session

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"wright/env/proctab"
	"wright/trust/sandbox"
	"wright/trust/secrets"
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

func TestStaleRefNamesNewestSnapshot(t *testing.T) {
	srv := site(t)
	s := open(t, srv.URL+"/")
	snap := call(t, s, "snapshot", map[string]any{"mode": "full"})
	send := refOf(t, snap.Text, "button", "Send")
	call(t, s, "navigate", map[string]any{"url": srv.URL + "/other"})
	_, err := callErr(s, "click", map[string]any{"ref": send})
	if err == nil {
		t.Fatal("a click on a ref of the page before the navigation succeeded")
	}
	msg := err.Error()
	if !strings.Contains(msg, "StaleRef") || !strings.Contains(msg, "The newest snapshot is the one in the result of call") {
		t.Fatalf("stale-ref error should say so and name the newest snapshot:\n%s", msg)
	}
	if strings.Contains(s.Script(), ".click()") {
		t.Errorf("a failed click is in the script:\n%s", s.Script())
	}
	_, err = callErr(s, "click", map[string]any{"ref": "button"})
	if err == nil || !strings.Contains(err.Error(), "no ref") {
		t.Errorf("a malformed ref: %v", err)
	}
	_, err = callErr(s, "click", map[string]any{"ref": send, "wat": 1})
	if err == nil || !strings.Contains(err.Error(), `unknown field "wat"`) {
		t.Errorf("an unknown argument: %v", err)
	}
}

func TestChangesOnly(t *testing.T) {
	srv := site(t)
	s := open(t, srv.URL+"/")
	full := call(t, s, "snapshot", map[string]any{"mode": "full"})
	res := call(t, s, "click", map[string]any{"ref": refOf(t, full.Text, "button", "More")})
	if !strings.Contains(res.Text, "Extra text shown") || !strings.Contains(res.Text, "[changes: ") {
		t.Fatalf("the click's result should be the changed lines:\n%s", res.Text)
	}
	if strings.Contains(res.Text, `textbox "Name"`) || strings.Contains(res.Text, "Page:") {
		t.Errorf("the click's result repeats what did not change:\n%s", res.Text)
	}
	if len(res.Text)*2 > len(full.Text) {
		t.Errorf("changes are %d chars against %d for the whole page", len(res.Text), len(full.Text))
	}
	// Nothing moved: the snapshot tool says so in a line.
	again := call(t, s, "snapshot", nil)
	if !strings.Contains(again.Text, "[no changes]") || len(again.Text) > 200 {
		t.Errorf("an unchanged page's snapshot: %s", again.Text)
	}
	res = call(t, s, "click", map[string]any{"ref": refOf(t, full.Text, "button", "Fail")})
	if !strings.Contains(res.Text, "Console errors:") || !strings.Contains(res.Text, "boom from page") {
		t.Errorf("a console error the click caused is not in its result:\n%s", res.Text)
	}
	cons := call(t, s, "console", map[string]any{"errors_only": true})
	if !strings.Contains(cons.Text, "boom from page") {
		t.Errorf("console: %s", cons.Text)
	}
	call(t, s, "navigate", map[string]any{"url": srv.URL + "/other"})
	netw := call(t, s, "network", nil)
	if !strings.Contains(netw.Text, "GET "+srv.URL+"/other → 200 (document)") {
		t.Errorf("network: %s", netw.Text)
	}
}

func TestSnapshotToFileAndCut(t *testing.T) {
	srv := site(t)
	s := open(t, srv.URL+"/long")
	res := call(t, s, "snapshot", map[string]any{"to_file": true, "mode": "full"})
	path, _ := res.Data["path"].(string)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("to_file: %v (%s)", err, res.Text)
	}
	if !strings.Contains(string(b), `link "Item number 399"`) || !strings.Contains(res.Text, fmt.Sprintf("%d chars", len(b)-1)) {
		t.Errorf("the file should hold the whole page and the text its size: %s", res.Text)
	}
	if len(res.Text) > 300 {
		t.Errorf("to_file's text is %d chars:\n%s", len(res.Text), res.Text)
	}
	cut := call(t, s, "snapshot", map[string]any{"mode": "full", "max_chars": 1000})
	m := regexp.MustCompile(`\[cut: characters 0 to (\d+) of (\d+) shown, (\d+) more\. For the rest: snapshot mode=full offset=(\d+)`).FindStringSubmatch(cut.Text)
	if m == nil {
		t.Fatalf("a cut snapshot should say how much was cut and how to get the rest:\n%s", cut.Text)
	}
	if len(cut.Text) > 1300 {
		t.Errorf("max_chars 1000 gave %d chars", len(cut.Text))
	}
	next := call(t, s, "snapshot", map[string]any{"mode": "full", "max_chars": 1000, "offset": json.Number(m[4])})
	first := strings.Split(strings.TrimSpace(next.Text), "\n")[0]
	if !strings.Contains(string(b), strings.TrimSpace(first)) || strings.Contains(cut.Text, strings.TrimSpace(first)+"\n") {
		t.Errorf("the second window should go on where the first stopped: %q", first)
	}
	sub := call(t, s, "snapshot", map[string]any{"ref": refOf(t, string(b), "link", "Item number 7")})
	if strings.TrimSpace(sub.Text) == "" || strings.Contains(sub.Text, "Item number 8") {
		t.Errorf("a ref's subtree: %s", sub.Text)
	}
	nav := call(t, s, "navigate", map[string]any{"url": srv.URL + "/long"})
	if len(nav.Text) > 8500 || !strings.Contains(nav.Text, "was cut: characters 0 to ") || !strings.Contains(nav.Text, "snapshot mode=full offset=") {
		t.Errorf("a navigation to a long page should show its start (%d chars) and say how to get the rest:\n...%s", len(nav.Text), nav.Text[max(0, len(nav.Text)-300):])
	}
}

func TestRunCodeKeepsNamespace(t *testing.T) {
	srv := site(t)
	s := open(t, srv.URL+"/")
	call(t, s, "run_code", map[string]any{"code": "answer = 41\nheading = page.locator('h1').inner_text()"})
	res := call(t, s, "run_code", map[string]any{"code": "print(answer + 1, heading)\npage.evaluate(\"console.log('from the page')\")"})
	if !strings.Contains(res.Text, "42 Sign up") || !strings.Contains(res.Text, "from the page") {
		t.Fatalf("run_code should see the earlier step's variables and return output and console:\n%s", res.Text)
	}
	_, err := callErr(s, "run_code", map[string]any{"code": "raise ValueError('nope')"})
	if err == nil || !strings.Contains(err.Error(), "ValueError: nope") {
		t.Errorf("a raising run_code: %v", err)
	}
	if !strings.Contains(s.Script(), "    answer = 41\n") {
		t.Errorf("run_code is not in the script:\n%s", s.Script())
	}
}

func TestScreenshotCap(t *testing.T) {
	srv := site(t)
	s := open(t, srv.URL+"/long")
	whole := call(t, s, "screenshot", nil)
	if whole.ImageType != "image/png" || len(whole.Image) < 8 || string(whole.Image[1:4]) != "PNG" {
		t.Fatalf("uncapped screenshot: %d bytes, %s", len(whole.Image), whole.ImageType)
	}
	limit := len(whole.Image) / 2
	s.opt.ScreenshotBytes = limit
	res := call(t, s, "screenshot", nil)
	if len(res.Image) == 0 || len(res.Image) > limit || res.ImageType != "image/jpeg" {
		t.Fatalf("screenshot capped at %d bytes: %d bytes, %s", limit, len(res.Image), res.ImageType)
	}
	t.Logf("PNG %d bytes, capped JPEG %d bytes", len(whole.Image), len(res.Image))
	if !strings.Contains(res.Code, "page.screenshot(path=") {
		t.Errorf("code: %s", res.Code)
	}
	if b, err := os.ReadFile(res.Data["path"].(string)); err != nil || len(b) != len(res.Image) {
		t.Errorf("the screenshot's file: %v", err)
	}
}

func TestTabs(t *testing.T) {
	srv := site(t)
	s := open(t, srv.URL+"/")
	res := call(t, s, "tabs", map[string]any{"action": "open", "url": srv.URL + "/other"})
	if !strings.Contains(res.Text, "* 1: Other") || !strings.Contains(res.Text, "  0: Sign up") {
		t.Fatalf("after open:\n%s", res.Text)
	}
	res = call(t, s, "tabs", map[string]any{"action": "select", "index": 0})
	if !strings.Contains(res.Text, "* 0: Sign up") {
		t.Fatalf("after select:\n%s", res.Text)
	}
	snap := call(t, s, "snapshot", map[string]any{"mode": "full"})
	if !strings.Contains(snap.Text, `heading "Sign up"`) {
		t.Errorf("the snapshot is not of the selected tab:\n%s", snap.Text)
	}
	res = call(t, s, "tabs", map[string]any{"action": "close", "index": 1})
	if strings.Contains(res.Text, "Other") {
		t.Errorf("after close:\n%s", res.Text)
	}
	if _, err := callErr(s, "tabs", map[string]any{"action": "select", "index": 5}); err == nil || !strings.Contains(err.Error(), "no tab 5") {
		t.Errorf("select of a missing tab: %v", err)
	}
}

// descendants lists the live processes under pid, with their names.
func descendants(t *testing.T, pid int) map[int]string {
	t.Helper()
	procs, err := proctab.List()
	if err != nil {
		t.Fatal(err)
	}
	kids := map[int][]int{}
	for _, p := range procs {
		if !p.Zombie {
			kids[p.PPID] = append(kids[p.PPID], p.PID)
		}
	}
	out := map[int]string{}
	var walk func(int)
	walk = func(p int) {
		for _, c := range kids[p] {
			comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", c))
			out[c] = strings.TrimSpace(string(comm))
			walk(c)
		}
	}
	walk(pid)
	return out
}

func TestCloseLeavesNoProcess(t *testing.T) {
	srv := site(t)
	s := open(t, srv.URL+"/")
	during := descendants(t, os.Getpid())
	var chromium, python int
	for _, name := range during {
		switch {
		case strings.Contains(name, "chrom"):
			chromium++
		case strings.HasPrefix(name, "python"):
			python++
		}
	}
	if chromium == 0 || python == 0 {
		t.Fatalf("an open session should run Chromium and Python under this process: %v", during)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
	select {
	case <-s.Done():
	default:
		t.Fatal("Done is not closed after Close")
	}
	if left := descendants(t, os.Getpid()); len(left) > 0 {
		t.Fatalf("processes left after Close: %v", left)
	}
	if _, err := callErr(s, "snapshot", nil); err == nil || !strings.Contains(err.Error(), "ended") {
		t.Errorf("a call after Close: %v", err)
	}
	t.Logf("%d processes while open (%d Chromium, %d Python), none after Close", len(during), chromium, python)
}

func TestChromiumDeathEndsSession(t *testing.T) {
	srv := site(t)
	s := open(t, srv.URL+"/")
	// The browser process: a Chromium whose parent is none (the
	// launcher may start it through a shell).
	procs := descendants(t, os.Getpid())
	killed := 0
	for pid, name := range procs {
		p, _ := proctab.Stat(pid)
		if strings.Contains(name, "chrom") && !strings.Contains(procs[p.PPID], "chrom") {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			killed++
		}
	}
	if killed == 0 {
		t.Fatalf("no Chromium browser process among %v", procs)
	}
	select {
	case <-s.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("the session did not end when its Chromium was killed")
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(descendants(t, os.Getpid())) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if left := descendants(t, os.Getpid()); len(left) > 0 {
		t.Fatalf("processes left after Chromium died: %v", left)
	}
}

// A secret is typed from its placeholder, and no result holds its value:
// not the snapshot, the code's output, the console, nor the script.
func TestSecretsStayPlaceholders(t *testing.T) {
	const value = "hunter2-very-secret"
	t.Setenv("SESSION_TEST_PASS", value)
	set, err := secrets.Load(map[string]secrets.Spec{"PASS": {Env: "SESSION_TEST_PASS"}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Login</title><label>Code <input id="c"></label>
<button onclick="const v = document.getElementById('c').value; console.log('typed ' + v); document.getElementById('echo').textContent = v;
fetch('/check?v=' + encodeURIComponent(v)).then(r => r.text()).then(t => { document.getElementById('verdict').textContent = t })">Echo</button>
<p id="echo"></p><p id="verdict"></p>`)
	})
	// The server says whether the value itself reached the page.
	mux.HandleFunc("/check", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("v") == value {
			fmt.Fprint(w, "the server got the real value")
			return
		}
		fmt.Fprint(w, "the server got something else")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s := open(t, srv.URL+"/", func(o *Options) { o.Secrets = set })
	snap := call(t, s, "snapshot", map[string]any{"mode": "full"})
	var all []string
	res := call(t, s, "fill", map[string]any{"ref": refOf(t, snap.Text, "textbox", "Code"), "text": secrets.Placeholder("PASS")})
	all = append(all, res.Text, res.Code)
	res = call(t, s, "click", map[string]any{"ref": refOf(t, snap.Text, "button", "Echo")})
	all = append(all, res.Text)
	if w := call(t, s, "wait", map[string]any{"text": "the server got"}); !strings.Contains(w.Text+res.Text, "the server got the real value") {
		t.Fatalf("the secret was not typed: %s", w.Text)
	}
	res = call(t, s, "run_code", map[string]any{"code": "print(page.locator('#c').input_value())\nprint(page.locator('#echo').inner_text())\nprint(page.evaluate('document.getElementById(\"c\").value'))"})
	all = append(all, res.Text)
	for _, tool := range []string{"snapshot", "console"} {
		r := call(t, s, tool, map[string]any{})
		all = append(all, r.Text)
		b, _ := json.Marshal(r.Data)
		all = append(all, string(b))
	}
	all = append(all, s.Script())
	joined := strings.Join(all, "\n")
	if strings.Contains(joined, value) {
		t.Fatalf("a result holds the secret's value:\n%s", joined)
	}
	// It was typed: the page's echo is there, as its placeholder.
	if !strings.Contains(joined, secrets.Placeholder("PASS")) {
		t.Fatalf("no placeholder in the results:\n%s", joined)
	}
	t.Logf("results after typing a secret:\n%s", res.Text)
}

// What one action costs, whole (the runner's step, the observation) and in
// the runner alone; printed for docs, held loosely.
func TestActionTime(t *testing.T) {
	srv := site(t)
	s := open(t, srv.URL+"/")
	snap := call(t, s, "snapshot", map[string]any{"mode": "full"})
	more := refOf(t, snap.Text, "button", "More")
	name := refOf(t, snap.Text, "textbox", "Name")
	var whole, inRunner time.Duration
	const n = 10
	for i := 0; i < n; i++ {
		start := time.Now()
		res := call(t, s, "fill", map[string]any{"ref": name, "text": fmt.Sprint("name ", i)})
		whole += time.Since(start)
		ms, _ := res.Data["elapsed_ms"].(int64)
		inRunner += time.Duration(ms) * time.Millisecond
	}
	start := time.Now()
	call(t, s, "click", map[string]any{"ref": more})
	click := time.Since(start)
	start = time.Now()
	call(t, s, "snapshot", nil)
	snapTime := time.Since(start)
	t.Logf("fill by ref: %v a call on average (%v of it in the runner); click %v; snapshot %v", whole/n, inRunner/n, click, snapTime)
	if whole/n > 2*time.Second {
		t.Errorf("an action takes %v", whole/n)
	}
}

const widgetsPage = `<!doctype html><title>Widgets</title>
<label>Search <input id="q" onkeydown="if (event.key === 'Enter') document.getElementById('out').textContent = 'searched ' + this.value"></label>
<p id="out"></p>
<button id="hov" onmouseover="document.getElementById('hout').textContent = 'hovered'">Hover me</button><p id="hout"></p>
<label>File <input type="file" id="f" onchange="document.getElementById('fout').textContent = 'picked ' + this.files[0].name + ' ' + this.files[0].size"></label><p id="fout"></p>
<div id="src" draggable="true" role="button" aria-label="Drag source" ondragstart="event.dataTransfer.setData('text', 'x')">Drag source</div>
<div id="dst" role="button" aria-label="Drop target" ondragover="event.preventDefault()" ondrop="event.preventDefault(); document.getElementById('dout').textContent = 'dropped'">Drop target</div><p id="dout"></p>
<button onclick="document.getElementById('cout').textContent = confirm('Sure?') ? 'confirmed' : 'cancelled'">Ask</button><p id="cout"></p>
<button onclick="setTimeout(() => document.getElementById('late').textContent = 'late text', 300)">Later</button><p id="late"></p>
<button>Twin</button><button>Twin</button>`

// The other element actions, each checked on what the page did.
func TestOtherActions(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, widgetsPage) })
	mux.HandleFunc("/b", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>B</title><h1>Page B</h1>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s := open(t, srv.URL+"/")
	snap := call(t, s, "snapshot", map[string]any{"mode": "full"}).Text
	ref := func(role, name string) string { return refOf(t, snap, role, name) }
	expect := func(res Result, want string) {
		t.Helper()
		if !strings.Contains(res.Text, want) {
			t.Errorf("want %q in:\n%s", want, res.Text)
		}
	}
	call(t, s, "type", map[string]any{"ref": ref("textbox", "Search"), "text": "shoes"})
	expect(call(t, s, "press", map[string]any{"key": "Enter"}), "searched shoes")
	expect(call(t, s, "hover", map[string]any{"ref": ref("button", "Hover me")}), "hovered")
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("twelve bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	up := call(t, s, "upload", map[string]any{"ref": ref("button", "File"), "files": []string{file}})
	expect(up, "picked notes.txt 12")
	if !strings.Contains(up.Code, pyStr(file)) {
		t.Errorf("upload's code should name the file given: %s", up.Code)
	}
	expect(call(t, s, "drag", map[string]any{"ref": ref("button", "Drag source"), "target": ref("button", "Drop target")}), "dropped")
	call(t, s, "dialog", map[string]any{"accept": false})
	expect(call(t, s, "click", map[string]any{"ref": ref("button", "Ask")}), "cancelled")
	call(t, s, "click", map[string]any{"ref": ref("button", "Later")})
	expect(call(t, s, "wait", map[string]any{"text": "late text"}), "late text")
	// Two buttons of one name: the script keeps the ref, and says so.
	twin := call(t, s, "click", map[string]any{"ref": ref("button", "Twin")})
	if !strings.HasPrefix(twin.Code, `page.locator("aria-ref=`) || !strings.Contains(twin.Code, "# e") {
		t.Errorf("a click on one of two same-named buttons: %s", twin.Code)
	}
	call(t, s, "navigate", map[string]any{"url": srv.URL + "/b"})
	expect(call(t, s, "back", nil), "Widgets")
	expect(call(t, s, "forward", nil), "Page B")
	expect(call(t, s, "wait", map[string]any{"url": "**/b"}), "")
	call(t, s, "reload", nil)
	if _, err := callErr(s, "wait", map[string]any{"time": 0.2}); err != nil {
		t.Errorf("wait time: %v", err)
	}
	script := s.Script()
	for _, want := range []string{`.press_sequentially("shoes")`, `page.keyboard.press("Enter")`, `.hover()`, `.drag_to(`, `page.once("dialog", lambda dialog: dialog.dismiss())`, `page.go_back()`, `page.reload()`} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %s:\n%s", want, script)
		}
	}
}

// Close while a call runs (a client that disconnects mid-action) ends the
// call promptly and leaves no process.
func TestCloseDuringCall(t *testing.T) {
	srv := site(t)
	s := open(t, srv.URL+"/")
	done := make(chan error, 1)
	go func() {
		_, err := callErr(s, "run_code", map[string]any{"code": "import time\ntime.sleep(30)"})
		done <- err
	}()
	time.Sleep(700 * time.Millisecond)
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "the browser session has ended") {
			t.Errorf("the interrupted call: %v", err)
		}
		t.Logf("the call ended %v after Close: %v", time.Since(start), err)
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end after Close")
	}
	if left := descendants(t, os.Getpid()); len(left) > 0 {
		t.Fatalf("processes left: %v", left)
	}
}

// On a page longer than an action's budget, the results stay small: the
// navigation shows the page's start and says where the rest is, and the
// snapshot and actions after it are change lists against the whole page,
// never the page again.
func TestLongPageStaysChanges(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Long form</title><label>Email <input id="e"></label><ul>`)
		for i := 0; i < 400; i++ {
			fmt.Fprintf(w, `<li><a href="/item/%d">Item number %d</a></li>`, i, i)
		}
		fmt.Fprint(w, `</ul><label>Last <input id="l"></label>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s := open(t, "")
	nav := call(t, s, "navigate", map[string]any{"url": srv.URL + "/"})
	if len(nav.Text) > 8500 || !strings.Contains(nav.Text, "For the rest: snapshot mode=full offset=") {
		t.Fatalf("navigate: %d chars, ending:\n%s", len(nav.Text), nav.Text[max(0, len(nav.Text)-400):])
	}
	sizes := map[string]int{"navigate": len(nav.Text)}
	snap := call(t, s, "snapshot", nil)
	sizes["snapshot"] = len(snap.Text)
	if len(snap.Text) > 500 || !strings.Contains(snap.Text, "[no changes]") || !strings.Contains(snap.Text, "offset=") {
		t.Errorf("snapshot after a cut navigation:\n%s", snap.Text)
	}
	fill := call(t, s, "fill", map[string]any{"ref": refOf(t, nav.Text, "textbox", "Email"), "text": "a@b.c"})
	sizes["fill"] = len(fill.Text)
	if len(fill.Text) > 600 || !strings.Contains(fill.Text, `textbox "Email"`) || !strings.Contains(fill.Text, "a@b.c") {
		t.Errorf("a fill on the long page:\n%s", fill.Text)
	}
	// The tail the client never saw is one call away, and its refs work.
	rest := call(t, s, "snapshot", map[string]any{"mode": "full", "offset": json.Number(regexp.MustCompile(`offset=(\d+)`).FindStringSubmatch(snap.Text)[1])})
	last := call(t, s, "fill", map[string]any{"ref": refOf(t, rest.Text, "textbox", "Last"), "text": "end"})
	sizes["fill last"] = len(last.Text)
	if len(last.Text) > 600 || !strings.Contains(last.Text, "end") {
		t.Errorf("a fill of a field past the cut:\n%s", last.Text)
	}
	t.Logf("result sizes on a %d-character page: %v", len(rest.Text)+8000, sizes)
}

// A long page of text with few controls is shown first by its controls.
func TestLongTextPageShowsItsControls(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Article</title><h1>Article</h1>`)
		for i := 0; i < 300; i++ {
			fmt.Fprintf(w, `<p>Paragraph %d of the article, with enough words to be a real paragraph.</p>`, i)
		}
		fmt.Fprint(w, `<label>Comment <input></label><button>Post</button>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s := open(t, "")
	nav := call(t, s, "navigate", map[string]any{"url": srv.URL + "/"})
	if len(nav.Text) > 1500 || !strings.Contains(nav.Text, `textbox "Comment"`) || !strings.Contains(nav.Text, "only its interactive elements were shown") {
		t.Fatalf("navigate to a long article (%d chars):\n%s", len(nav.Text), nav.Text)
	}
	post := call(t, s, "fill", map[string]any{"ref": refOf(t, nav.Text, "textbox", "Comment"), "text": "nice", "submit": false})
	if len(post.Text) > 400 {
		t.Errorf("a fill after the outline (%d chars):\n%s", len(post.Text), post.Text)
	}
	whole := call(t, s, "snapshot", map[string]any{"mode": "full"})
	if !strings.Contains(whole.Text, "Paragraph 299 of the article") {
		t.Errorf("the whole page is one snapshot away: %d chars", len(whole.Text))
	}
	t.Logf("navigate %d chars, fill %d chars, whole snapshot %d chars", len(nav.Text), len(post.Text), len(whole.Text))
}
