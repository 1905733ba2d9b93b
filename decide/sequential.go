package decide

import (
	"math"
	"sync"
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
	return 2*normalCDF(boundaries(lo, hi)[k]) - 1
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
			c := normalQuantile(1 - inc/2)
			out = append(out, c)
			b := c * math.Sqrt(t)
			grid = linspace(-b, b, gridPoints)
			dens = make([]float64, len(grid))
			for i, s := range grid {
				dens[i] = normalPDF(s/math.Sqrt(t)) / math.Sqrt(t)
			}
			prevT = t
			continue
		}
		sd := math.Sqrt(t - prevT)
		cross := func(b float64) float64 {
			f := make([]float64, len(grid))
			for i, u := range grid {
				f[i] = dens[i] * (normalCDF((-b-u)/sd) + normalCDF((u-b)/sd))
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
				f[i] = dens[i] * normalPDF((s-u)/sd) / sd
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

func normalPDF(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }

func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// normalQuantile is the standard normal's p quantile, by bisection.
func normalQuantile(p float64) float64 {
	lo, hi := -40.0, 40.0
	for range 200 {
		mid := (lo + hi) / 2
		if normalCDF(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// tQuantile is Student's t p quantile (p above 0.5) at df degrees of
// freedom: the t at which the regularized incomplete beta function gives
// the upper tail 1 − p, by bisection; the normal's at infinite df.
func tQuantile(p, df float64) float64 {
	if math.IsInf(df, 1) || df > 1e7 {
		return normalQuantile(p)
	}
	df = max(df, 1)
	upper := 1 - p
	lo, hi := 0.0, 1.0
	for tTail(hi, df) > upper {
		hi *= 2
		if hi > 1e12 {
			return hi
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if tTail(mid, df) > upper {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// tTail is P(T > t) for Student's t at df degrees of freedom, t >= 0.
func tTail(t, df float64) float64 {
	x := df / (df + t*t)
	return 0.5 * regIncBeta(df/2, 0.5, x)
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by
// its continued fraction (Numerical Recipes' betacf).
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const eps, tiny = 1e-15, 1e-300
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	// step is one term of the continued fraction (Lentz's method).
	step := func(aa float64) float64 {
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		return d * c
	}
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		m2 := 2 * fm
		h *= step(fm * (b - fm) * x / ((qam + m2) * (a + m2)))
		del := step(-(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2)))
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}
