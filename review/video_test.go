package review

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A final run's video/ folder: its .webm files are shown, played from the
// served file with range requests; a link planted there, and files of
// other kinds, are not.
func TestFinalRunVideos(t *testing.T) {
	dir := copyRun(t, fixture("finished"), t.TempDir())
	videos := filepath.Join(dir, "workspace", "final_runs", "run_1", "video")
	if err := os.MkdirAll(videos, 0o755); err != nil {
		t.Fatal(err)
	}
	clip := []byte("\x1a\x45\xdf\xa3 not really a video, but served as one")
	os.WriteFile(filepath.Join(videos, "page1.webm"), clip, 0o644)
	os.WriteFile(filepath.Join(videos, "notes.txt"), []byte("x"), 0o644)
	secret := filepath.Join(t.TempDir(), "outside.webm")
	os.WriteFile(secret, []byte("OUTSIDE-MARKER"), 0o644)
	if err := os.Symlink(secret, filepath.Join(videos, "planted.webm")); err != nil {
		t.Fatal(err)
	}

	r, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	fr := r.FinalRuns[len(r.FinalRuns)-1]
	want := "workspace/final_runs/run_1/video/page1.webm"
	if len(fr.Videos) != 1 || fr.Videos[0] != want {
		t.Fatalf("videos %q, want only %s", fr.Videos, want)
	}
	var page bytes.Buffer
	if err := WriteRunHTML(&page, r, HTMLOptions{FileBase: "files/"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `<video controls preload="metadata" src="files/`+want+`">`) || strings.Contains(page.String(), "planted.webm") {
		t.Fatalf("the page does not embed exactly the one video:\n%s", page.String())
	}
	if text, err := r.Markdown(TextOptions{}); err != nil || !strings.Contains(text, "video `"+want+"`") {
		t.Fatalf("the text review does not list the video:\n%s", text)
	}

	srv := httptest.NewServer(&Handler{Dir: dir, Token: "tok"})
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/tok/file/"+want, nil)
	req.Header.Set("Range", "bytes=0-3")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent || resp.Header.Get("Content-Type") != "video/webm" || !bytes.Equal(body, clip[:4]) {
		t.Fatalf("range request: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	resp, err = http.Get(srv.URL + "/tok/file/workspace/final_runs/run_1/video/planted.webm")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || bytes.Contains(body, []byte("OUTSIDE-MARKER")) {
		t.Fatalf("the planted link was served: %d %q", resp.StatusCode, body)
	}
}
