package live

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wright/env"
	"wright/trust/secrets"
)

// Issue 34 in live mode, as a hostile model's code would try it: the
// driver writes and reads files for the code only inside the workspace,
// and follows no link planted there. Each attempt names a host folder
// outside, the run folder around the workspace (the runner's library is
// there), or goes through a link to a host folder from the workspace.
func TestLiveDriverFilesStayInTheWorkspace(t *testing.T) {
	site := fixtureSite(t)
	host := t.TempDir()
	hostFile := filepath.Join(host, "id_host")
	if err := os.WriteFile(hostFile, []byte("HOST-FILE-CONTENT"), 0o600); err != nil {
		t.Fatal(err)
	}
	e, run := startEnv(t, site.URL+"/", nil)
	if err := os.Symlink(host, filepath.Join(run.ws, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(hostFile, filepath.Join(run.ws, "innocent.txt")); err != nil {
		t.Fatal(err)
	}
	code := `
import json
HOST, WS = ` + pyStr(host) + `, ` + pyStr(run.ws) + `
res = {}
def attempt(name, f):
    try:
        f()
        res[name] = 'done'
    except Exception as e:
        res[name] = 'refused: ' + str(e).splitlines()[0][:160]
page.set_content('<input type=file id=f><p id=got></p><script>f.onchange = async () => got.textContent = await f.files[0].text()</script>')
attempt('screenshot outside', lambda: page.screenshot(path=HOST + '/shot.png'))
attempt('screenshot through a link', lambda: page.screenshot(path=WS + '/out/shot2.png'))
attempt('screenshot climbing out', lambda: page.screenshot(path=WS + '/../../../' + HOST.rsplit('/', 1)[1] + '/shot3.png'))
attempt('screenshot over the runner library', lambda: page.screenshot(path=WS + '/../lib/live/runner.py'))
attempt('upload a host file', lambda: page.set_input_files('#f', HOST + '/id_host'))
attempt('upload through a link', lambda: page.set_input_files('#f', WS + '/innocent.txt'))
ctx = page.context
attempt('har outside', lambda: ctx.route_from_har(HOST + '/x.har', update=True))
def trace():
    ctx.tracing.start(sources=True)
    ctx.tracing.stop(path=HOST + '/trace.zip')
attempt('trace outside', trace)
def video():
    c = browser.new_context(record_video_dir=HOST + '/videos')
    p = c.new_page()
    p.close()
    c.close()
attempt('video outside', video)
print(json.dumps(res))
print('GOT', page.locator('#got').inner_text())
`
	obs := step(t, e, 1, code)
	out := str(obs, "python_output")
	var res map[string]string
	first, _, _ := strings.Cut(out, "\n")
	if err := json.Unmarshal([]byte(first), &res); err != nil {
		t.Fatalf("output %q (%s): %v", out, str(obs, "exception"), err)
	}
	if len(res) != 9 {
		t.Errorf("%d attempts reported, want 9: %v", len(res), res)
	}
	for name, r := range res {
		if !strings.HasPrefix(r, "refused") {
			t.Errorf("%s: %s", name, r)
		}
	}
	if strings.Contains(out, "HOST-FILE-CONTENT") {
		t.Errorf("the host file reached the page: %s", out)
	}
	entries, _ := os.ReadDir(host)
	for _, en := range entries {
		if en.Name() != "id_host" {
			t.Errorf("the driver wrote %s outside the workspace", en.Name())
		}
	}
	if b, err := os.ReadFile(filepath.Join(run.dir, "lib", "live", "runner.py")); err != nil || strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("the runner library was overwritten (%v)", err)
	}
	t.Logf("%v", res)
	// Inside the workspace, without links, the same calls work.
	obs = step(t, e, 2, `
page.screenshot(path=WS + '/shots/a.png')
c2 = browser.new_context()
c2.tracing.start()
c2.new_page().close()
c2.tracing.stop(path=WS + '/t.zip')
c2.close()
print('ok')`)
	wantSuccess(t, obs)
	for _, f := range []string{"shots/a.png", "t.zip"} {
		if _, err := os.Stat(filepath.Join(run.ws, f)); err != nil {
			t.Errorf("%s inside the workspace: %v", f, err)
		}
	}
}

func pyStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Issue 34's recordings in live mode: a step types a secret on its host,
// the page sends it in a form body, a URL and Authorization: Basic, and the
// step records a HAR, a zipped HAR and a trace of it. While the run goes on
// (no end-of-run sweep yet) none of those files holds the value, as typed,
// URL-encoded or base64, and no CDP event the step received does either.
func TestLiveRecordingsHoldNoSecret(t *testing.T) {
	const value = "Live-Hunter2-S3cret x"
	f := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(f, []byte(value), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := secrets.Load(map[string]secrets.Spec{"pw": {File: f, Domains: []string{"127.0.0.1"}}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>login</title><input id=pw>
<button id=go onclick="const v = pw.value; fetch('/api?pw=' + encodeURIComponent(v), {method: 'POST', headers: {Authorization: 'Basic ' + btoa('alice:' + v)}, body: 'pw=' + encodeURIComponent(v)}).then(() => done.textContent = 'sent')">go</button><p id=done></p>`)
	})
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	e, run := startEnv(t, srv.URL+"/login", func(o *Options) { o.Browser.Secrets = env.BrowserSecrets(set) })
	code := `
WS = ` + pyStr(run.ws) + `
events = []
c = browser.new_context(record_har_path=WS + '/rec.har')
c2 = page.context
c2.tracing.start(snapshots=True)
p = c.new_page()
cdp = c.new_cdp_session(p)
cdp.send('Network.enable')
cdp.on('Network.requestWillBeSentExtraInfo', lambda ev: events.append(ev))
for pg in (p, page):
    pg.goto(` + pyStr(srv.URL+"/login") + `)
    pg.fill('#pw', '<secret>pw</secret>')
    pg.click('#go')
    pg.wait_for_selector("#done:has-text('sent')")
c2.tracing.stop(path=WS + '/trace.zip')
c.close()
import json
open(WS + '/events.json', 'w').write(json.dumps(events))
print('recorded', len(events))
`
	obs := step(t, e, 1, code)
	wantSuccess(t, obs)
	forms := []string{value, url.QueryEscape(value), strings.ReplaceAll(url.QueryEscape(value), "+", "%20"),
		base64.StdEncoding.EncodeToString([]byte("alice:" + value))[8:24]}
	check := func(what string, data []byte) {
		t.Helper()
		for _, f := range forms {
			if bytes.Contains(data, []byte(f)) {
				t.Errorf("%s holds the secret as %q", what, f)
			}
		}
	}
	for _, name := range []string{"rec.har", "events.json"} {
		data, err := os.ReadFile(filepath.Join(run.ws, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "events.json" && !bytes.Contains(data, []byte("Basic YWxpY2U6")) {
			t.Errorf("no event carried the Authorization header: %.300s", data)
		}
		if name == "rec.har" && !bytes.Contains(data, []byte("<secret>pw</secret>")) {
			t.Errorf("the HAR has no placeholder")
		}
		check(name, data)
	}
	zr, err := zip.OpenReader(filepath.Join(run.ws, "trace.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, m := range zr.File {
		rc, _ := m.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		check("trace.zip "+m.Name, b)
	}
}
