package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A screenshot path must stay inside the workspace, even when the script
// swaps a directory for a link out of it (a HAR's path too: the driver
// writes outside the sandbox); launch flags are wright's.
func TestScriptDriverChecks(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "host.har"), filepath.Join(ws, "innocent.har")); err != nil {
		t.Fatal(err)
	}
	if err := writeBeneath(ws, filepath.Join(ws, "out", "x.png"), []byte("png")); err == nil {
		t.Error("a write through a link out of the workspace succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "x.png")); err == nil {
		t.Error("the file landed outside the workspace")
	}
	if err := writeBeneath(ws, filepath.Join(ws, "in.png"), []byte("png")); err != nil {
		t.Errorf("a write inside: %v", err)
	}
	o := &lineWriter{pending: map[string]string{}, ws: ws}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"page.screenshot","params":{"page":"p1","path":"/etc/x.png"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"page.screenshot","params":{"page":"p1","path":"` + ws + `/../x.png"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"browser.launch","params":{"args":["--renderer-cmd-prefix=/bin/sh"]}}`,
		`{"jsonrpc":"2.0","id":4,"method":"browser.launch","params":{"executable":"/bin/sh"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"page.trace","params":{"trace_file":"/tmp/x"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"apirequest.har_start","params":{"request":"api-1","path":"/etc/cron.d/x"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"har.record_start","params":{"browser":"b1","path":"` + ws + `/out/../../x.har"}}`,
		// Issue 34: params that are paths whatever they are called.
		`{"jsonrpc":"2.0","id":9,"method":"locator.set_input_files","params":{"page":"p1","selector":"#f","paths":["` + ws + `/ok.txt","/etc/passwd"]}}`,
		`{"jsonrpc":"2.0","id":10,"method":"page.video_start","params":{"page":"p1","dir":"/tmp/elsewhere"}}`,
		`{"jsonrpc":"2.0","id":11,"method":"tracing.stop_chunk","params":{"path":"` + ws + `/t.zip","sources":["/etc/passwd"]}}`,
		`{"jsonrpc":"2.0","id":12,"method":"tracing.stop_chunk","params":{"traces_dir":"/etc/cron.d"}}`,
		`{"jsonrpc":"2.0","id":13,"method":"har.open","params":{"path":"/root/x.har"}}`,
		`{"jsonrpc":"2.0","id":14,"method":"download.save_as","params":{"download":"d1","path":"relative/x"}}`,
		`{"jsonrpc":"2.0","id":15,"method":"page.video_save_as","params":{"page":"p1","path":"/etc/x.webm"}}`,
		`{"jsonrpc":"2.0","id":16,"method":"page.future_method","params":{"page":"p1","dir":"` + ws + `"}}`,
		// Through the planted link out of the workspace.
		`{"jsonrpc":"2.0","id":17,"method":"locator.set_input_files","params":{"page":"p1","selector":"#f","paths":["` + ws + `/out/id_host"]}}`,
		`{"jsonrpc":"2.0","id":18,"method":"page.video_start","params":{"page":"p1","dir":"` + ws + `/out/videos"}}`,
		`{"jsonrpc":"2.0","id":19,"method":"har.record_start","params":{"browser":"b1","path":"` + ws + `/out/new/x.har"}}`,
		`{"jsonrpc":"2.0","id":23,"method":"har.open","params":{"path":"` + ws + `/innocent.har"}}`,
	} {
		if fwd, refusal := o.check([]byte(line)); fwd != nil || refusal == nil || !strings.Contains(string(refusal), `"error"`) {
			t.Errorf("%s: forwarded %s", line, fwd)
		}
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":20,"method":"locator.set_input_files","params":{"page":"p1","selector":"#f","paths":["` + ws + `/ok.txt"]}}`,
		`{"jsonrpc":"2.0","id":21,"method":"page.video_start","params":{"page":"p1","dir":"` + ws + `/videos"}}`,
		`{"jsonrpc":"2.0","id":22,"method":"har.record_start","params":{"browser":"b1","path":"` + ws + `/x.har"}}`,
	} {
		if fwd, refusal := o.check([]byte(line)); refusal != nil || string(fwd) != line {
			t.Errorf("%s: refused %s (the driver's own policy checks it)", line, refusal)
		}
	}
	fwd, refusal := o.check([]byte(`{"jsonrpc":"2.0","id":6,"method":"page.screenshot","params":{"page":"p1","path":"` + ws + `/shots/a.png"}}`))
	if refusal != nil || strings.Contains(string(fwd), `"path"`) || !strings.Contains(string(fwd), `"jsonrpc":"2.0"`) || o.pending["6"] != ws+"/shots/a.png" {
		t.Errorf("an inside path: forwarded %s, refusal %s, pending %v", fwd, refusal, o.pending)
	}
}
