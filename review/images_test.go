package review

import (
	"image"
	"image/color"
	"testing"
)

// A screenshot's blank bottom (and, for a bench's thumbnail, its blank
// margins) is left out of the page, down to a margin below the content;
// an image with no blank band, or with a thin one, is shown whole.
func TestContentTrimsBlankBands(t *testing.T) {
	page := func(w, h int, ink image.Rectangle) *image.NRGBA {
		m := image.NewNRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				c := color.NRGBA{255, 255, 255, 255}
				if (image.Point{x, y}).In(ink) {
					c = color.NRGBA{30, 30, 30, 255}
				}
				m.SetNRGBA(x, y, c)
			}
		}
		return m
	}
	cases := []struct {
		name  string
		img   image.Image
		sides bool
		want  image.Rectangle
	}{
		{"a short page", page(1280, 1800, image.Rect(270, 20, 1010, 900)), false, image.Rect(0, 0, 1280, 924)},
		{"a nearly empty page keeps half its width", page(1280, 1800, image.Rect(270, 20, 1010, 200)), false, image.Rect(0, 0, 1280, 640)},
		{"the margins too", page(1280, 1800, image.Rect(270, 20, 1010, 900)), true, image.Rect(246, 0, 1034, 924)},
		{"a full page", page(1280, 1800, image.Rect(0, 0, 1280, 1790)), true, image.Rect(0, 0, 1280, 1800)},
		{"a thin band is kept", page(1280, 800, image.Rect(10, 10, 1270, 760)), false, image.Rect(0, 0, 1280, 800)},
		{"an empty page, half its width tall", page(400, 300, image.Rectangle{}), true, image.Rect(0, 0, 400, 200)},
	}
	for _, c := range cases {
		if got := content(c.img, c.sides); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
