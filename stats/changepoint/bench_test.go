package changepoint

import (
	"fmt"
	"math"
	"testing"
)

// BenchmarkDetect times the search at the default penalty on 600 and
// 6000 intervals (a minute and ten minutes at 100 ms): of pure noise, the
// worst case (nothing is pruned), and of a level that changes every 100
// intervals, where pruning keeps the work near linear.
func BenchmarkDetect(b *testing.B) {
	for _, n := range []int{600, 6000} {
		noise := flatSeries(1, n)
		steps := levels(newRand(2), n, 30, func(i int) float64 { return 1000 + 150*float64(i/100%2) })
		for _, s := range []struct {
			name string
			x    []float64
		}{{"noise", noise}, {"steps", steps}} {
			b.Run(fmt.Sprintf("%s/n=%d", s.name, n), func(b *testing.B) {
				for b.Loop() {
					if _, err := Detect(s.x, Config{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkClassify times Classify on 6000 intervals (ten minutes at
// 100 ms, 10,000 requests/s with 5% noise): flat, flat with spikes (p =
// 0.01), AR(1) noise (φ = 0.9), steps every 100 intervals and a warm-up.
// The peer is the search Classify ran before the functional pruning
// (PELT, dropping candidates at once; oldPelt below) on the same series at
// the same penalty, so that one run gives the ratio.
func BenchmarkClassify(b *testing.B) {
	const n = 6000
	flat := func(int) float64 { return rateLevel }
	for _, s := range []struct {
		name string
		x    []float64
	}{
		{"flat", levels(newRand(1), n, rateSigma, flat)},
		{"spikes", withOutliers(2, levels(newRand(2), n, rateSigma, flat), 0.01, 5)},
		{"ar1", ar1(newRand(3), n, 0.9, rateSigma, flat)},
		{"steps", levels(newRand(4), n, rateSigma, func(i int) float64 { return rateLevel + 150*float64(i/100%2) })},
		{"warmup", levels(newRand(5), n, rateSigma, func(i int) float64 { return rateLevel * (1 - 0.5*math.Exp(-float64(i)/400)) })},
	} {
		b.Run(s.name+"/classify", func(b *testing.B) {
			for b.Loop() {
				if _, err := Classify(s.x, throughput); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(s.name+"/peer", func(b *testing.B) {
			cfg, sigma, err := Config{}.resolve(s.x)
			if err != nil {
				b.Fatal(err)
			}
			c, err := newCoster(s.x, CostMean, sigma)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				oldPelt(len(s.x), cfg.MinSize, cfg.Penalty/sigma/sigma, c)
			}
		})
	}
}

// oldPelt is the search as it was before it was made exact: PELT that
// drops a candidate as soon as another dominates it. Only the benchmark
// uses it, as the peer of Classify.
func oldPelt(n, minSize int, pen float64, c *coster) []int {
	f := make([]float64, n+1)
	last := make([]int, n+1)
	adm := make([]int, 0, 64)
	vals := make([]float64, 0, 64)
	for s := minSize; s <= n; s++ {
		if t := s - minSize; t == 0 || t >= minSize {
			adm = append(adm, t)
		}
		vals = vals[:0]
		best, bestT := math.Inf(1), 0
		for _, t := range adm {
			v := f[t] + (c.sse(t, s) + pen)
			vals = append(vals, v)
			if v < best {
				best, bestT = v, t
			}
		}
		f[s], last[s] = best, bestT
		keep := adm[:0]
		for i, t := range adm {
			if vals[i] <= best+pen {
				keep = append(keep, t)
			}
		}
		adm = keep
	}
	return backtrack(last, n)
}
