package changepoint

import (
	"math"
	"testing"
)

// optimum is the least penalised cost of x over every segmentation with
// segments of at least minSize points, by the recursion without pruning
// (optimal partitioning: every start of every last segment).
func optimum(x []float64, cfg Config) float64 {
	cfg, s, _ := cfg.resolve(x)
	c, _ := newCoster(x, cfg.Cost, s)
	pen := cfg.Penalty
	if cfg.Cost == CostMean {
		pen = pen / s / s
	}
	n := len(x)
	f := make([]float64, n+1)
	for e := 1; e <= n; e++ {
		f[e] = math.Inf(1)
		for t := 0; t <= e-cfg.MinSize; t++ {
			if t == 0 || t >= cfg.MinSize {
				f[e] = min(f[e], f[t]+c.cost(t, e)+pen)
			}
		}
	}
	return f[n]
}

// enumerate is the least penalised cost of x by trying every set of
// changepoints, for series short enough to.
func enumerate(x []float64, cfg Config) float64 {
	cfg, s, _ := cfg.resolve(x)
	c, _ := newCoster(x, cfg.Cost, s)
	pen := cfg.Penalty
	if cfg.Cost == CostMean {
		pen = pen / s / s
	}
	n := len(x)
	best := math.Inf(1)
	for mask := 0; mask < 1<<(n-1); mask++ {
		v, from := 0.0, 0
		for i := 1; i <= n; i++ {
			if i == n || mask>>(i-1)&1 == 1 {
				if i-from < cfg.MinSize {
					v = math.Inf(1)
					break
				}
				v += c.cost(from, i) + pen
				from = i
			}
		}
		best = min(best, v)
	}
	return best
}

// costOf is the penalised cost of x cut at cps.
func costOf(x []float64, cfg Config, cps []int) float64 {
	cfg, s, _ := cfg.resolve(x)
	c, _ := newCoster(x, cfg.Cost, s)
	pen := cfg.Penalty
	if cfg.Cost == CostMean {
		pen = pen / s / s
	}
	v, from := 0.0, 0
	for _, e := range append(cps, len(x)) {
		v += c.cost(from, e) + pen
		from = e
	}
	return v
}

// spiky is noise with isolated spikes of 5x and dips to 20%, the series
// on which pruning at once (ruptures' rule) loses the optimum.
func spiky(seed uint64, n int, p float64) []float64 {
	r := newRand(seed)
	x := make([]float64, n)
	for i := range x {
		x[i] = 1000 * (1 + 0.05*r.NormFloat64())
		switch u := r.Float64(); {
		case u < p:
			x[i] *= 5
		case u < 2*p:
			x[i] *= 0.2
		}
	}
	return x
}

// The search is exact: on spiky series, at low penalties and several
// minimum lengths, both searches (functional pruning for CostMean, PELT
// for CostMeanVar) find the least penalised cost the unpruned recursion
// finds; on series short enough, so does trying every segmentation.
func TestDetectExact(t *testing.T) {
	worse := 0
	for seed := uint64(0); seed < 300; seed++ {
		x := spiky(seed, 60+int(seed%5)*30, 0.02+0.01*float64(seed%3))
		for _, cfg := range []Config{
			{MinSize: 5}, {MinSize: 2}, {MinSize: 10},
			{Cost: CostMeanVar, MinSize: 5}, {Cost: CostMeanVar, MinSize: 3},
		} {
			pen, err := DefaultPenalty(x, cfg)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Penalty = pen * []float64{0.05, 0.3, 1}[seed%3]
			cps, err := Detect(x, cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, want := costOf(x, cfg, cps), optimum(x, cfg)
			if got > want+1e-9*math.Abs(want) {
				worse++
				t.Errorf("seed %d, %+v: cost %.6f, the optimum is %.6f", seed, cfg, got, want)
			}
		}
	}
	for seed := uint64(0); seed < 40; seed++ {
		x := spiky(1000+seed, 16, 0.1)
		for _, cfg := range []Config{{MinSize: 2, Penalty: 1e3}, {MinSize: 3, Penalty: 1e4}, {Cost: CostMeanVar, MinSize: 2, Penalty: 1}} {
			cps, err := Detect(x, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := costOf(x, cfg, cps), enumerate(x, cfg); math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Errorf("seed %d, %+v: cost %.6f, every segmentation tried: %.6f", seed, cfg, got, want)
			}
			if got, want := optimum(x, cfg), enumerate(x, cfg); math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Errorf("seed %d, %+v: the recursion %.6f, every segmentation tried: %.6f", seed, cfg, got, want)
			}
		}
	}
}
