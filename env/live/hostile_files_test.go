package live

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 34 in live mode, as a hostile model's code would try it: the
// driver writes and reads files for the code only inside the run folder,
// and follows no link planted there. Each attempt names a host folder
// outside the run folder, or goes through a link to it from the workspace.
func TestLiveDriverFilesStayInTheRunFolder(t *testing.T) {
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
	if len(res) != 8 {
		t.Errorf("%d attempts reported, want 8: %v", len(res), res)
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
			t.Errorf("the driver wrote %s outside the run folder", en.Name())
		}
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
