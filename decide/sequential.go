package decide

import (
	"math"
	"sync"

	"yardstick/stats"
)

// Alpha is the error rate a decision keeps: its interval is a 95%
// interval, and over all the looks of a sequential design together the
// intervals hold the true ratio with probability 95%.
const Alpha = 0.05

// A Sequential design looks at the data after each round from Min starts
// a side to Max, and stops at the first look whose comparisons are all
// decided. Looking again and again at a 95% interval until it clears the
// margin would call an A/A pair better or worse far more often than 5%
// of the time; a sequential design spends its 5% over the looks instead.
//
// The spending is Lan and DeMets' Pocock-type function, α(t) = α·ln(1 +
// (e − 1)·t) at the information fraction t = starts / Max, which spends
// more of α early than O'Brien and Fleming's (a large difference is
// called at the first look). Look k's boundary c_k is the one at which
// a standardized statistic that has crossed no earlier boundary crosses
// this one with probability α(t_k) − α(t_{k−1}), the statistics over the
// looks being those of one Brownian motion (the recursive integration of
// Armitage, McPherson and Rowe, 1969). The intervals at the looks are
// then repeated confidence intervals (Jennison and Turnbull, 1989): look
// k's interval is at the confidence 2Φ(c_k) − 1, with Student's t in
// place of the normal at the look's own degrees of freedom. With Min ==
// Max there is one look, at 95%.
type Sequential struct {
	Min, Max int
}

// Confidence is the confidence level of the interval at the look after
// starts starts a side (clamped to Min..Max): 0.95 with one look, more
// with several.
func (s Sequential) Confidence(starts int) float64 {
	lo := max(s.Min, 1)
	hi := max(s.Max, lo)
	if lo == hi {
		return 1 - Alpha
	}
	k := min(max(starts, lo), hi) - lo
	return 2*stats.NormalCDF(boundaries(lo, hi)[k]) - 1
}

// Looks is the number of looks of the design.
func (s Sequential) Looks() int { return max(s.Max, max(s.Min, 1)) - max(s.Min, 1) + 1 }

var (
	boundaryMu    sync.Mutex
	boundaryCache = map[[2]int][]float64{}
)

// boundaries are the standardized boundaries of the looks at lo..hi
// starts, cached.
func boundaries(lo, hi int) []float64 {
	boundaryMu.Lock()
	defer boundaryMu.Unlock()
	key := [2]int{lo, hi}
	if b, ok := boundaryCache[key]; ok {
		return b
	}
	b := pocockBoundaries(lo, hi)
	boundaryCache[key] = b
	return b
}

// spend is the Pocock-type spending function: the error spent by the
// information fraction t.
func spend(t float64) float64 { return Alpha * math.Log(1+(math.E-1)*t) }

// gridPoints is the number of points of the integration grid over each
// look's continuation region.
const gridPoints = 801

// pocockBoundaries computes the boundaries by recursive numerical
// integration of the density of S(t) = W(t) (variance t) over the
// continuation region of the looks so far.
func pocockBoundaries(lo, hi int) []float64 {
	var out []float64
	var grid, dens []float64 // the previous look's continuation region and density
	prevT, spent := 0.0, 0.0
	for n := lo; n <= hi; n++ {
		t := float64(n) / float64(hi)
		inc := spend(t) - spent
		spent = spend(t)
		if grid == nil {
			c := stats.NormalQuantile(1 - inc/2)
			out = append(out, c)
			b := c * math.Sqrt(t)
			grid = linspace(-b, b, gridPoints)
			dens = make([]float64, len(grid))
			for i, s := range grid {
				dens[i] = stats.NormalPDF(s/math.Sqrt(t)) / math.Sqrt(t)
			}
			prevT = t
			continue
		}
		sd := math.Sqrt(t - prevT)
		cross := func(b float64) float64 {
			f := make([]float64, len(grid))
			for i, u := range grid {
				f[i] = dens[i] * (stats.NormalCDF((-b-u)/sd) + stats.NormalCDF((u-b)/sd))
			}
			return simpson(grid, f)
		}
		// the crossing probability falls as the boundary rises
		lob, hib := 0.0, 10*math.Sqrt(t)
		for range 80 {
			mid := (lob + hib) / 2
			if cross(mid) > inc {
				lob = mid
			} else {
				hib = mid
			}
		}
		b := (lob + hib) / 2
		out = append(out, b/math.Sqrt(t))
		next := linspace(-b, b, gridPoints)
		nd := make([]float64, len(next))
		f := make([]float64, len(grid))
		for j, s := range next {
			for i, u := range grid {
				f[i] = dens[i] * stats.NormalPDF((s-u)/sd) / sd
			}
			nd[j] = simpson(grid, f)
		}
		grid, dens, prevT = next, nd, t
	}
	return out
}

func linspace(a, b float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = a + (b-a)*float64(i)/float64(n-1)
	}
	return out
}

// simpson integrates f over the evenly spaced grid x (an odd number of
// points).
func simpson(x, f []float64) float64 {
	n := len(x)
	h := (x[n-1] - x[0]) / float64(n-1)
	s := f[0] + f[n-1]
	for i := 1; i < n-1; i++ {
		if i%2 == 1 {
			s += 4 * f[i]
		} else {
			s += 2 * f[i]
		}
	}
	return s * h / 3
}
