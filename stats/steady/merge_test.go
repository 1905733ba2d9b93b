package steady

import (
	"math"
	"math/rand/v2"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/stats/hdrstat"
)

// The merger's fast way gives the p99 that merging the histograms and
// reading hdrstat's percentile gives, on random windows and picks: a
// log-normal body with a tail, some empty intervals, repeated picks.
func TestMergerMatchesHistogramMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		n := 10 + rng.IntN(40)
		hists := make([][]hdrhistogram.Bar, n)
		for i := range hists {
			if rng.IntN(10) == 0 {
				continue // an interval without a request
			}
			h := hdrhistogram.New(histLowest, histHighest, histDigits)
			for range 50 + rng.IntN(500) {
				v := 800 * math.Exp(0.4*rng.NormFloat64())
				if rng.Float64() < 0.02 {
					v = 2000 + rng.ExpFloat64()*20_000
				}
				if err := h.RecordValue(max(int64(v), 1)); err != nil {
					t.Fatal(err)
				}
			}
			for _, b := range h.Distribution() {
				if b.Count > 0 {
					hists[i] = append(hists[i], b)
				}
			}
		}
		fast, slow := newMerger(hists, true), newMerger(hists, false)
		if !fast.fast || slow.fast {
			t.Fatal("newMerger ignored the layout flag")
		}
		for range 50 {
			pick := make([]int, rng.IntN(n)+1)
			for k := range pick {
				pick[k] = rng.IntN(n)
			}
			want, okW := reference(hists, pick)
			got, ok := fast.p99(pick)
			s, okS := slow.p99(pick)
			if got != want || ok != okW || s != want || okS != okW {
				t.Fatalf("trial %d pick %v: fast %d %v, slow %d %v, reference %d %v", trial, pick, got, ok, s, okS, want, okW)
			}
		}
	}
}

// reference merges the picked intervals into one histogram and reads
// its p99 with hdrstat.
func reference(hists [][]hdrhistogram.Bar, pick []int) (int64, bool) {
	h := hdrhistogram.New(histLowest, histHighest, histDigits)
	for _, i := range pick {
		for _, b := range hists[i] {
			h.RecordValues(b.From, b.Count)
		}
	}
	if h.TotalCount() == 0 {
		return 0, false
	}
	return hdrstat.NewDist(h).Percentile(99), true
}
