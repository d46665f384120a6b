package trace

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"wright/browser"
)

// readZip returns a trace.zip's entries.
func readZip(t *testing.T, path string) map[string][]byte {
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
		data, _ := io.ReadAll(rc)
		rc.Close()
		out[f.Name] = data
	}
	return out
}

// events parses one JSON event per line.
func events(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, ev)
	}
	return out
}

// TestChunkZip: one chunk's actions, snapshots, console, network, groups,
// screenshot and sources land in the zip as the viewer reads them.
func TestChunkZip(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "script.py")
	if err := os.WriteFile(src, []byte("page.goto(url)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := New("", Options{Snapshots: true, BrowserName: "chromium", SDKLanguage: "python"})
	if _, err := r.StopChunk(); err == nil {
		t.Fatal("StopChunk without a chunk: no error")
	}
	name, err := r.StartChunk("", "my title")
	if err != nil || name != "trace" {
		t.Fatalf("StartChunk: %q %v", name, err)
	}
	r.Group("outer", nil)
	snap := &Snapshot{HTML: json.RawMessage(`["HTML",{},["BODY",{},"hi"]]`), Viewport: Size{800, 600}, URL: "http://x/"}
	id := r.Begin(Action{Class: "Frame", Method: "goto", Params: json.RawMessage(`{"url":"http://x/"}`), PageID: "p1",
		Stack: []StackFrame{{File: src, Line: 1}}}, snap)
	r.Observe(&browser.ConsoleEvent{PageEvent: browser.PageEvent{Page: "p1"}, Type: "log", Text: "hello"})
	r.Observe(&browser.RequestEvent{PageEvent: browser.PageEvent{Page: "p1"},
		RequestInfo: browser.RequestInfo{Request: "r1", URL: "http://x/?a=1", Method: "GET"}, Frame: "p1"})
	r.Observe(&browser.ResponseEvent{PageEvent: browser.PageEvent{Page: "p1"}, Request: "r1", Status: 200, StatusText: "OK"})
	r.Observe(&browser.RequestFinishedEvent{PageEvent: browser.PageEvent{Page: "p1"}, Request: "r1"})
	r.End(id, "", "p1", snap, &Screenshot{JPEG: []byte("jpeg"), Width: 800, Height: 600})
	// left open: the chunk's end closes it
	r.Group("left open", nil)
	a, err := r.StopChunk()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "out", "trace.zip")
	if err := a.WriteZip(path, []string{src, filepath.Join(dir, "gone.py")}); err != nil {
		t.Fatal(err)
	}
	entries := readZip(t, path)
	if string(entries[SourceEntry(src)]) != "page.goto(url)\n" {
		t.Errorf("source entry %s missing: %v", SourceEntry(src), keys(entries))
	}
	if _, ok := entries["resources/"+sha1Hex([]byte("jpeg"))]; !ok {
		t.Errorf("screenshot resource missing: %v", keys(entries))
	}
	evs := events(t, entries["trace.trace"])
	if evs[0]["type"] != "context-options" || evs[0]["version"] != float64(FormatVersion) || evs[0]["title"] != "my title" {
		t.Errorf("first event: %v", evs[0])
	}
	count := map[string]int{}
	for _, ev := range evs {
		count[ev["type"].(string)]++
		if ev["type"] == "before" && ev["method"] == "goto" {
			if ev["parentId"] == nil || ev["beforeSnapshot"] != "before@"+id {
				t.Errorf("goto: %v", ev)
			}
		}
	}
	want := map[string]int{"context-options": 1, "before": 3, "after": 3, "frame-snapshot": 2, "console": 1, "screencast-frame": 1}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%d %s events, want %d (%v)", count[k], k, n, count)
		}
	}
	net := events(t, entries["trace.network"])
	if len(net) != 1 || net[0]["type"] != "resource-snapshot" {
		t.Fatalf("network: %v", net)
	}
	entry := net[0]["snapshot"].(map[string]any)
	if entry["request"].(map[string]any)["url"] != "http://x/?a=1" || entry["response"].(map[string]any)["status"] != float64(200) || entry["_frameref"] != "p1" {
		t.Errorf("resource: %v", entry)
	}
	// a second chunk starts afresh, under the next name
	if name, _ := r.StartChunk("", ""); name != "trace-1" {
		t.Errorf("second chunk named %q", name)
	}
	if err := a.WriteFiles(filepath.Join(dir, "traces")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"trace.trace", "trace.network"} {
		if _, err := os.Stat(filepath.Join(dir, "traces", f)); err != nil {
			t.Error(err)
		}
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
