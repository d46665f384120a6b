package review

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"image"
	"image/jpeg"
	_ "image/png" // screenshots are PNG
	"path/filepath"
	"runtime"
	"sync"

	"golang.org/x/image/draw"
)

// thumbWidth is the width screenshots are scaled down to in a page: enough
// to read a page's layout and text, small enough that a 100-step run stays
// a few MB.
const thumbWidth = 640

// thumbs encodes each screenshot once per page, however often it is shown.
type thumbs struct {
	// root is the run directory: a screenshot is opened through Open, so a
	// link in the workspace shows nothing.
	root  string
	mu    sync.Mutex
	cache map[string]template.URL
	// Bytes is what the images add to the page.
	Bytes int
}

// dataURL is the screenshot at path as a downscaled JPEG data URL, or ""
// when it cannot be read (the caller says so in the page).
func (t *thumbs) dataURL(path string) template.URL {
	t.mu.Lock()
	u, ok := t.cache[path]
	t.mu.Unlock()
	if ok {
		return u
	}
	u, err := thumbnail(t.root, path, thumbWidth)
	if err != nil {
		u = ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cache == nil {
		t.cache = map[string]template.URL{}
	}
	if _, ok := t.cache[path]; !ok {
		t.cache[path] = u
		t.Bytes += len(u)
	}
	return u
}

// prefetch encodes the screenshots in parallel, one worker per CPU.
func (t *thumbs) prefetch(paths []string) {
	work := make(chan string)
	var wg sync.WaitGroup
	for range max(1, runtime.NumCPU()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				t.dataURL(p)
			}
		}()
	}
	for _, p := range paths {
		work <- p
	}
	close(work)
	wg.Wait()
}

func thumbnail(root, path string, width int) (template.URL, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return "", err
	}
	f, err := Open(root, rel)
	if err != nil {
		return "", err
	}
	defer f.Close()
	src, _, err := image.Decode(f)
	if err != nil {
		return "", fmt.Errorf("decode %s: %w", path, err)
	}
	b := src.Bounds()
	if b.Dx() > width {
		h := max(1, b.Dy()*width/b.Dx())
		dst := image.NewRGBA(image.Rect(0, 0, width, h))
		draw.BiLinear.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
		src = dst
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: 72}); err != nil {
		return "", fmt.Errorf("encode %s: %w", path, err)
	}
	return template.URL("data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())), nil
}
