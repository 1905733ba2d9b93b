package changepoint

import "math"

// hingeZ is how many standard errors the slope of a ramp into the final
// level must exceed for Classify to move the steady start past it.
const hingeZ = 4

// rampEnd is where a ramp into the final level has come within band (an
// absolute difference) of that level: the search cuts a ramp into steps,
// and the last step, the final segment x[a:], holds the ramp's end below
// the final level. It fits x[from:] (from the start of the step before
// the final one) by least squares with a hinge, a line of slope b up to a
// knee k and a level c after it, over the knees in the first half, and
// returns the first index where the line is within band/4 of c. It
// returns a when the hinge fits no better than the step at a does (the
// change is a step, not a ramp), or when its slope is within hingeZ standard
// errors (noise is the series' long-run scale) of 0. Outliers (skip) are
// left out of the fits.
func rampEnd(x []float64, skip []bool, from, a int, band, noise float64) int {
	m := len(x) - from
	if m < 8 || noise <= 0 || a <= from {
		return a
	}
	// Prefix sums over the kept points of 1, j, j², z, j·z and z², j = i − from.
	pre := make([][6]float64, m+1)
	for j := range m {
		p := pre[j]
		if skip == nil || !skip[from+j] {
			v, fj := x[from+j], float64(j)
			p = [6]float64{p[0] + 1, p[1] + fj, p[2] + fj*fj, p[3] + v, p[4] + fj*v, p[5] + v*v}
		}
		pre[j+1] = p
	}
	tot := pre[m]
	sse := func(p, q [6]float64) float64 {
		if k := q[0] - p[0]; k > 0 {
			d := q[3] - p[3]
			return q[5] - p[5] - d*d/k
		}
		return 0
	}
	step := sse(pre[0], pre[a-from]) + sse(pre[a-from], tot)
	bestGain, bestK, bestB, bestSuu := 0.0, 0, 0.0, 0.0
	for k := 1; k <= m/2; k++ {
		p, fk := pre[k], float64(k)
		// u = j − k before the knee, 0 after; centred sums.
		su := p[1] - fk*p[0]
		cuu := p[2] - 2*fk*p[1] + fk*fk*p[0] - su*su/tot[0]
		cuz := p[4] - fk*p[3] - su*tot[3]/tot[0]
		if cuu <= 0 {
			continue
		}
		if g := cuz * cuz / cuu; g > bestGain {
			bestGain, bestK, bestB, bestSuu = g, k, cuz/cuu, cuu
		}
	}
	better := step - (sse(pre[0], tot) - bestGain) // the hinge's gain on the step
	if bestK == 0 || better <= 0 || math.Abs(bestB)*math.Sqrt(bestSuu) <= hingeZ*noise {
		return a
	}
	at := float64(bestK) - band/4/math.Abs(bestB)
	if !(at > 0) { // NaN too
		return a
	}
	return max(a, from+int(math.Ceil(at)))
}
