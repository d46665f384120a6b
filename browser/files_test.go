package browser

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSetInputFiles(t *testing.T) {
	p := open(t, "/files.html")
	one, many := loc(t, p, "#one"), loc(t, p, "#many")
	if err := one.SetInputFiles(bg, InputFiles{Paths: []string{"testdata/files/hello.txt"}}, 0); err != nil {
		t.Fatal(err)
	}
	got := eval[[]any](t, p, "(() => { const f = document.getElementById('one').files[0]; return [f.name, f.size, log.join(' ')] })()")
	if !reflect.DeepEqual(got, []any{"hello.txt", float64(18), "one:input one:change"}) {
		t.Fatalf("file from a path: %v", got)
	}
	payloads := []FilePayload{{Name: "a.txt", MimeType: "text/plain", Buffer: "QUFB"}, {Name: "b.json", MimeType: "application/json", Buffer: "e30="}}
	if err := many.SetInputFiles(bg, InputFiles{Payloads: payloads}, 0); err != nil {
		t.Fatal(err)
	}
	names := eval[[]string](t, p, "Promise.all([...document.getElementById('many').files].map(async f => f.name + '|' + f.type + '|' + await f.text()))")
	if !reflect.DeepEqual(names, []string{"a.txt|text/plain|AAA", "b.json|application/json|{}"}) {
		t.Fatalf("files from payloads: %v", names)
	}
	// A label stands for its input; no files clears it.
	if err := loc(t, p, "#lab").SetInputFiles(bg, InputFiles{}, 0); err != nil {
		t.Fatal(err)
	}
	if n := eval[int](t, p, "document.getElementById('one').files.length"); n != 0 {
		t.Fatalf("%d files after clearing", n)
	}
	err := one.SetInputFiles(bg, InputFiles{Payloads: payloads}, 0)
	wantType(t, err, ErrBrowser, "Non-multiple file input can only accept single file")
	err = loc(t, p, "#num").SetInputFiles(bg, InputFiles{Payloads: payloads[:1]}, 0)
	wantType(t, err, ErrBrowser, "type=file")
	err = one.SetInputFiles(bg, InputFiles{Paths: []string{"testdata/files/missing.txt"}}, 0)
	wantType(t, err, ErrInvalidParams, "missing.txt")
}

func TestFileChooser(t *testing.T) {
	p := open(t, "/files.html")
	ch := events(t, p)
	if err := p.InterceptFileChooser(bg, true); err != nil {
		t.Fatal(err)
	}
	if err := loc(t, p, "#many").Click(bg, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	e := waitEvent(t, ch, "FileChooserEvent", nil).(*FileChooserEvent)
	if !e.Multiple {
		t.Fatalf("chooser %+v", e)
	}
	h := loc(t, p, "handle="+e.Handle)
	if err := h.SetInputFiles(bg, InputFiles{Paths: []string{"testdata/files/hello.txt"}}, 0); err != nil {
		t.Fatal(err)
	}
	if n := eval[int](t, p, "document.getElementById('many').files.length"); n != 1 {
		t.Fatalf("%d files chosen", n)
	}
}

func TestDownload(t *testing.T) {
	p := open(t, "/files.html")
	if err := shared.DefaultContext().AcceptDownloads(bg, true); err != nil {
		t.Fatal(err)
	}
	ch := events(t, p)
	if err := loc(t, p, "#dl").Click(bg, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	e := waitEvent(t, ch, "DownloadEvent", nil).(*DownloadEvent)
	if e.SuggestedFilename != "greeting.txt" || !strings.HasSuffix(e.URL, "/files/hello.txt") {
		t.Fatalf("download event %+v", e)
	}
	d := shared.Download(e.Download)
	st, err := d.Wait(bg, 10*time.Second)
	if err != nil || st.Failure != "" {
		t.Fatalf("wait: %v %+v", err, st)
	}
	if b, err := os.ReadFile(st.Path); err != nil || string(b) != "hello from a file\n" {
		t.Fatalf("downloaded %q, %v", b, err)
	}
	to := filepath.Join(t.TempDir(), "sub", "copy.txt")
	if err := d.SaveAs(bg, to); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(to); err != nil || string(b) != "hello from a file\n" {
		t.Fatalf("saved %q, %v", b, err)
	}
	if err := d.Delete(bg); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(st.Path); !os.IsNotExist(err) {
		t.Fatalf("the download is still there: %v", err)
	}
}
