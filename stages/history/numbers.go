package history

import (
	"math"

	"yardstick/stats"
)

// variance is the sample variance of xs (n-1 in the denominator).
func variance(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	var s, s2 float64
	for _, x := range xs {
		s += x
	}
	m := s / float64(len(xs))
	for _, x := range xs {
		s2 += (x - m) * (x - m)
	}
	return s2 / float64(len(xs)-1)
}

// tQuantile is Student's t 0.975 quantile at df degrees of freedom (a
// two-sided 95% interval); the normal's for df < 1.
func tQuantile(df int) float64 {
	if df < 1 {
		return stats.NormalQuantile(0.975)
	}
	return stats.TQuantile(0.975, float64(df))
}

// finite says x is a number, not NaN or infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
