package secrets

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The end-of-run sweep opens zip members: a trace's trace.trace and
// trace.network and a zipped HAR hold the value compressed, where a byte
// search of the file cannot see it. The zip stays a zip, and its other
// members are kept as they were.
func TestRedactTreeOpensZips(t *testing.T) {
	const value = "Zip-S3cret-value!"
	set := loadOne(t, value, true)
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range map[string]string{
		"trace.trace":   strings.Repeat(`{"type":"input","value":"`+value+`"}`+"\n", 50),
		"trace.network": `{"request":{"url":"http://h/?pw=` + strings.ReplaceAll(value, "!", "%21") + `"}}`,
		"resources/a":   "nothing secret",
	} {
		w, _ := zw.Create(name)
		io.WriteString(w, body)
	}
	zw.Close()
	if bytes.Contains(buf.Bytes(), []byte(value)) {
		t.Fatal("the test's zip must hold the value compressed")
	}
	path := filepath.Join(dir, "traces", "t.zip")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	changed, err := set.RedactTree(dir)
	if err != nil || len(changed) != 1 || changed[0] != filepath.Join("traces", "t.zip") {
		t.Fatalf("RedactTree: %v %v", changed, err)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatalf("the redacted file is no zip: %v", err)
	}
	defer zr.Close()
	if len(zr.File) != 3 {
		t.Errorf("%d members, want 3", len(zr.File))
	}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		if strings.Contains(string(b), "S3cret") {
			t.Errorf("%s still holds the value: %.200s", f.Name, b)
		}
		if f.Name == "resources/a" && string(b) != "nothing secret" {
			t.Errorf("an untouched member changed: %q", b)
		}
		if f.Name == "trace.trace" && !strings.Contains(string(b), "<secret>pw</secret>") {
			t.Errorf("trace.trace has no placeholder: %.200s", b)
		}
	}
	// A second sweep finds nothing more.
	if again, _ := set.RedactTree(dir); len(again) != 0 {
		t.Errorf("a second sweep changed %v", again)
	}
}
