package bench

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-4 }

func TestWilsonKnownValues(t *testing.T) {
	// Hand-computed from the Wilson formula with z = 1.96.
	cases := []struct {
		k, n   int
		lo, hi float64
	}{
		{7, 10, 0.3968, 0.8922},
		{0, 10, 0, 0.2775},
		{10, 10, 0.7225, 1},
		{50, 100, 0.4038, 0.5962},
	}
	for _, c := range cases {
		lo, hi := Wilson(c.k, c.n)
		if !near(lo, c.lo) || !near(hi, c.hi) {
			t.Errorf("Wilson(%d,%d) = [%.4f, %.4f], want [%.4f, %.4f]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

func TestPassAtK(t *testing.T) {
	// n=5, c=2: pass@1 = 2/5; pass@2 = 1 - C(3,2)/C(5,2) = 1 - 3/10.
	if got := PassAtK(5, 2, 1); !near(got, 0.4) {
		t.Errorf("pass@1 = %v", got)
	}
	if got := PassAtK(5, 2, 2); !near(got, 0.7) {
		t.Errorf("pass@2 = %v", got)
	}
	if got := PassAtK(5, 4, 2); got != 1 {
		t.Errorf("pass@2 with one failure = %v, want 1", got)
	}
	if got := PassAtK(3, 0, 3); got != 0 {
		t.Errorf("pass@3 with none passing = %v", got)
	}
	if !math.IsNaN(PassAtK(2, 1, 3)) {
		t.Error("k > n must be NaN")
	}
}

func TestMcNemarExact(t *testing.T) {
	// b=1, c=9: 2 * (C(10,0)+C(10,1)) / 1024 = 22/1024.
	if got := McNemarExact(1, 9); !near(got, 22.0/1024) {
		t.Errorf("McNemar(1,9) = %v", got)
	}
	if got := McNemarExact(3, 3); got != 1 {
		t.Errorf("McNemar(3,3) = %v, want 1", got)
	}
	if got := McNemarExact(0, 0); got != 1 {
		t.Errorf("McNemar(0,0) = %v", got)
	}
	// b=0, c=6: 2/64.
	if got := McNemarExact(0, 6); !near(got, 2.0/64) {
		t.Errorf("McNemar(0,6) = %v", got)
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{5, 1, 3, 2, 4}
	if got := Quantile(xs, 0.5); got != 3 {
		t.Errorf("median = %v", got)
	}
	if got := Quantile(xs, 0.9); !near(got, 4.6) {
		t.Errorf("p90 = %v", got)
	}
	if got := Quantile([]float64{1, 2}, 0.5); got != 1.5 {
		t.Errorf("even median = %v", got)
	}
}
