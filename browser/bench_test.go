package browser

import (
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
