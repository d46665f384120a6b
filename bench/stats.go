package bench

import (
	"math"
	"sort"
)

// z95 is the standard normal quantile for a two-sided 95% interval.
const z95 = 1.959963984540054

// Wilson returns the 95% Wilson score interval for k successes in n trials;
// unlike the normal approximation it stays inside [0, 1] and is honest for
// small n and rates near 0 or 1.
func Wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	p := float64(k) / float64(n)
	nf := float64(n)
	z2 := z95 * z95
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := z95 * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	return math.Max(0, center-half), math.Min(1, center+half)
}

// PassAtK is the unbiased estimate of the chance that at least one of k
// attempts passes, from n attempts of which c passed: 1 - C(n-c,k)/C(n,k),
// computed as a product so large n does not overflow.
func PassAtK(n, c, k int) float64 {
	if n <= 0 || k <= 0 || k > n {
		return math.NaN()
	}
	if n-c < k {
		return 1
	}
	prod := 1.0
	for i := n - c + 1; i <= n; i++ {
		prod *= 1 - float64(k)/float64(i)
	}
	return 1 - prod
}

// McNemarExact is the two-sided exact McNemar p-value for b pairs where only
// A passed and c where only B passed: a binomial test of b against
// Binomial(b+c, 1/2).
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	m := min(b, c)
	// Sum the lower tail in log space: C(n, i) / 2^n.
	tail := 0.0
	for i := 0; i <= m; i++ {
		tail += math.Exp(logChoose(n, i) - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*tail)
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Quantile is the q-th quantile (0..1) of xs by linear interpolation between
// order statistics; NaN for no values.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}
