package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"wright/browser"
	"wright/browser/driver"
	"wright/browser/launcher"
	"wright/browser/probe"
	"wright/browser/python"
	"wright/run/config"
)

// warmSite is the page the isolation scripts use: /set?who= sets a cookie,
// /cached counts how often the HTTP cache let a request through, /dl is a
// download.
func warmSite(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var cachedHits atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "who", Value: r.URL.Query().Get("who"), Path: "/", MaxAge: 3600})
		fmt.Fprint(w, `<title>set</title><img src="/cached">`)
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>page</title><img src="/cached">`)
	})
	mux.HandleFunc("/cached", func(w http.ResponseWriter, r *http.Request) {
		cachedHits.Add(1)
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("Content-Type", "image/gif")
		w.Write([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
	})
	mux.HandleFunc("/sw.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, "self.addEventListener('fetch', () => {});")
	})
	mux.HandleFunc("/dl", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="`+r.URL.Query().Get("name")+`"`)
		fmt.Fprint(w, "data of "+r.URL.Query().Get("name"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &cachedHits
}

// warmDrivers starts a workspace's script drivers with a warm browser, as
// scriptBrowsers does for an unsandboxed run, and the client to reach them.
func warmDrivers(t testing.TB) (*scriptDrivers, *warmBrowser, []string) {
	t.Helper()
	if _, err := browser.FindExecutable(""); err != nil {
		t.Fatalf("no Chromium: %v", err)
	}
	ws := t.TempDir()
	lib := t.TempDir()
	if _, err := python.Install(lib); err != nil {
		t.Fatal(err)
	}
	warm := newWarmBrowser(launcher.Config{Width: 1280, Height: 1800}, "")
	d, err := startScriptDrivers(ws, browser.Options{}, driver.HAROptions{}, warm, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.close)
	env := append(os.Environ(), "PYTHONPATH="+lib, "PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1",
		DriverWarmEnv+"="+d.socket(), "WRIGHT_BIN=/nonexistent-so-a-cold-launch-fails")
	return d, warm, env
}

// runPy runs a script of the test's and returns what it printed last (a JSON line).
func runPy(ctx context.Context, t *testing.T, env []string, dir, name, src string, args ...string) (map[string]any, error) {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "python3", append([]string{path}, args...)...)
	cmd.Env, cmd.Dir = env, dir
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", name, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var res map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		return nil, fmt.Errorf("%s: not JSON at the end: %v\n%s", name, err, out)
	}
	return res, nil
}

// Script A sets its state, waits while B looks for it, then checks its own
// page still works after B crashed B's renderer.
const warmScriptA = `
import json, os, sys, time
from playwright.sync_api import sync_playwright
base, flags = sys.argv[1], sys.argv[2]
def wait(name):
    for _ in range(600):
        if os.path.exists(os.path.join(flags, name)):
            return
        time.sleep(0.05)
    raise SystemExit("timed out waiting for " + name)
with sync_playwright() as p:
    b = p.chromium.launch()
    page = b.new_page()
    page.goto(base + "/set?who=a")
    page.evaluate("localStorage.setItem('who', 'a'); sessionStorage.setItem('who', 'a')")
    open(os.path.join(flags, "a-ready"), "w").close()
    wait("b-listening")
    with page.expect_download() as d:
        page.evaluate("(u) => { const a = document.createElement('a'); a.href = u; a.download = ''; document.body.appendChild(a); a.click(); }", base + "/dl?name=a.txt")
    dl_path = d.value.path()
    open(os.path.join(flags, "a-downloaded"), "w").close()
    wait("b-done")
    title = page.evaluate("document.title")
    page.reload()
    out = {"cookies": sorted(c["value"] for c in page.context.cookies()),
           "storage": page.evaluate("localStorage.getItem('who')"), "title": title, "after_reload": page.title(),
           "download": open(dl_path).read(), "pages": len(b.contexts[0].pages)}
    b.close()
    print(json.dumps(out))
`

// Script B looks for A's cookies, storage, pages and download, tries a
// browser-level CDP session and target discovery, then crashes its own
// renderer.
const warmScriptB = `
import json, os, sys, time
from playwright.sync_api import sync_playwright
base, flags = sys.argv[1], sys.argv[2]
def wait(name):
    for _ in range(600):
        if os.path.exists(os.path.join(flags, name)):
            return
        time.sleep(0.05)
    raise SystemExit("timed out waiting for " + name)
wait("a-ready")
out = {}
with sync_playwright() as p:
    b = p.chromium.launch()
    page = b.new_page()
    downloads = []
    page.on("download", lambda d: downloads.append(d.suggested_filename))
    b.contexts[0].on("page", lambda pg: downloads.append("page " + pg.url))
    page.goto(base + "/page")
    open(os.path.join(flags, "b-listening"), "w").close()
    wait("a-downloaded")
    page.wait_for_timeout(300)
    out["cookies"] = sorted(c["value"] for c in page.context.cookies())
    out["cookies_for_url"] = page.context.cookies(base)
    out["storage"] = page.evaluate("localStorage.getItem('who')")
    out["session"] = page.evaluate("sessionStorage.getItem('who')")
    out["pages"] = [pg.url for ctx in b.contexts for pg in ctx.pages]
    try:
        b.new_browser_cdp_session()
        out["browser_cdp"] = "allowed"
    except Exception as e:
        out["browser_cdp"] = "refused: " + str(e)
    s = page.context.new_cdp_session(page)
    for method in ("Target.getTargets", "Target.attachToTarget", "Target.setDiscoverTargets"):
        try:
            r = s.send(method, {"targetId": "x"} if method == "Target.attachToTarget" else ({"discover": True} if method == "Target.setDiscoverTargets" else {}))
            out[method] = "allowed: " + json.dumps(r)[:200]
        except Exception as e:
            out[method] = "refused"
    out["downloads_seen"] = downloads
    try:
        page.goto("chrome://crash", timeout=5000)
        out["crash"] = "no error"
    except Exception as e:
        out["crash"] = type(e).__name__ + ": " + str(e)[:120]
    try:
        page.evaluate("1")
        out["after_crash"] = "alive"
    except Exception as e:
        out["after_crash"] = type(e).__name__ + ": " + str(e)[:120]
    open(os.path.join(flags, "b-done"), "w").close()
    b.close()
print(json.dumps(out))
`

// Two scripts in one warm browser, at the same time, see nothing of each
// other's: cookies, storage, pages, downloads; the browser-level CDP
// session and target discovery that would reach the other's context are
// refused; B crashing its renderer leaves A's page working. One Chromium
// serves both.
func TestWarmBrowserIsolatesScripts(t *testing.T) {
	srv, _ := warmSite(t)
	_, warm, env := warmDrivers(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var a, b map[string]any
	var aErr, bErr error
	wg.Add(2)
	go func() { defer wg.Done(); a, aErr = runPy(ctx, t, env, dir, "a.py", warmScriptA, srv.URL, dir) }()
	go func() { defer wg.Done(); b, bErr = runPy(ctx, t, env, dir, "b.py", warmScriptB, srv.URL, dir) }()
	wg.Wait()
	if aErr != nil || bErr != nil {
		t.Fatalf("a: %v\nb: %v", aErr, bErr)
	}
	t.Logf("a: %v", a)
	t.Logf("b: %v", b)
	if fmt.Sprint(b["cookies"]) != "[]" || fmt.Sprint(b["cookies_for_url"]) != "[]" || b["storage"] != nil || b["session"] != nil {
		t.Errorf("B saw A's cookies or storage: %v", b)
	}
	if pages := fmt.Sprint(b["pages"]); strings.Contains(pages, "/set") || strings.Count(pages, "http") != 1 {
		t.Errorf("B's browser lists pages not its own: %s", pages)
	}
	if !strings.HasPrefix(fmt.Sprint(b["browser_cdp"]), "refused") {
		t.Errorf("a browser-level CDP session on the warm browser: %v", b["browser_cdp"])
	}
	for _, m := range []string{"Target.getTargets", "Target.attachToTarget", "Target.setDiscoverTargets"} {
		if b[m] != "refused" {
			t.Errorf("%s from a page session: %v", m, b[m])
		}
	}
	if fmt.Sprint(b["downloads_seen"]) != "[]" {
		t.Errorf("B saw downloads: %v", b["downloads_seen"])
	}
	if !strings.Contains(fmt.Sprint(b["after_crash"]), "rash") {
		t.Errorf("B's renderer did not crash: %v, then %v", b["crash"], b["after_crash"])
	}
	if fmt.Sprint(a["cookies"]) != "[a]" || a["storage"] != "a" || a["title"] != "set" || a["after_reload"] != "set" ||
		a["download"] != "data of a.txt" || a["pages"] != 1.0 {
		t.Errorf("A's own state after B ran and crashed: %v", a)
	}
	if n := warm.started.Load(); n != 1 {
		t.Errorf("%d Chromium launches for two scripts, want 1", n)
	}
	if warm.pid() == 0 {
		t.Errorf("the warm browser did not outlive B's crash")
	}
}

// A later launch (the gate's final run after an exploration) is from
// scratch: none of the earlier script's cookies, storage, IndexedDB, HTTP
// cache, Cache API, service workers or permissions.
func TestWarmBrowserLaterLaunchIsFresh(t *testing.T) {
	srv, hits := warmSite(t)
	_, warm, env := warmDrivers(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const src = `
import json, sys
from playwright.sync_api import sync_playwright
base, set_state = sys.argv[1], sys.argv[2] == "set"
with sync_playwright() as p:
    b = p.chromium.launch()
    page = b.new_page()
    out = {}
    page.goto(base + "/page")
    out["cookies_before"] = [c["value"] for c in page.context.cookies()]
    out["storage_before"] = page.evaluate("localStorage.getItem('who')")
    out["idb_before"] = page.evaluate("indexedDB.databases().then(l => l.map(d => d.name))")
    out["sw_before"] = page.evaluate("navigator.serviceWorker.getRegistrations().then(l => l.length)")
    out["caches_before"] = page.evaluate("caches.keys()")
    if set_state:
        page.goto(base + "/set?who=explore")
        page.evaluate("localStorage.setItem('who', 'explore')")
        page.evaluate("new Promise(r => { const q = indexedDB.open('explore'); q.onsuccess = () => r(); })")
        page.context.grant_permissions(["geolocation"])
        page.evaluate("navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready)")
        page.evaluate("caches.open('explore').then(c => c.put('/x', new Response('x')))")
        out["sw_set"] = page.evaluate("navigator.serviceWorker.getRegistrations().then(l => l.length)")
    out["geo"] = page.evaluate("navigator.permissions.query({name: 'geolocation'}).then(s => s.state)")
    b.close()
print(json.dumps(out))
`
	first, err := runPy(ctx, t, env, dir, "explore.py", src, srv.URL, "set")
	if err != nil {
		t.Fatal(err)
	}
	hitsAfterFirst := hits.Load()
	final, err := runPy(ctx, t, env, dir, "final.py", src, srv.URL, "read")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("exploration: %v; final: %v; cache hits %d then %d", first, final, hitsAfterFirst, hits.Load())
	if first["geo"] != "granted" || first["sw_set"] != 1.0 {
		t.Errorf("the exploration's grant or service worker did not take: %v", first)
	}
	if fmt.Sprint(final["cookies_before"]) != "[]" || final["storage_before"] != nil || fmt.Sprint(final["idb_before"]) != "[]" ||
		final["geo"] == "granted" || final["sw_before"] != 0.0 || fmt.Sprint(final["caches_before"]) != "[]" {
		t.Errorf("the final run saw the exploration's state: %v", final)
	}
	if hits.Load() != hitsAfterFirst+1 {
		t.Errorf("the final run's /cached came from the exploration's HTTP cache (%d requests, then %d)", hitsAfterFirst, hits.Load())
	}
	if n := warm.started.Load(); n != 1 {
		t.Errorf("%d Chromium launches, want 1", n)
	}
}

// A warm browser that dies is started again for the next launch; the
// script that was using it gets an error, not a hang.
func TestWarmBrowserRestartsAfterDeath(t *testing.T) {
	srv, _ := warmSite(t)
	_, warm, env := warmDrivers(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const src = `
import json, os, sys, time
from playwright.sync_api import sync_playwright
base, flags = sys.argv[1], sys.argv[2]
with sync_playwright() as p:
    b = p.chromium.launch()
    page = b.new_page()
    page.goto(base + "/page")
    out = {"title": page.title()}
    if len(sys.argv) > 3:
        open(os.path.join(flags, "up"), "w").close()
        time.sleep(0.2)
        for _ in range(100):
            if os.path.exists(os.path.join(flags, "killed")):
                break
            time.sleep(0.05)
        try:
            page.title()
            out["after"] = "worked"
        except Exception as e:
            out["after"] = type(e).__name__
    try:
        b.close()
    except Exception:
        pass
print(json.dumps(out))
`
	done := make(chan struct{})
	var first map[string]any
	var firstErr error
	go func() {
		defer close(done)
		first, firstErr = runPy(ctx, t, env, dir, "one.py", src, srv.URL, dir, "wait")
	}()
	for i := 0; i < 400; i++ {
		if _, err := os.Stat(filepath.Join(dir, "up")); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	warm.mu.Lock()
	wp := warm.proc
	warm.mu.Unlock()
	if wp == nil {
		t.Fatal("no warm browser")
	}
	wp.p.Kill()
	<-wp.gone
	os.WriteFile(filepath.Join(dir, "killed"), nil, 0o644)
	<-done
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	if first["after"] != "TargetClosed" && first["after"] != "TargetClosedError" {
		t.Errorf("the script whose browser died: %v", first)
	}
	second, err := runPy(ctx, t, env, dir, "two.py", src, srv.URL, dir)
	if err != nil {
		t.Fatal(err)
	}
	if second["title"] != "page" || warm.started.Load() != 2 {
		t.Errorf("after the death: %v, %d launches", second, warm.started.Load())
	}
}

// The bench's rerun of a final script reads the page it ended on through
// the warm driver's probe (ProbeScripts), starting no Chromium of its own.
func TestProbeScriptsReadTheLastPage(t *testing.T) {
	srv, _ := warmSite(t)
	lib := t.TempDir()
	if _, err := python.Install(lib); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	req := &probe.Request{Exprs: []string{"document.title", "location.pathname"}, Out: filepath.Join(dir, "probe.json")}
	cfg, err := config.Load(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := StartProbeScripts(cfg, dir, "", req)
	if err != nil || ps == nil {
		t.Fatalf("start: %v", err)
	}
	defer ps.Close()
	env := append(os.Environ(), "PYTHONPATH="+lib, "PYTHONDONTWRITEBYTECODE=1", "WRIGHT_BIN=/nonexistent-so-a-cold-launch-fails",
		DriverWarmEnv+"="+ps.Vars()[DriverWarmEnv])
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const src = `
import json, sys
from wright_browser import launch
with launch() as browser:
    page = browser.new_page()
    page.goto(sys.argv[1] + "/page")
print(json.dumps({"ok": True}))
`
	if _, err := runPy(ctx, t, env, dir, "final_script.py", src, srv.URL); err != nil {
		t.Fatal(err)
	}
	ps.Close()
	b, err := os.ReadFile(req.Out)
	if err != nil {
		t.Fatalf("no probe written: %v", err)
	}
	var got probe.Result
	if err := json.Unmarshal(b, &got); err != nil || len(got.Values) != 2 || string(got.Values[0].Value) != `"page"` || string(got.Values[1].Value) != `"/page"` {
		t.Errorf("probe: %s (%v)", b, err)
	}
	if n := ps.d.warm.started.Load(); n != 1 {
		t.Errorf("%d Chromium launches, want 1", n)
	}
}
