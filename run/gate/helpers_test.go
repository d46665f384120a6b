package gate

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// pngBytes is a small real PNG, so the judge's file checks and the model
// client's data URLs see what a browser would write.
func pngBytes(t testing.TB, shade uint8) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	for x := 0; x < 4; x++ {
		for y := 0; y < 3; y++ {
			img.Set(x, y, color.RGBA{shade, 100, 200, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// base is a fixed time in the past; files get explicit times relative to
// it, so freshness never depends on how fast the test runs.
var base = time.Now().Add(-time.Hour).Truncate(time.Second)

func setTime(t testing.TB, path string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// makeRun writes final_runs/<name> with a script, a log and the named
// screenshots, all dated base.
func makeRun(t testing.TB, ws, name string, shots ...string) string {
	t.Helper()
	dir := filepath.Join(ws, FinalRunsDir, name)
	writeFile(t, filepath.Join(dir, FinalScriptName), []byte("print('hi')\n"))
	writeFile(t, filepath.Join(dir, FinalLogName), []byte("hi\n"))
	setTime(t, filepath.Join(dir, FinalScriptName), base)
	setTime(t, filepath.Join(dir, FinalLogName), base)
	for i, s := range shots {
		p := filepath.Join(dir, ScreenshotsDir, s)
		writeFile(t, p, pngBytes(t, uint8(i*40)))
		setTime(t, p, base)
	}
	return dir
}

// writeVerdict writes a verdict into a run folder, dated base+1s. label is
// the raw JSON of predicted_label ("1", "0", "null"); images nil means the
// run's own screenshots.
func writeVerdict(t testing.TB, ws, runName, label, response string, images []string) string {
	t.Helper()
	dir := filepath.Join(ws, FinalRunsDir, runName)
	if images == nil {
		shots, err := RunScreenshots(dir)
		if err != nil {
			t.Fatal(err)
		}
		images = []string{}
		for _, s := range shots {
			images = append(images, RelToWorkspace(ws, s))
		}
	}
	v := map[string]any{
		"model":           "judge",
		"predicted_label": json.RawMessage(label),
		"final_response":  response,
		"image_paths":     images,
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, VerdictName)
	writeFile(t, p, data)
	setTime(t, p, base.Add(time.Second))
	return p
}
