package browser

import (
	"bytes"
	"image/png"
	"testing"
)

// BenchmarkScreenshot measures a viewport screenshot (1280x1800) as PNG.
func BenchmarkScreenshot(b *testing.B) {
	p := open(b, "/buttons.html")
	if _, err := p.Screenshot(bg, false, 0); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Screenshot(bg, false, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func TestScreenshots(t *testing.T) {
	p := open(t, "/lazy.html")
	if err := loc(t, p, "text=Item 20").WaitFor(bg, "", 0); err != nil {
		t.Fatal(err)
	}
	if err := p.SetViewportSize(bg, 800, 600); err != nil {
		t.Fatal(err)
	}
	decode := func(b []byte) (w, h int) {
		t.Helper()
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("not a PNG: %v", err)
		}
		return img.Bounds().Dx(), img.Bounds().Dy()
	}
	shot, err := p.Screenshot(bg, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := decode(shot); w != 800 || h != 600 {
		t.Errorf("viewport screenshot %dx%d, want 800x600", w, h)
	}
	full, err := p.Screenshot(bg, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := decode(full); w != 800 || h < 2000 {
		t.Errorf("full page screenshot %dx%d, want 800 wide and over 2000 high", w, h)
	}
	// An element below the fold: scrolled to, cropped to its box. The list
	// is told it is full first: scrolling to its end would load more items
	// and push the box down between the measuring and the capture.
	eval[any](t, p, `(() => { n = 60; const d = document.createElement('div'); d.id = 'box';
		d.style.cssText = 'width: 120px; height: 40px; background: rgb(255, 0, 0)'; document.body.appendChild(d) })()`)
	el, err := loc(t, p, "#box").Screenshot(bg, 0)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(el))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != 120 || img.Bounds().Dy() != 40 {
		t.Errorf("element screenshot %v, want 120x40", img.Bounds())
	}
	r, g, b, _ := img.At(60, 20).RGBA()
	if r>>8 < 240 || g>>8 > 20 || b>>8 > 20 {
		t.Errorf("element screenshot is not the red box: rgb(%d,%d,%d)", r>>8, g>>8, b>>8)
	}
	wantType(t, p.SetViewportSize(bg, 0, 10), ErrInvalidParams)
}
