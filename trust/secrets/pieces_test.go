package secrets

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSplitAndMayType(t *testing.T) {
	s := testSet(t)
	pieces, err := s.Split("user <secret>shop_pw</secret>!<secret>shop_otp</secret>")
	if err != nil {
		t.Fatal(err)
	}
	want := []Piece{{Text: "user "}, {Text: `pa"ss\wörd-1234`, Name: "shop_pw"}, {Text: "!"}, {Text: "287082", Name: "shop_otp"}}
	if len(pieces) != len(want) {
		t.Fatalf("pieces %+v, want %+v", pieces, want)
	}
	for i := range want {
		if pieces[i] != want[i] {
			t.Errorf("piece %d: %+v, want %+v", i, pieces[i], want[i])
		}
	}
	if _, err := s.Split("<secret>nope</secret>"); err == nil || !strings.Contains(err.Error(), "no secret named") {
		t.Errorf("unknown name: %v", err)
	}
	// Origins (what a frame's security origin looks like) and URLs alike.
	if err := s.MayType("shop_pw", "https://login.shop.example"); err != nil {
		t.Errorf("subdomain origin refused: %v", err)
	}
	for _, u := range []string{"http://localhost:8080", "https://shop.example.evil.test/", "null", "about:blank"} {
		if err := s.MayType("shop_pw", u); err == nil || strings.Contains(err.Error(), "wörd") {
			t.Errorf("%s: %v, want refused without the value", u, err)
		}
	}
}

func TestRedactURLForms(t *testing.T) {
	t.Setenv("SECRETS_TEST_URLPW", "s3cret pass/wörd&x=1")
	s, err := Load(map[string]Spec{"pw": {Env: "SECRETS_TEST_URLPW"}})
	if err != nil {
		t.Fatal(err)
	}
	v := "s3cret pass/wörd&x=1"
	q := url.Values{"password": {v}}.Encode()
	for _, text := range []string{
		"# ---- step 2 · on http://127.0.0.1:5/login?" + q + " ----",
		"http://127.0.0.1:5/p/" + url.PathEscape(v),
		"http://127.0.0.1:5/?" + strings.ToLower(q),
	} {
		out := s.Redact(text)
		if strings.Contains(out, "s3cret") || !strings.Contains(out, "<secret>pw</secret>") {
			t.Errorf("%s -> %s", text, out)
		}
	}
}

func TestWriteOnlyReads(t *testing.T) {
	t.Setenv("SECRETS_TEST_WO", "hunter2-abc")
	t.Setenv("SECRETS_TEST_RW", "readable-xyz")
	off := false
	s, err := Load(map[string]Spec{"wo": {Env: "SECRETS_TEST_WO"}, "rw": {Env: "SECRETS_TEST_RW", WriteOnly: &off}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.WriteOnly() {
		t.Fatal("write_only is not the default")
	}
	out := s.RedactReads(`{"value":"hunter2-abc","rev":"cba-2retnuh","rw":"readable-xyz"}`)
	if strings.Contains(out, "hunter2") || strings.Contains(out, "2retnuh") || strings.Count(out, "<secret>wo</secret>") != 2 {
		t.Errorf("write-only value read back: %s", out)
	}
	if !strings.Contains(out, "readable-xyz") {
		t.Errorf("write_only: false was redacted on read: %s", out)
	}
}

func TestRedactTree(t *testing.T) {
	s := testSet(t)
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside.txt")
	os.WriteFile(outside, []byte("tok-abcdef-987654"), 0o644)
	os.MkdirAll(filepath.Join(dir, "workspace", "steps"), 0o755)
	files := map[string]string{
		"workspace/script.py":        "# on http://x/?t=tok-abcdef-987654\n",
		"workspace/steps/page.html":  "<input value='tok-abcdef-987654'>",
		"workspace/clean.txt":        "nothing here",
		"debug/steps/step_0001.json": `{"url":"http://x/?pw=pa%22ss%5Cw%C3%B6rd-1234"}`,
	}
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o640)
	}
	os.Symlink(outside, filepath.Join(dir, "workspace", "link.txt"))
	changed, err := s.RedactTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != 3 {
		t.Errorf("changed %v, want the three files holding a value", changed)
	}
	for rel := range files {
		b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if strings.Contains(string(b), "tok-abcdef") || strings.Contains(string(b), "rd-1234") {
			t.Errorf("%s still holds a value: %s", rel, b)
		}
	}
	if fi, _ := os.Stat(filepath.Join(dir, "workspace", "script.py")); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode changed to %v", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(outside); string(b) != "tok-abcdef-987654" {
		t.Errorf("a file outside the tree was rewritten through a link: %s", b)
	}
}
