package harness

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wright/browser"
	"wright/browser/driver"
	"wright/browser/launcher"
	"wright/browser/python"
)

// Issue 34 in a sandboxed workspace run, as a hostile script would try it
// through Playwright's API against the script driver wright serves (its
// requests pass the filter of scriptfilter_linux.go, as under the sandbox;
// bubblewrap itself is not needed to ask these): uploads of a host file and
// through a link, a video folder outside, a trace with a host source and
// one written through a link, HAR recordings outside and through a link.
func TestWorkspaceScriptFilesStayInTheWorkspace(t *testing.T) {
	if _, err := browser.FindExecutable(""); err != nil {
		t.Fatalf("no Chromium: %v", err)
	}
	ws, host, lib := t.TempDir(), t.TempDir(), t.TempDir()
	hostFile := filepath.Join(host, "id_host")
	if err := os.WriteFile(hostFile, []byte("HOST-FILE-CONTENT"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink(host, filepath.Join(ws, "out"))
	os.Symlink(hostFile, filepath.Join(ws, "innocent.txt"))
	if _, err := python.Install(lib); err != nil {
		t.Fatal(err)
	}
	warm := newWarmBrowser(launcher.Config{Width: 1280, Height: 800}, "")
	d, err := startScriptDrivers(ws, browser.Options{}, driver.HAROptions{}, warm, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.close)
	env := append(os.Environ(), "PYTHONPATH="+lib, "PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1",
		DriverWarmEnv+"="+d.socket(), "WRIGHT_BIN=/nonexistent-so-a-cold-launch-fails")
	const script = `
import json, sys
from playwright.sync_api import sync_playwright
HOST, WS = sys.argv[1], sys.argv[2]
res = {}
def attempt(name, f):
    try:
        f()
        res[name] = 'done'
    except Exception as e:
        res[name] = 'refused: ' + str(e).splitlines()[0][:200]
with sync_playwright() as p:
    b = p.chromium.launch()
    ctx = b.new_context()
    page = ctx.new_page()
    page.set_content('<input type=file id=f><p id=got></p><script>f.onchange = async () => got.textContent = await f.files[0].text()</script>')
    attempt('upload a host file', lambda: page.set_input_files('#f', HOST + '/id_host'))
    attempt('upload through a link', lambda: page.set_input_files('#f', WS + '/innocent.txt'))
    attempt('upload through a linked folder', lambda: page.set_input_files('#f', WS + '/out/id_host'))
    def video(d):
        c = b.new_context(record_video_dir=d)
        c.new_page().close()
        c.close()
    attempt('video outside', lambda: video(HOST + '/videos'))
    attempt('video through a link', lambda: video(WS + '/out/videos'))
    def trace(path, sources):
        c = b.new_context()
        c.tracing.start(sources=sources)
        c.new_page().close()
        c.tracing.stop(path=path)
        c.close()
    attempt('trace outside', lambda: trace(HOST + '/t.zip', False))
    attempt('trace through a link', lambda: trace(WS + '/out/t.zip', False))
    def har(path):
        c = b.new_context(record_har_path=path)
        c.new_page().close()
        c.close()
    attempt('har outside', lambda: har(HOST + '/x.har'))
    attempt('har through a link', lambda: har(WS + '/out/x.har'))
    attempt('route_from_har of a host file', lambda: ctx.route_from_har(HOST + '/id_host'))
    res['got'] = page.locator('#got').inner_text()
    trace(WS + '/in/t.zip', False)
    har(WS + '/in/x.har')
print(json.dumps(res))
`
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	res, err := runPy(ctx, t, env, ws, "hostile.py", script, host, ws)
	if err != nil {
		t.Fatal(err)
	}
	got := res["got"]
	delete(res, "got")
	if got != "" {
		t.Errorf("the page received %q", got)
	}
	if len(res) != 10 {
		t.Errorf("%d attempts reported: %v", len(res), res)
	}
	for name, r := range res {
		if s, _ := r.(string); !strings.HasPrefix(s, "refused") {
			t.Errorf("%s: %v", name, r)
		}
	}
	entries, _ := os.ReadDir(host)
	for _, e := range entries {
		if e.Name() != "id_host" {
			t.Errorf("written outside the workspace: %s", e.Name())
		}
	}
	// Inside the workspace they work (the filter once dropped their path).
	for _, f := range []string{"in/t.zip", "in/x.har"} {
		if fi, err := os.Stat(filepath.Join(ws, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s inside the workspace: %v", f, err)
		}
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	t.Logf("%s", b)
}
