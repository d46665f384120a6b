package driver

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
	"time"

	"wright/browser"
	"wright/browser/har"
	"wright/env"
	"wright/trust/secrets"
)

// The hostile cases of issue 34 against the driver's files, tried as a
// model that talks to the driver directly would: a driver confined to a
// folder (FileRoot, as a sandboxed workspace run's and a live run's are)
// writes nothing outside it, reads nothing outside it, and follows no link
// planted in it, whatever the method and whatever its param is called.

// hostileRoot is a confined folder with a planted link to a host folder
// holding a host file, and that host file.
type hostileRoot struct {
	root, host, hostFile string
}

func newHostileRoot(t *testing.T) hostileRoot {
	t.Helper()
	root, host := t.TempDir(), t.TempDir()
	hostFile := filepath.Join(host, "id_host")
	if err := os.WriteFile(hostFile, []byte("HOST-FILE-CONTENT"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(host, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(hostFile, filepath.Join(root, "innocent.txt")); err != nil {
		t.Fatal(err)
	}
	return hostileRoot{root: root, host: host, hostFile: hostFile}
}

// outside are the places a hostile client names to get out of the root:
// another folder, a climb out of it, and through each planted link.
func (h hostileRoot) outside(name string) []string {
	return []string{
		filepath.Join(h.host, name),
		h.root + "/../" + filepath.Base(h.host) + "/" + name,
		filepath.Join(h.root, "out", name),
	}
}

// hostUntouched fails if the host folder holds anything but its own file.
func (h hostileRoot) hostUntouched(t *testing.T) {
	t.Helper()
	entries, _ := os.ReadDir(h.host)
	for _, e := range entries {
		if e.Name() != "id_host" && e.Name() != "replay.har" {
			t.Errorf("the driver wrote %s outside its folder", filepath.Join(h.host, e.Name()))
		}
	}
	if b, _ := os.ReadFile(h.hostFile); string(b) != "HOST-FILE-CONTENT" {
		t.Errorf("the host file was changed: %q", b)
	}
}

func refusedAsInvalid(t *testing.T, c *rpc, method string, params map[string]any) {
	t.Helper()
	a := c.wait(c.send(method, params))
	if a.Error == nil {
		t.Errorf("%s %v: done, want a refusal", method, params)
		return
	}
	if strings.Contains(a.Error.Message, "HOST-FILE-CONTENT") {
		t.Errorf("%s: the refusal carries the host file: %s", method, a.Error.Message)
	}
}

func TestHostileFilesConfined(t *testing.T) {
	h := newHostileRoot(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>form</title><input id=f type=file multiple><p id=got></p>
<script>f.addEventListener('change', async () => { got.textContent = (await Promise.all([...f.files].map(x => x.text()))).join('|'); });</script>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, _, _, _ := pipeDriverWith(t, ServerOptions{FileRoot: h.root})
	c.call("browser.launch", map[string]any{})
	page := c.call("browser.new_page", map[string]any{})["page"]
	c.call("page.goto", map[string]any{"page": page, "url": srv.URL + "/form"})

	cases := 0
	for _, p := range h.outside("x.png") {
		cases++
		refusedAsInvalid(t, c, "page.screenshot", map[string]any{"page": page, "path": p})
		cases++
		refusedAsInvalid(t, c, "locator.screenshot", map[string]any{"page": page, "selector": "#f", "path": p})
	}
	for _, p := range h.outside("x.har") {
		cases++
		refusedAsInvalid(t, c, "har.record_start", map[string]any{"browser": "b1", "path": p})
	}
	// A planted link as the file itself: refused, or replaced, never written through.
	cases++
	refusedAsInvalid(t, c, "har.record_start", map[string]any{"browser": "b1", "path": filepath.Join(h.root, "innocent.txt")})
	cases++
	if a := c.wait(c.send("page.screenshot", map[string]any{"page": page, "path": filepath.Join(h.root, "innocent.txt")})); a.Error == nil {
		if fi, err := os.Lstat(filepath.Join(h.root, "innocent.txt")); err != nil || fi.Mode()&os.ModeSymlink != 0 {
			t.Errorf("a screenshot over a planted link: %v %v", fi, err)
		}
	}
	for _, p := range h.outside("x.webm") {
		cases++
		refusedAsInvalid(t, c, "page.video_start", map[string]any{"page": page, "dir": filepath.Dir(p)})
	}
	// Uploads: a host file by its own path, through a planted link to it,
	// and through a planted link to its folder.
	if err := os.Symlink(h.hostFile, filepath.Join(h.root, "innocent2.txt")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{h.hostFile, filepath.Join(h.root, "innocent2.txt"), filepath.Join(h.root, "out", "id_host")} {
		cases++
		refusedAsInvalid(t, c, "locator.set_input_files", map[string]any{"page": page, "selector": "#f", "paths": []string{p}})
	}
	if got := c.call("page.evaluate", map[string]any{"page": page, "expression": "() => got.textContent"})["value"]; got != "" {
		t.Errorf("the page received %q", got)
	}
	// A HAR outside, and a HAR inside whose attached body is a planted link.
	hostHAR := filepath.Join(h.host, "replay.har")
	writeHARWithBody(t, hostHAR, "body.txt")
	cases++
	refusedAsInvalid(t, c, "har.open", map[string]any{"path": hostHAR})
	inHAR := filepath.Join(h.root, "replay.har")
	writeHARWithBody(t, inHAR, "innocent2.txt")
	opened := c.call("har.open", map[string]any{"path": inHAR})
	cases++
	look := c.call("har.lookup", map[string]any{"har": opened["har"], "url": "http://shop.example/secret.txt", "method": "GET"})
	if b, _ := json.Marshal(look); strings.Contains(string(b), base64.StdEncoding.EncodeToString([]byte("HOST-FILE-CONTENT"))) || strings.Contains(string(b), "HOST-FILE-CONTENT") {
		t.Errorf("har.lookup served the host file through a link: %s", b)
	}
	// A trace: to a host path, its traces_dir through a link, and a host
	// file named as a source.
	c.call("tracing.start", map[string]any{"name": "t"})
	c.call("tracing.start_chunk", map[string]any{})
	for _, p := range h.outside("trace.zip") {
		cases++
		refusedAsInvalid(t, c, "tracing.stop_chunk", map[string]any{"path": p})
		c.call("tracing.start_chunk", map[string]any{})
	}
	cases++
	refusedAsInvalid(t, c, "tracing.stop_chunk", map[string]any{"traces_dir": filepath.Join(h.root, "out")})
	c.call("tracing.start_chunk", map[string]any{})
	cases++
	zipPath := filepath.Join(h.root, "traces", "t.zip")
	c.call("tracing.stop_chunk", map[string]any{"path": zipPath, "sources": []string{h.hostFile, filepath.Join(h.root, "innocent2.txt")}})
	for name, data := range zipMembers(t, zipPath) {
		if strings.Contains(string(data), "HOST-FILE-CONTENT") {
			t.Errorf("the trace holds the host file as %s", name)
		}
	}
	h.hostUntouched(t)
	t.Logf("%d hostile file requests refused", cases)

	// What lies inside, without links, still works.
	mine := filepath.Join(h.root, "up", "mine.txt")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.call("locator.set_input_files", map[string]any{"page": page, "selector": "#f", "paths": []string{mine}})
	c.call("page.wait_for_selector", map[string]any{"page": page, "selector": "#got:has-text('mine')"})
	shot := filepath.Join(h.root, "shots", "a.png")
	c.call("page.screenshot", map[string]any{"page": page, "path": shot})
	if b, err := os.ReadFile(shot); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("a screenshot inside: %v", err)
	}
}

// writeHARWithBody writes a HAR whose one entry's body is the attached
// file body beside it.
func writeHARWithBody(t *testing.T, path, body string) {
	t.Helper()
	h := map[string]any{"log": map[string]any{"version": "1.2", "creator": map[string]any{"name": "t", "version": "1"},
		"entries": []any{map[string]any{
			"startedDateTime": "2026-01-01T00:00:00Z", "time": 1,
			"request":  map[string]any{"method": "GET", "url": "http://shop.example/secret.txt", "httpVersion": "HTTP/1.1", "headers": []any{}, "queryString": []any{}, "cookies": []any{}, "headersSize": -1, "bodySize": 0},
			"response": map[string]any{"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": []any{}, "cookies": []any{}, "redirectURL": "", "headersSize": -1, "bodySize": -1, "content": map[string]any{"size": -1, "mimeType": "text/plain", "_file": body}},
			"cache":    map[string]any{}, "timings": map[string]any{"send": 0, "wait": 0, "receive": 0},
		}}}}
	b, _ := json.Marshal(h)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func zipMembers(t *testing.T, path string) map[string][]byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	return out
}

// A guarded CDP session cannot hand the page a host file by a drag, nor
// run code in a world other than the page's own (where it could lie to
// the secret guard about the focus).
func TestHostileCDPConfined(t *testing.T) {
	h := newHostileRoot(t)
	c, _, _, _ := pipeDriverWith(t, ServerOptions{FileRoot: h.root})
	c.call("browser.launch", map[string]any{})
	page := c.call("browser.new_page", map[string]any{})["page"]
	sess := c.call("cdp.new_session", map[string]any{"page": page})["session"]
	hostile := []struct {
		method string
		params map[string]any
	}{
		{"Input.dispatchDragEvent", map[string]any{"type": "drop", "x": 5, "y": 5, "data": map[string]any{"items": []any{}, "files": []string{h.hostFile}, "dragOperationsMask": 1}}},
		{"DOM.setFileInputFiles", map[string]any{"files": []string{h.hostFile}, "nodeId": 1}},
		{"Page.setDownloadBehavior", map[string]any{"behavior": "allow", "downloadPath": h.host}},
		{"Browser.setDownloadBehavior", map[string]any{"behavior": "allow", "downloadPath": h.host}},
		{"Tracing.start", map[string]any{}},
		{"Page.captureSnapshot", map[string]any{}},
		{"IO.read", map[string]any{"handle": "1"}},
		{"Runtime.evaluate", map[string]any{"expression": "1", "contextId": 2}},
		{"Runtime.evaluate", map[string]any{"expression": "1", "uniqueContextId": "x"}},
		{"Runtime.callFunctionOn", map[string]any{"functionDeclaration": "() => 1", "executionContextId": 2}},
		{"Runtime.compileScript", map[string]any{"expression": "1", "sourceURL": "", "persistScript": true, "executionContextId": 2}},
		{"Runtime.addBinding", map[string]any{"name": "x", "executionContextName": browser.GuardWorld()}},
		{"DOM.resolveNode", map[string]any{"backendNodeId": 1, "executionContextId": 2}},
		{"Page.createIsolatedWorld", map[string]any{"frameId": "x", "worldName": browser.GuardWorld()}},
		{"Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": "1", "worldName": "wright"}},
		{"Debugger.evaluateOnCallFrame", map[string]any{"callFrameId": "1", "expression": "1"}},
		{"Debugger.setScriptSource", map[string]any{"scriptId": "1", "scriptSource": "1"}},
		{"HeapProfiler.getObjectByHeapObjectId", map[string]any{"objectId": "1"}},
	}
	for _, hc := range hostile {
		c.fail("cdp.send", map[string]any{"session": sess, "method": hc.method, "params": hc.params}, codeServer, browser.ErrBlockedURL, hc.method)
	}
	// The page's own world and a drag without files stay usable.
	res := c.call("cdp.send", map[string]any{"session": sess, "method": "Runtime.evaluate", "params": map[string]any{"expression": "6*7", "returnByValue": true}})
	if b, _ := json.Marshal(res); !strings.Contains(string(b), "42") {
		t.Errorf("Runtime.evaluate in the page: %s", b)
	}
	c.call("cdp.send", map[string]any{"session": sess, "method": "Input.dispatchDragEvent", "params": map[string]any{"type": "dragCancel", "x": 5, "y": 5, "data": map[string]any{"items": []any{}, "dragOperationsMask": 1}}})
	t.Logf("%d hostile CDP requests refused", len(hostile))
}

// runSecrets is a run's secrets as the driver gets them (env.BrowserSecrets),
// one write-only value typed only on 127.0.0.1.
func runSecrets(t *testing.T, value string) (browser.SecretSource, *secrets.Set) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(f, []byte(value), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := secrets.Load(map[string]secrets.Spec{"pw": {File: f, Domains: []string{"127.0.0.1"}}})
	if err != nil {
		t.Fatal(err)
	}
	return env.BrowserSecrets(set), set
}

// A typed secret goes to its own host in a form, in a URL and in an
// Authorization: Basic header: the HAR and the trace the model asked for
// hold none of it (as typed, URL-encoded or base64) when they are written,
// and no CDP event the client gets carries it either.
func TestHostileRecordingsHoldNoSecret(t *testing.T) {
	const value = "Hunter2-Tr0ub4dor&3 x"
	src, _ := runSecrets(t, value)
	mux := http.NewServeMux()
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>login</title><input id=pw>
<button id=go onclick="const v = pw.value; fetch('/api?pw=' + encodeURIComponent(v), {method: 'POST', headers: {Authorization: 'Basic ' + btoa('alice:' + v)}, body: 'pw=' + encodeURIComponent(v)}).then(() => done.textContent = 'sent')">go</button><p id=done></p>`)
	})
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "echo %s %s", r.URL.RawQuery, b)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	root := t.TempDir()
	opts := ServerOptions{FileRoot: root}
	opts.Browser.Secrets = src
	c, _, _, _ := pipeDriverWith(t, opts)
	c.call("browser.launch", map[string]any{})
	page := c.call("browser.new_page", map[string]any{})["page"]
	sess := c.call("cdp.new_session", map[string]any{"page": page})["session"]
	c.call("cdp.send", map[string]any{"session": sess, "method": "Network.enable"})
	harPath := filepath.Join(root, "rec.har")
	zipHAR := filepath.Join(root, "rec.zip")
	rec := c.call("har.record_start", map[string]any{"browser": "b1", "path": harPath})["har"]
	recZip := c.call("har.record_start", map[string]any{"browser": "b1", "path": zipHAR})["har"]
	c.call("tracing.start", map[string]any{"name": "t", "snapshots": true})
	c.call("tracing.start_chunk", map[string]any{})
	c.call("page.goto", map[string]any{"page": page, "url": srv.URL + "/login"})
	c.call("locator.fill", map[string]any{"page": page, "selector": "#pw", "value": "<secret>pw</secret>"})
	c.call("locator.click", map[string]any{"page": page, "selector": "#go"})
	c.call("page.wait_for_selector", map[string]any{"page": page, "selector": "#done:has-text('sent')"})
	c.call("har.record_export", map[string]any{"har": rec})
	c.call("har.record_export", map[string]any{"har": recZip})
	tracePath := filepath.Join(root, "trace.zip")
	c.call("tracing.stop_chunk", map[string]any{"path": tracePath})

	forms := []string{value, url.QueryEscape(value), url.PathEscape(value),
		base64.StdEncoding.EncodeToString([]byte("alice:" + value))[8:24]}
	check := func(what string, data []byte) {
		t.Helper()
		for _, f := range forms {
			if bytes.Contains(data, []byte(f)) {
				t.Errorf("%s holds the secret as %q", what, f)
			}
		}
	}
	harData, err := os.ReadFile(harPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(harData, []byte("/api?pw=")) || !bytes.Contains(harData, []byte("<secret>pw</secret>")) {
		t.Errorf("the HAR lacks the request or its placeholder:\n%.2000s", harData)
	}
	check("rec.har", harData)
	for name, data := range zipMembers(t, zipHAR) {
		check("rec.zip "+name, data)
	}
	members := zipMembers(t, tracePath)
	if len(members["trace.network"]) == 0 {
		t.Errorf("the trace has no network: %v", len(members))
	}
	for name, data := range members {
		check("trace.zip "+name, data)
	}
	// The CDP events the client got (requestWillBeSentExtraInfo carries
	// the Authorization header as sent).
	sawExtra := false
	for len(c.events) > 0 {
		ev := <-c.events
		if strings.Contains(string(ev.Params), "Basic YWxpY2U6") {
			sawExtra = true // the header, its value redacted
		}
		if os.Getenv("HOSTILE_DEBUG") != "" && strings.Contains(string(ev.Params), "SHVudGVy") {
			t.Logf("%s", ev.Params)
		}
		check("the event "+ev.Method, ev.Params)
	}
	if !sawExtra {
		t.Error("no CDP event carried the Authorization header: the redaction of events was not tried")
	}
	// A recording read back by route_from_har is still usable.
	a, err := har.Open(harPath)
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
}

// Issue 34's attack on the secret guard as a model would make it through
// the driver: with the focus in a localhost iframe of a 127.0.0.1 page, it
// opens a CDP session, learns the execution contexts from
// Runtime.executionContextCreated, and evaluates a lie about
// document.activeElement into every one of them before typing a secret
// meant for 127.0.0.1. Every evaluation outside the page's own world is
// refused, and not one character reaches the iframe.
func TestHostileCDPCannotFoolTheSecretGuard(t *testing.T) {
	const value = "Guard-S3cret-16ch"
	src, _ := runSecrets(t, value)
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
	opts := ServerOptions{}
	opts.Browser.Secrets = src
	c, _, _, _ := pipeDriverWith(t, opts)
	c.call("browser.launch", map[string]any{})
	page := c.call("browser.new_page", map[string]any{})["page"]
	c.call("page.goto", map[string]any{"page": page, "url": srv.URL + "/top"})
	inner := "#f >> internal:control=enter-frame >> #in"
	c.call("locator.focus", map[string]any{"page": page, "selector": inner})
	sess := c.call("cdp.new_session", map[string]any{"page": page})["session"]
	for len(c.events) > 0 {
		<-c.events
	}
	c.call("cdp.send", map[string]any{"session": sess, "method": "Runtime.enable"})
	// Contexts are announced as Runtime.enable answers; give them a moment.
	contexts := map[float64]string{}
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case ev := <-c.events:
			var p struct {
				Method string `json:"method"`
				Params struct {
					Context struct {
						ID       float64 `json:"id"`
						UniqueID string  `json:"uniqueId"`
						Name     string  `json:"name"`
					} `json:"context"`
				} `json:"params"`
			}
			if json.Unmarshal(ev.Params, &p) == nil && p.Method == "Runtime.executionContextCreated" {
				contexts[p.Params.Context.ID] = p.Params.Context.UniqueID
			}
		case <-time.After(200 * time.Millisecond):
		}
	}
	if len(contexts) < 2 {
		t.Fatalf("the session saw %d contexts; the attack needs the isolated worlds", len(contexts))
	}
	const lie = `Object.defineProperty(Document.prototype, 'activeElement', {get() { return null; }, configurable: true}); 1`
	refused := 0
	for id, unique := range contexts {
		for _, params := range []map[string]any{
			{"expression": lie, "contextId": id},
			{"expression": lie, "uniqueContextId": unique},
		} {
			a := c.wait(c.send("cdp.send", map[string]any{"session": sess, "method": "Runtime.evaluate", "params": params}))
			if a.Error == nil {
				t.Errorf("Runtime.evaluate into context %v was run", id)
				continue
			}
			refused++
		}
	}
	// The page's own world may lie as it likes: the guard does not look there.
	c.call("cdp.send", map[string]any{"session": sess, "method": "Runtime.evaluate", "params": map[string]any{"expression": lie}})
	a := c.wait(c.send("page.keyboard.type", map[string]any{"page": page, "text": "<secret>pw</secret>"}))
	if a.Error == nil || !strings.Contains(a.Error.Message, "127.0.0.1") {
		t.Errorf("keyboard.type into the localhost iframe: %+v, want a refusal", a.Error)
	}
	if v := c.call("locator.input_value", map[string]any{"page": page, "selector": inner})["value"]; v != "" {
		t.Errorf("the localhost iframe holds %q", v)
	}
	t.Logf("%d contexts, %d evaluations into them refused", len(contexts), refused)
}
