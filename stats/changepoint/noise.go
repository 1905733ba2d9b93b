package changepoint

import (
	"math"
	"slices"
)

// minBlocks is the fewest block means noise estimates a scale from.
const minBlocks = 8

// Bounds of the AR(1) coefficient noise estimates from the series.
const (
	// maxPhi caps the estimate: nearer 1 the long-run variance grows
	// without bound, and the series is a random walk rather than noise
	// around a level.
	maxPhi = 0.95
	// phiZ/√n is what the estimate must exceed to count: three of its
	// standard errors under independence (1.65/√n, measured on seeded
	// normal noise of 150 to 3000 points). Below, the noise is taken as
	// independent, so that the estimate's own scatter does not raise the
	// penalty of series without correlation.
	phiZ = 5
	// phiTol is how far above AR(1)'s 1+φ² the ratio V₄/V₂ may be, for
	// its scatter, before the series counts as trending rather than
	// correlated.
	phiTol = 0.35
	// minARPoints is the shortest series the AR(1) estimate is trusted
	// on (20 s at 100 ms): on fewer points a noisy ramp passes for
	// correlated noise often enough, and the long-run scale then hides
	// the very ramp the analysis looks for.
	minARPoints = 200
)

// trimZ is where trimmedVar cuts, in robust deviations from the median.
const trimZ = 3

// noise is a robust estimate of the standard deviation of the noise
// around x's piecewise-constant level, as segment means see it: the
// largest of three scales that level shifts and outliers barely move (a
// shift moves one or two differences, and robust scales ignore them).
//
//   - The scale of single intervals: σ₁ = √(V₁/2), V_k the robust
//     variance (trimmedVar) of the differences x[i+k] − x[i]; a difference
//     of two independent points has twice their variance. When more than
//     half the differences are equal (small counts, a straight line) it
//     falls back on their root mean square over √2.
//   - The long-run scale of AR(1) noise: with φ = V₂/V₁ − 1 (the robust
//     estimator of Chakar, Lebarbier, Lévy-Leduc and Robin, "A robust
//     approach for estimating change-points in the mean of an AR(1)
//     process", Bernoulli 23(2), 2017), the standard deviation of a mean
//     of m intervals is σ₁·√((1+φ)/m)/(1−φ) for large m: √m times that
//     is the scale, on series of at least minARPoints points. φ counts
//     when above phiZ/√n and below 1, and when the lag-4 differences are
//     not a trend's (trending): a ramp or a run of steps also has larger
//     differences at longer lags, and is no correlated noise. It is
//     capped at maxPhi.
//   - The scale of means of block intervals: the MAD of the differences
//     between the means of consecutive blocks, times 1.4826·√block/√2,
//     with at least minBlocks blocks; it sees correlation that is not
//     AR(1)-shaped over a few intervals (a closed loop, a collector's
//     rhythm).
//
// For independent noise all three estimate the same σ. It is 0 for a
// constant series and for fewer than two points.
func noise(x []float64, block int) float64 {
	if len(x) < 2 {
		return 0
	}
	v1 := lagVar(x, 1)
	s := math.Sqrt(v1 / 2)
	if v1 > 0 && len(x) >= minARPoints {
		v2 := lagVar(x, 2)
		phi := v2/v1 - 1
		// AR(1) has V₂/V₁ = 1+φ < 2 and V₄/V₂ = 1+φ² <= 2; a trend (a
		// ramp, steps one after the other) has both grow towards 4.
		if phi > phiZ/math.Sqrt(float64(len(x))) && phi < 1 && !trending(x, v2, phi) {
			phi = min(phi, maxPhi)
			s = max(s, s*math.Sqrt(1+phi)/(1-phi))
		}
	}
	if block < 1 || len(x)/block < minBlocks {
		return s
	}
	means := make([]float64, len(x)/block)
	for j := range means {
		means[j] = mean(x[j*block : (j+1)*block])
	}
	d := diffs(means, 1)
	return max(s, 1.4826*mad(d)/math.Sqrt2*math.Sqrt(float64(block)))
}

// trending says whether x's lag-4 differences look like a trend's
// rather than like AR(1) noise of coefficient phi (v2 the lag-2
// variance): V₄/V₂ beyond AR(1)'s 1+φ² by more than phiTol, or a median
// of the differences more than half their deviation from 0 (a ramp, or
// steps one after the other, moves most of them the same way; noise
// around a level moves them both ways).
func trending(x []float64, v2, phi float64) bool {
	d := diffs(x, 4)
	if len(d) < minBlocks {
		return false
	}
	v4 := lagVar(x, 4)
	return v4/v2 > 1+phi*phi+phiTol || math.Abs(median(d)) > math.Sqrt(v4)/2
}

// lagVar is the robust variance of the lag-k differences of x
// (trimmedVar), or when that is 0 their mean square.
func lagVar(x []float64, k int) float64 {
	d := diffs(x, k)
	if len(d) == 0 {
		return 0
	}
	if v := trimmedVar(slices.Clone(d)); v > 0 {
		return v
	}
	var ss float64
	for _, v := range d {
		ss += v * v
	}
	return ss / float64(len(d))
}

// trimmedVar is the variance of xs (which it reorders) around their
// median, from the values within trimZ robust deviations (1.4826·MAD) of
// it, corrected to be consistent for normal data; 0 when the MAD is 0.
// It is nearly as efficient as the plain variance for normal data, and
// an outlier or a few level shifts do not move it.
func trimmedVar(xs []float64) float64 {
	m := median(xs)
	dev := make([]float64, len(xs))
	for i, v := range xs {
		dev[i] = math.Abs(v - m)
	}
	cut := trimZ * 1.4826 * median(dev)
	if cut == 0 {
		return 0
	}
	var ss float64
	var k int
	for _, v := range xs {
		if d := v - m; math.Abs(d) <= cut {
			ss += d * d
			k++
		}
	}
	// E[z²; |z| <= c] / P(|z| <= c) for a standard normal z.
	c := float64(trimZ)
	p := math.Erf(c / math.Sqrt2)
	kappa := (p - 2*c*math.Exp(-c*c/2)/math.Sqrt(2*math.Pi)) / p
	return ss / float64(k) / kappa
}

// diffs are the lag-k differences of x.
func diffs(x []float64, k int) []float64 {
	if len(x) <= k {
		return nil
	}
	d := make([]float64, len(x)-k)
	for i := range d {
		d[i] = x[i+k] - x[i]
	}
	return d
}

// mad is the median absolute deviation from the median of xs (which it
// reorders).
func mad(xs []float64) float64 {
	m := median(xs)
	for i, v := range xs {
		xs[i] = math.Abs(v - m)
	}
	return median(xs)
}

// median of xs, which it sorts; NaN for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return xs[n/2-1]/2 + xs[n/2]/2
}
