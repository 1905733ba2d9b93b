package decide

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"yardstick/stats"
)

// Alpha is the error rate a decision keeps: its interval is a 95%
// interval, and over all the looks of a sequential design together the
// intervals hold the true ratio with probability 95%.
const Alpha = 0.05

// A Sequential design looks at the data after each round from Min starts
// a side to Max, and stops at the first look whose comparisons are all
// decided. Looking again and again at a 95% interval until it excludes
// no difference would call an A/A pair better or worse far more often
// than 5% of the time; a sequential design spends its 5% over the looks
// instead.
//
// The spending is Lan and DeMets' Pocock-type function, α(t) = α·ln(1 +
// (e − 1)·t) at the information fraction t = starts / Max, which spends
// more of α early than O'Brien and Fleming's (a large difference is
// called at the first look). Look k's level a_k is the one at which a
// statistic that has crossed no earlier look's level crosses this one
// with probability α(t_k) − α(t_{k−1}). The textbook computation takes
// the statistics at the looks to be one Brownian motion with a known
// variance (Armitage, McPherson and Rowe's recursive integration); with
// three to eight starts a side the variance is estimated anew at every
// look, the statistics are Student's and less correlated from look to
// look than that, and intervals at those levels excluded 1 in 5.5% to
// 6% of simulated A/A batches. So the levels are calibrated on the
// statistic itself: the log ratio of the two sides' means over its
// standard error, of simulated A/A starts looked at from Min to Max,
// from a fixed seed (calibrationRuns of them), each look's level the
// quantile of the p-values of the runs that crossed no earlier look. The intervals at
// the looks are then repeated confidence intervals (Jennison and
// Turnbull, 1989): look k's interval is at the confidence 1 − a_k, with
// Student's t at the look's own degrees of freedom. With Min == Max
// there is one look, at 95%.
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
	return 1 - levels(lo, hi)[k]
}

// Looks is the number of looks of the design.
func (s Sequential) Looks() int { return max(s.Max, max(s.Min, 1)) - max(s.Min, 1) + 1 }

var (
	levelMu    sync.Mutex
	levelCache = map[[2]int][]float64{}
)

// levels are the two-sided levels of the looks at lo..hi starts,
// cached.
func levels(lo, hi int) []float64 {
	levelMu.Lock()
	defer levelMu.Unlock()
	key := [2]int{lo, hi}
	if l, ok := levelCache[key]; ok {
		return l
	}
	l := calibratedLevels(lo, hi, calibrationRuns)
	levelCache[key] = l
	return l
}

// spend is the Pocock-type spending function: the error spent by the
// information fraction t.
func spend(t float64) float64 { return Alpha * math.Log(1+(math.E-1)*t) }

// heldBack is the share of each look's error the levels spend: 95% of
// it. The simulated statistic is the normal-theory one on starts of one
// spread; real starts add their windows' noise and other spreads, and
// the levels are estimated from a sample. Spending all of α, simulated
// adaptive batches of this machine's components (11% between starts,
// windows ±4.7%) were called better or worse in 5.0% and 5.2% of two
// runs of 20,000; a twentieth held back keeps them at 5% or below.
const heldBack = 0.95

// calibrationRuns is how many simulated A/A sequences calibrate a
// design's levels (the later looks' levels are quantiles of a few
// hundred crossings; at 40,000 their noise alone moved the A/A rate by a
// tenth of a percent).
const calibrationRuns = 200000

// calibratedLevels are the levels of the looks at lo..hi starts a side
// (lo >= 2), from runs simulated A/A sequences: two sides of hi starts
// each, log-normal with a spread of 25% (wider than a start's figure
// spreads on a quiet machine: see spread), and at every look n the
// statistic Between's interval rests on: the log of the ratio of the two
// sides' means over its standard error (each side's variance of the mean
// over its mean squared, n-1 degrees of freedom), its two-sided p-value
// at Welch and Satterthwaite's degrees of freedom. Look k's level is the
// p-value below which the runs that crossed no earlier look cross this
// one in the share α(t_k) − α(t_{k−1}) of all runs, less the share held
// back (heldBack). The seed is fixed, so a design's levels are the same
// in every process.
func calibratedLevels(lo, hi, runs int) []float64 {
	lo = max(lo, 2)
	looks := hi - lo + 1
	p := make([][]float64, looks) // p[k][run]
	for k := range p {
		p[k] = make([]float64, runs)
	}
	rng := rand.New(rand.NewPCG(0x5e9, 0x1e7e15))
	// The statistic's tails grow with the starts' spread (the log of a
	// mean of skewed starts): levels calibrated at a spread of 10% let
	// 5.2% of A/A batches through at 20% and 5.5% at 30%. At 25%, wider
	// than this machine's starts on a quiet day (8% to 18%), a batch at
	// any narrower spread keeps within its 5%.
	const spread = 0.25
	for r := range runs {
		var sx, sxx, sy, syy float64
		for n := 1; n <= hi; n++ {
			x, y := math.Exp(spread*rng.NormFloat64()), math.Exp(spread*rng.NormFloat64())
			sx, sxx, sy, syy = sx+x, sxx+x*x, sy+y, syy+y*y
			if n < lo {
				continue
			}
			fn := float64(n)
			mx, my := sx/fn, sy/fn
			vx := max(sxx-sx*mx, 0) / (fn - 1) / fn / (mx * mx)
			vy := max(syy-sy*my, 0) / (fn - 1) / fn / (my * my)
			pv := 1.0
			if v := vx + vy; v > 0 {
				t := math.Abs(math.Log(my/mx)) / math.Sqrt(v)
				pv = 2 * stats.TTail(t, welchDF(vx, fn-1, vy, fn-1))
			}
			p[n-lo][r] = pv
		}
	}
	out := make([]float64, looks)
	alive := make([]bool, runs)
	for r := range alive {
		alive[r] = true
	}
	spent := 0.0
	for k := range looks {
		t := float64(lo+k) / float64(hi)
		inc := (spend(t) - spent) * heldBack
		spent = spend(t)
		var ps []float64
		for r, a := range alive {
			if a {
				ps = append(ps, p[k][r])
			}
		}
		slices.Sort(ps)
		// the level crosses inc·runs of the runs still going
		i := int(math.Round(inc * float64(runs)))
		level := 0.0
		if i > 0 && i <= len(ps) {
			level = (ps[i-1] + ps[min(i, len(ps)-1)]) / 2
		}
		out[k] = level
		for r, a := range alive {
			if a && p[k][r] < level {
				alive[r] = false
			}
		}
	}
	return out
}
