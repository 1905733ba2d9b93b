// Package steady tells whether a cell's load reached a steady state before
// its kept window, and how noisy the kept window's figures are, from the
// load generator's per-interval series (100 ms intervals by default).
//
// # Steady state
//
// [Analyze] classifies two series of a cell with [changepoint.Classify]
// (isolated outliers marked and left out, an exact changepoint search
// with twice Schwarz's penalty, then neighbouring segments at the same
// level merged): throughput (requests per second of each interval)
// and p99 (the p99 of each interval; an interval without a completed
// request counts as a stall as long as the interval). The classes are
// Barrett et al.'s: flat, warm-up, slowdown, no steady state. Two levels
// within the batch's declared noise band of each other are the same
// level. The last interval of a load is left out when it is shorter than
// half an interval: its rate is noise.
//
// The kept window is steady in a series when it lies in the series'
// final steady segment, no changepoint falls inside it, and its drift
// (the mean of its last third against the mean of its first third,
// relative to the first, outliers left out) is within the band: the
// batch's noise band or three standard errors of the series' own
// long-run noise, whichever is larger. [Classify] runs the same analysis
// on any series (yardstick steady). The steady_state fairness
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
// A [Detector] watches the load while it runs and says when it has been
// steady for a declared number of intervals, by the criterion that the
// steady_state check later applies to the kept window, in both series:
// the throughput series so far, and the p99 series of the latest
// intervals (taken in groups as above, from the histograms), each
// classifies with a final steady segment at least that long, and the
// last that-many intervals do not drift beyond the band. A detector that
// watched throughput alone ended a closed loop's warm-up while a JIT was
// still shortening each request: throughput was already at its ceiling,
// p99 still fell through the kept window, and the check failed the cell.
// The p99 histograms are decoded only once throughput is steady.
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
	rps, _ := Series(ivs)
	var out pipeline.Steady
	var err error
	if out.Throughput, err = series(rps, changepoint.HigherIsBetter, in.KeptFrom, to, in.Band); err != nil {
		return out, fmt.Errorf("steady state of throughput: %w", err)
	}
	g := p99Group(ivs, in.KeptFrom, to)
	p99, err := p99Series(ivs, g)
	if err != nil {
		return out, fmt.Errorf("steady state of p99: %w", err)
	}
	if out.P99, err = grouped(p99, g, changepoint.LowerIsBetter, in.KeptFrom, to, in.Band); err != nil {
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

// p99Requests is how many requests a p99 of the p99 series should stand
// on: ten above it. An interval of 100 ms at a few thousand requests per
// second has a handful above its p99, which then jumps between the body
// and the tail of the distribution from one interval to the next.
const p99Requests = 1000

// p99Group is how many consecutive intervals make one point of the p99
// series: enough for p99Requests at the kept window's median rate, but at
// most a sixth of the kept window, so that it still holds six points.
func p99Group(ivs []pipeline.Interval, from, to int) int {
	for _, iv := range ivs {
		if iv.Requests > 0 && iv.Hist == "" {
			return 1 // nothing to merge
		}
	}
	reqs := make([]int64, 0, to-from)
	for _, iv := range ivs[from:to] {
		reqs = append(reqs, iv.Requests)
	}
	slices.Sort(reqs)
	med := max(reqs[len(reqs)/2], 1)
	g := int((p99Requests + med - 1) / med)
	return max(min(g, (to-from)/6), 1)
}

// p99Series is the p99 of each group of g consecutive intervals, their
// histograms merged; a group without a completed request counts as a
// stall as long as the group. Intervals without histograms (a checkpoint
// of an older yardstick) give their own p99s, ungrouped (g must be 1).
func p99Series(ivs []pipeline.Interval, g int) ([]float64, error) {
	if g == 1 {
		_, p99 := Series(ivs)
		return p99, nil
	}
	b, err := newBuckets(ivs)
	if err != nil {
		return nil, err
	}
	return groupP99s(b, ivs, g), nil
}

// groupP99s is p99Series over buckets b of ivs.
func groupP99s(b *buckets, ivs []pipeline.Interval, g int) []float64 {
	var out []float64
	pick := make([]int, 0, g)
	for i := 0; i+g <= len(ivs); i += g {
		pick = pick[:0]
		var dur int64
		for j := i; j < i+g; j++ {
			pick = append(pick, j)
			dur += ivs[j].DurationUS
		}
		p, ok := b.percentile(pick, 99)
		if !ok {
			p = dur
		}
		out = append(out, float64(p))
	}
	return out
}

// grouped classifies x, a series of groups of g intervals, with the kept
// window [from, to) of intervals: the groups wholly inside it. The result
// is in intervals again.
func grouped(x []float64, g int, dir changepoint.Direction, from, to int, band float64) (pipeline.SeriesSteady, error) {
	s, err := series(x, dir, (from+g-1)/g, to/g, band)
	if err != nil || g == 1 {
		return s, err
	}
	for i := range s.Changepoints {
		s.Changepoints[i] *= g
	}
	for i := range s.Outliers {
		s.Outliers[i] *= g
	}
	if s.SteadyStart > 0 {
		s.SteadyStart *= g
	}
	return s, nil
}

// MaxPoints is the longest series classified as it is: a longer one (a
// load of more than five minutes at 100 ms) is classified in groups of
// consecutive intervals, each the mean of its group, so that the search
// stays fast; its changepoints are then multiples of the group's length.
const MaxPoints = 3000

// A Classified series is what Classify finds in it, in the series' own
// indexes.
type Classified struct {
	// Class is flat, warmup, slowdown or no_steady_state.
	Class string
	// Changepoints are where a new level starts; SteadyStart where the
	// level reached the band of its final level, -1 for no steady state.
	Changepoints []int
	SteadyStart  int
	// Outliers are the isolated outliers left out of the segmentation.
	Outliers []int
	// Noise is the series' robust long-run noise scale, in its units (of
	// a group's mean when Group > 1).
	Noise float64
	// Group is how many points make one point of the classified series:
	// 1 up to MaxPoints points, more beyond (indexes are then multiples of
	// it).
	Group int
}

// Classify classifies a series as Analyze classifies a cell's
// throughput: changepoint.Classify with the noise band band (at least
// changepoint.DefaultRelTol), and in groups of points beyond MaxPoints.
func Classify(x []float64, dir changepoint.Direction, band float64) (Classified, error) {
	r, _, k, err := classify(x, dir, band)
	if err != nil {
		return Classified{}, err
	}
	c := Classified{Class: r.Class, Changepoints: scale(r.Changepoints, k), SteadyStart: r.SteadyStart, Outliers: scale(r.Outliers, k), Noise: r.Noise, Group: k}
	if c.SteadyStart > 0 {
		c.SteadyStart *= k
	}
	return c, nil
}

// classify classifies x in groups of k points, k the fewest that make at
// most MaxPoints, and returns the grouped series too.
func classify(x []float64, dir changepoint.Direction, band float64) (changepoint.Result, []float64, int, error) {
	k := max(1, (len(x)+MaxPoints-1)/MaxPoints)
	xs := coarsen(x, k)
	r, err := changepoint.Classify(xs, changepoint.Options{Direction: dir, RelTol: max(band, changepoint.DefaultRelTol)})
	return r, xs, k, err
}

// scale multiplies indexes by k, into a new slice (empty, not nil).
func scale(idx []int, k int) []int {
	out := make([]int, 0, len(idx))
	for _, i := range idx {
		out = append(out, i*k)
	}
	return out
}

// series classifies x and places the window x[from:to] in it.
func series(x []float64, dir changepoint.Direction, from, to int, band float64) (pipeline.SeriesSteady, error) {
	r, xs, k, err := classify(x, dir, band)
	if err != nil {
		return pipeline.SeriesSteady{}, err
	}
	from, to = from/k, (to+k-1)/k
	w, err := r.Window(xs, from, to)
	if err != nil {
		return pipeline.SeriesSteady{}, err
	}
	s := pipeline.SeriesSteady{
		Class: r.Class, Changepoints: scale(r.Changepoints, k), SteadyStart: r.SteadyStart,
		KeptChange: finite(w.Change), KeptBand: w.Band,
	}
	if len(r.Outliers) > 0 {
		s.Outliers = scale(r.Outliers, k)
	}
	for _, c := range r.Changepoints {
		if from < c && c < to {
			s.KeptChangepoint = true
		}
	}
	if s.SteadyStart > 0 {
		s.SteadyStart *= k
	}
	s.KeptSteady = w.Steady && w.InSteadyState && !s.KeptChangepoint
	return s, nil
}

// coarsen replaces each group of k points of x by their mean.
func coarsen(x []float64, k int) []float64 {
	if k <= 1 {
		return x
	}
	out := make([]float64, 0, (len(x)+k-1)/k)
	for i := 0; i < len(x); i += k {
		g := x[i:min(i+k, len(x))]
		var sum float64
		for _, v := range g {
			sum += v
		}
		out = append(out, sum/float64(len(g)))
	}
	return out
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
	b, err := newBuckets(win)
	if err != nil {
		return out, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
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
		if p, ok := b.percentile(pick, 99); ok {
			ps = append(ps, float64(p))
		}
	}
	out.RPS, out.P99 = halfWidth(rs), halfWidth(ps)
	return out, nil
}

// buckets are the window's intervals' histograms as counts over the
// union of their non-empty buckets, so that a replicate's merged
// histogram is a sum of short arrays.
type buckets struct {
	to     []int64   // the union's buckets' highest equivalent values, ascending
	counts [][]int64 // per interval: (bucket index, count) pairs, flattened
	sum    []int64   // scratch: a replicate's counts per bucket
}

// newBuckets decodes each interval's histogram.
func newBuckets(win []pipeline.Interval) (*buckets, error) {
	bars := make([][]hdrhistogram.Bar, len(win))
	for i, iv := range win {
		var err error
		if bars[i], err = intervalBars(iv); err != nil {
			return nil, err
		}
	}
	return bucketsOf(bars), nil
}

// intervalBars decodes an interval's histogram into its non-empty bars;
// none for an interval without requests or histogram.
func intervalBars(iv pipeline.Interval) ([]hdrhistogram.Bar, error) {
	if iv.Hist == "" {
		if iv.Requests > 0 {
			return nil, fmt.Errorf("interval %d: %d requests and no histogram", iv.Index, iv.Requests)
		}
		return nil, nil
	}
	h, err := hdrstat.Decode(iv.Hist)
	if err != nil {
		return nil, fmt.Errorf("interval %d: %w", iv.Index, err)
	}
	var out []hdrhistogram.Bar
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			out = append(out, b)
		}
	}
	return out, nil
}

// bucketsOf lays the intervals' bars over the union of their buckets.
func bucketsOf(bars [][]hdrhistogram.Bar) *buckets {
	seen := map[int64]bool{}
	for _, bs := range bars {
		for _, b := range bs {
			seen[b.To] = true
		}
	}
	b := &buckets{counts: make([][]int64, len(bars))}
	for v := range seen {
		b.to = append(b.to, v)
	}
	slices.Sort(b.to)
	for i, bs := range bars {
		for _, bar := range bs {
			k, _ := slices.BinarySearch(b.to, bar.To)
			b.counts[i] = append(b.counts[i], int64(k), bar.Count)
		}
	}
	b.sum = make([]int64, len(b.to))
	return b
}

// percentile is percentile p of the intervals in pick merged, by
// hdrstat's convention; false when they hold no value.
func (b *buckets) percentile(pick []int, p float64) (int64, bool) {
	clear(b.sum)
	var total int64
	for _, i := range pick {
		c := b.counts[i]
		for j := 0; j < len(c); j += 2 {
			b.sum[c[j]] += c[j+1]
			total += c[j+1]
		}
	}
	if total == 0 {
		return 0, false
	}
	rank := hdrstat.Rank(p, total)
	var cum int64
	for k, n := range b.sum {
		if cum += n; cum >= rank {
			return b.to[k], true
		}
	}
	return b.to[len(b.to)-1], true
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
