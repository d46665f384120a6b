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

// BenchmarkRoleSelector measures get_by_role with a name on the page of
// role and name edge cases with 1,200 links added (role=, names and
// hidden checks all computed by the role engine for every candidate).
func BenchmarkRoleSelector(b *testing.B) {
	p := open(b, "/role_edges.html")
	if _, err := p.Evaluate(bg, `() => { const ul = document.createElement('ul');
		for (let i = 1; i <= 1200; i++) ul.insertAdjacentHTML('beforeend', '<li><a href="/item/' + i + '">Item number ' + i + ' of the catalogue</a></li>');
		document.body.append(ul); }`, nil, 0); err != nil {
		b.Fatal(err)
	}
	l, err := p.Locator(`role=link[name="Item number 600 of the catalogue"]`)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if n, err := l.Count(bg); err != nil || n != 1 {
			b.Fatalf("count: %d, %v", n, err)
		}
	}
}
