// Package steady tells whether a cell's load reached a steady state before
// its kept window, and how noisy the kept window's figures are, from the
// load generator's per-interval series (100 ms intervals by default).
//
// # Steady state
//
// [Analyze] classifies two series of a cell with [changepoint.Classify]
// (PELT with twice Schwarz's penalty, then neighbouring segments at the
// same level merged): throughput (requests per second of each interval)
// and p99 (the p99 of each interval; an interval without a completed
// request counts as a stall as long as the interval). The classes are
// Barrett et al.'s: flat, warm-up, slowdown, no steady state. Two levels
// within the batch's declared noise band of each other are the same
// level. The last interval of a load is left out when it is shorter than
// half an interval: its rate is noise.
//
// The kept window is steady in a series when it lies in the series'
// final steady segment, no changepoint falls inside it, and its drift
// (the mean of its last third against the mean of its first third) is
// within the band: the batch's noise band or three standard errors of
// the series' own noise, whichever is larger. The steady_state fairness
// check fails a cell whose kept window is not steady in either series.
//
// # Noise
//
// A kept window's figures are estimates, and the window's own intervals
// tell how good: [Analyze] resamples the window by a moving block
// bootstrap (Künsch, "The jackknife and the bootstrap for general
// stationary observations", Annals of Statistics 17(3), 1989): blocks of
// consecutive intervals, drawn with replacement, keep the correlation
// from one interval to the next (a collector's rhythm, a neighbour's
// burst) that resampling single intervals would hide. Each replicate's
// throughput is its requests over its duration and its p99 is that of its
// intervals' histograms merged. The noise of a figure is the relative
// half-width of the replicates' central 95% (0.05: ±5%). Blocks are
// max(5, ⌈n^⅓⌉) intervals long (n intervals in the window), a common
// choice for the mean of a weakly dependent series; the replicates are
// drawn from a seed, so a cell's noise is reproducible.
//
// # Adaptive warm-up
//
// A [Detector] watches the throughput series while the load runs and says
// when it has been steady for a declared number of intervals: the series
// so far classifies as flat or warm-up with a final segment at least that
// long, and the last that-many intervals do not drift beyond the band.
package steady

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/pipeline"
	"yardstick/stats/changepoint"
	"yardstick/stats/hdrstat"
)

// Bootstrap settings.
const (
	// Replicates is the number of bootstrap replicates per cell.
	Replicates = 400
	// MinBlock is the shortest bootstrap block, in intervals.
	MinBlock = 5
)

// An Input is one cell's load series and its kept window.
type Input struct {
	// Intervals are the cell's load intervals, in order, warm-up included.
	Intervals []pipeline.Interval
	// KeptFrom and KeptTo bound the kept window: Intervals[KeptFrom:KeptTo].
	KeptFrom, KeptTo int
	// Band is the batch's declared noise band (0.07 for 7%).
	Band float64
	// Seed seeds the bootstrap.
	Seed uint64
}

// Analyze classifies the cell's throughput and p99 series, places its kept
// window in them and measures the window's noise. It returns an error when
// the series or the window are too short to analyse (fewer than 10
// intervals, a window of fewer than 3).
func Analyze(in Input) (pipeline.Steady, error) {
	ivs := usable(in.Intervals)
	to := min(in.KeptTo, len(ivs))
	if len(ivs) < 2*changepoint.DefaultMinSize {
		return pipeline.Steady{}, fmt.Errorf("steady state: %d intervals, need at least %d", len(ivs), 2*changepoint.DefaultMinSize)
	}
	if in.KeptFrom < 0 || to-in.KeptFrom < 3 {
		return pipeline.Steady{}, fmt.Errorf("steady state: kept window [%d,%d) of %d intervals, need at least 3", in.KeptFrom, to, len(ivs))
	}
	rps, p99 := Series(ivs)
	var out pipeline.Steady
	var err error
	if out.Throughput, err = series(rps, changepoint.HigherIsBetter, in.KeptFrom, to, in.Band); err != nil {
		return out, fmt.Errorf("steady state of throughput: %w", err)
	}
	if out.P99, err = series(p99, changepoint.LowerIsBetter, in.KeptFrom, to, in.Band); err != nil {
		return out, fmt.Errorf("steady state of p99: %w", err)
	}
	out.StartUS = -1
	if a, b := out.Throughput.SteadyStart, out.P99.SteadyStart; a >= 0 && b >= 0 {
		out.StartUS = ivs[max(a, b)].StartUS
	}
	out.Noise, err = noise(ivs[in.KeptFrom:to], in.Seed)
	return out, err
}

// usable drops a last interval shorter than half the others.
func usable(ivs []pipeline.Interval) []pipeline.Interval {
	if n := len(ivs); n >= 2 && ivs[n-1].DurationUS*2 < ivs[0].DurationUS {
		return ivs[:n-1]
	}
	return ivs
}

// Series returns the throughput (requests per second) and p99 (us) series
// of ivs; an interval without a completed request has the interval's
// length as its p99.
func Series(ivs []pipeline.Interval) (rps, p99 []float64) {
	rps = make([]float64, len(ivs))
	p99 = make([]float64, len(ivs))
	for i, iv := range ivs {
		rps[i] = iv.RPS()
		p99[i] = float64(iv.P99US)
		if iv.Requests == 0 {
			p99[i] = float64(iv.DurationUS)
		}
	}
	return rps, p99
}

// series classifies x and places the window x[from:to] in it.
func series(x []float64, dir changepoint.Direction, from, to int, band float64) (pipeline.SeriesSteady, error) {
	relTol := max(band, changepoint.DefaultRelTol)
	r, err := changepoint.Classify(x, changepoint.Options{Direction: dir, RelTol: relTol})
	if err != nil {
		return pipeline.SeriesSteady{}, err
	}
	w, err := r.Window(x, from, to)
	if err != nil {
		return pipeline.SeriesSteady{}, err
	}
	s := pipeline.SeriesSteady{
		Class: r.Class, Changepoints: r.Changepoints, SteadyStart: r.SteadyStart,
		KeptChange: finite(w.Change), KeptBand: w.Band,
	}
	if s.Changepoints == nil {
		s.Changepoints = []int{}
	}
	for _, c := range r.Changepoints {
		if from < c && c < to {
			s.KeptChangepoint = true
		}
	}
	s.KeptSteady = w.Steady && w.InSteadyState && !s.KeptChangepoint
	return s, nil
}

// finite clamps an infinite change (a zero mean) to ±1000%.
func finite(v float64) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return math.Copysign(10, v)
	}
	return v
}

// noise is the moving block bootstrap of the window's throughput and p99.
func noise(win []pipeline.Interval, seed uint64) (pipeline.Noise, error) {
	n := len(win)
	block := max(MinBlock, int(math.Ceil(math.Cbrt(float64(n)))))
	out := pipeline.Noise{RPS: -1, P99: -1, Block: block, Replicates: Replicates}
	if n < 2*block {
		return out, nil // too short to resample blocks of it
	}
	hists, same, err := decode(win)
	if err != nil {
		return out, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	m := newMerger(hists, same)
	var rs, ps []float64
	pick := make([]int, 0, n)
	for range Replicates {
		pick = pick[:0]
		for len(pick) < n {
			s := rng.IntN(n - block + 1)
			for i := s; i < s+block && len(pick) < n; i++ {
				pick = append(pick, i)
			}
		}
		var req, dur int64
		for _, i := range pick {
			req += win[i].Requests
			dur += win[i].DurationUS
		}
		if dur > 0 {
			rs = append(rs, float64(req)*1e6/float64(dur))
		}
		if p, ok := m.p99(pick); ok {
			ps = append(ps, float64(p))
		}
	}
	out.RPS, out.P99 = halfWidth(rs), halfWidth(ps)
	return out, nil
}

// decode reads each interval's histogram as its non-empty buckets, and
// says whether all have the load generator's layout (see newMerger).
func decode(win []pipeline.Interval) ([][]hdrhistogram.Bar, bool, error) {
	out := make([][]hdrhistogram.Bar, len(win))
	same := true
	for i, iv := range win {
		if iv.Hist == "" {
			if iv.Requests > 0 {
				return nil, false, fmt.Errorf("interval %d: %d requests and no histogram", iv.Index, iv.Requests)
			}
			continue
		}
		h, err := hdrstat.Decode(iv.Hist)
		if err != nil {
			return nil, false, fmt.Errorf("interval %d: %w", iv.Index, err)
		}
		same = same && sameLayout(h)
		for _, b := range h.Distribution() {
			if b.Count > 0 {
				out[i] = append(out[i], b)
			}
		}
	}
	return out, same, nil
}

// halfWidth is half the central 95% of xs relative to their median; -1
// for too few replicates or a zero median.
func halfWidth(xs []float64) float64 {
	if len(xs) < Replicates/2 {
		return -1
	}
	slices.Sort(xs)
	q := func(p float64) float64 { return xs[int(math.Round(p*float64(len(xs)-1)))] }
	m := q(0.5)
	if m == 0 {
		return -1
	}
	return (q(0.975) - q(0.025)) / 2 / m
}
