package history

import "math"

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

// t975 are Student's t 0.975 quantiles for 1 to 30 degrees of freedom.
var t975 = [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// tQuantile is Student's t 0.975 quantile at df degrees of freedom (a
// two-sided 95% interval); the normal's 1.96 above 30, and for df < 1.
func tQuantile(df int) float64 {
	if df >= 1 && df <= len(t975) {
		return t975[df-1]
	}
	return 1.96
}

// finite says x is a number, not NaN or infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
