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

// shot is a screenshot as a page shows it: scaled down, and without the
// blank band a page shorter than the browser's viewport leaves at the
// bottom (a live run's viewport is 1280x1800, and most pages end far
// above that); a bench's thumbnail without the blank margins either side.
type shot struct {
	URL template.URL // a JPEG data URL; "" when the file cannot be read
	// W and H are the file's size; Shown is the part of it the page
	// shows: all of it, or less when blank bands are trimmed.
	W, H  int
	Shown image.Rectangle
}

// Note says what of the file the page does not show; "" when it shows
// all of it.
func (s shot) Note() string {
	switch {
	case s.Shown.Dx() < s.W:
		return fmt.Sprintf("%d×%d, its blank margins not shown", s.W, s.H)
	case s.Shown.Dy() < s.H:
		return fmt.Sprintf("%d×%d, blank below %d px not shown", s.W, s.H, s.Shown.Dy())
	}
	return ""
}

// thumbs encodes each screenshot once per page, however often it is shown.
type thumbs struct {
	// root is the run directory: a screenshot is opened through Open, so a
	// link in the workspace shows nothing.
	root  string
	mu    sync.Mutex
	cache map[string]shot
	// Bytes is what the images add to the page.
	Bytes int
}

// get is the screenshot at path, downscaled, its URL "" when it cannot
// be read (the caller says so in the page).
func (t *thumbs) get(path string) shot {
	t.mu.Lock()
	s, ok := t.cache[path]
	t.mu.Unlock()
	if ok {
		return s
	}
	s, err := thumbnail(t.root, path, thumbWidth, false)
	if err != nil {
		s = shot{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cache == nil {
		t.cache = map[string]shot{}
	}
	if _, ok := t.cache[path]; !ok {
		t.cache[path] = s
		t.Bytes += len(s.URL)
	}
	return s
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
				t.get(p)
			}
		}()
	}
	for _, p := range paths {
		work <- p
	}
	close(work)
	wg.Wait()
}

// thumbnail is the screenshot at path (below root), its blank bottom
// trimmed (and with sides its blank margins either side), scaled down to
// width and encoded as a JPEG data URL.
func thumbnail(root, path string, width int, sides bool) (shot, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return shot{}, err
	}
	f, err := Open(root, rel)
	if err != nil {
		return shot{}, err
	}
	defer f.Close()
	src, _, err := image.Decode(f)
	if err != nil {
		return shot{}, fmt.Errorf("decode %s: %w", path, err)
	}
	b := src.Bounds()
	s := shot{W: b.Dx(), H: b.Dy(), Shown: content(src, sides)}
	if s.Shown != b {
		if sub, ok := src.(interface {
			SubImage(image.Rectangle) image.Image
		}); ok {
			src, b = sub.SubImage(s.Shown), s.Shown
		} else {
			s.Shown = b
		}
	}
	if b.Dx() > width {
		h := max(1, b.Dy()*width/b.Dx())
		dst := image.NewRGBA(image.Rect(0, 0, width, h))
		draw.BiLinear.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
		src = dst
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: 72}); err != nil {
		return shot{}, fmt.Errorf("encode %s: %w", path, err)
	}
	s.URL = template.URL("data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()))
	return s, nil
}

// The blank bands of a screenshot: rows (columns) of the colour of its
// bottom left pixel, within blankTolerance per channel, beyond the last
// one with anything on it. A band is trimmed down to blankMargin from the
// content when that removes at least minTrim pixels; the bottom never to
// less than half the width shown (a nearly empty page still looks like a
// page).
const (
	blankTolerance = 6
	blankMargin    = 24
	minTrim        = 64
)

// content is the part of img a page shows: all of it, or less without its
// blank bottom and, with sides, its blank left and right margins.
func content(img image.Image, sides bool) image.Rectangle {
	b := img.Bounds()
	if b.Dx() == 0 || b.Dy() == 0 {
		return b
	}
	px := pixels(img)
	br, bg, bb := px(b.Min.X, b.Max.Y-1)
	near := func(v, w uint8) bool { return int(v)-int(w) <= blankTolerance && int(w)-int(v) <= blankTolerance }
	blank := func(x0, x1, y0, y1 int) bool {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				r, g, bl := px(x, y)
				if !near(r, br) || !near(g, bg) || !near(bl, bb) {
					return false
				}
			}
		}
		return true
	}
	y := b.Max.Y - 1
	for y >= b.Min.Y && blank(b.Min.X, b.Max.X, y, y+1) {
		y--
	}
	out := b
	if sides && y >= b.Min.Y {
		left, right := b.Min.X, b.Max.X-1
		for left < right && blank(left, left+1, b.Min.Y, y+1) {
			left++
		}
		for right > left && blank(right, right+1, b.Min.Y, y+1) {
			right--
		}
		left, right = max(b.Min.X, left-blankMargin), min(b.Max.X, right+1+blankMargin)
		if (left-b.Min.X)+(b.Max.X-right) >= minTrim {
			out.Min.X, out.Max.X = left, right
		}
	}
	if keep := max(y+1-b.Min.Y+blankMargin, out.Dx()/2); keep <= b.Dy()-minTrim {
		out.Max.Y = b.Min.Y + keep
	}
	return out
}

// pixels reads img's colours as 8-bit RGB, directly from the pixel data
// for the kinds a PNG decodes to, through At for any other.
func pixels(img image.Image) func(x, y int) (r, g, b uint8) {
	switch m := img.(type) {
	case *image.NRGBA:
		return func(x, y int) (uint8, uint8, uint8) {
			i := m.PixOffset(x, y)
			return m.Pix[i], m.Pix[i+1], m.Pix[i+2]
		}
	case *image.RGBA:
		return func(x, y int) (uint8, uint8, uint8) {
			i := m.PixOffset(x, y)
			return m.Pix[i], m.Pix[i+1], m.Pix[i+2]
		}
	}
	return func(x, y int) (uint8, uint8, uint8) {
		r, g, b, _ := img.At(x, y).RGBA()
		return uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)
	}
}
