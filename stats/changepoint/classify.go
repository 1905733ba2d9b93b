package changepoint

import (
	"errors"
	"fmt"
	"math"
)

// The classes of a series, after Barrett et al. (2017).
const (
	// Flat: no change left after merging equivalent segments.
	Flat = "flat"
	// Warmup: the final segment is the best, within the tolerance.
	Warmup = "warmup"
	// Slowdown: an earlier segment is better than the final one.
	Slowdown = "slowdown"
	// NoSteadyState: the final segment is shorter than the minimum
	// steady length.
	NoSteadyState = "no_steady_state"
)

// A Direction says which way a metric improves.
type Direction int

const (
	// HigherIsBetter is for throughput: requests per interval.
	HigherIsBetter Direction = iota + 1
	// LowerIsBetter is for latency: p99 per interval.
	LowerIsBetter
)

// Default tolerances of Classify.
const (
	// DefaultRelTol: segment means within 2% of each other are the same
	// level.
	DefaultRelTol = 0.02
	// DefaultNoiseTol: segment means within one noise standard deviation
	// (Result.Noise) of each other are the same level.
	DefaultNoiseTol = 1.0
)

// windowZ is how many standard errors of the difference between the
// first and last thirds of a window Window tolerates as noise.
const windowZ = 3

// Options set up Classify.
type Options struct {
	// Config is the changepoint search.
	Config
	// Direction is required.
	Direction Direction
	// RelTol is the relative band within which two segment means are the
	// same level; 0 means DefaultRelTol.
	RelTol float64
	// NoiseTol is the same band in multiples of the series' noise
	// (Result.Noise); 0 means DefaultNoiseTol. Two means are the same level when
	// they are within either band.
	NoiseTol float64
	// MinSteady is the minimum length, in intervals, of a final segment
	// that counts as a steady state; 0 means a quarter of the series (and
	// at least the minimum segment length). It may not exceed the series.
	MinSteady int
}

// A Segment is a run of intervals at one level: x[Start:End].
type Segment struct {
	Start, End int
	// Mean is the segment's mean; Spread its standard deviation (n-1
	// denominator, 0 for one point).
	Mean, Spread float64
}

// Len is the number of intervals in the segment.
func (s Segment) Len() int { return s.End - s.Start }

// A Result is the classification of a series.
type Result struct {
	// Class is Flat, Warmup, Slowdown or NoSteadyState.
	Class string
	// Changepoints are the starts of Segments[1:], the changes left after
	// merging equivalent neighbours.
	Changepoints []int
	// Detected are the changepoints the search found, before merging.
	Detected []int
	// Segments cover the series, in order, after merging.
	Segments []Segment
	// SteadyStart is where the final segment starts (0 for Flat), -1 for
	// NoSteadyState.
	SteadyStart int
	// Noise is the series' robust noise scale σ̂ (see the package doc);
	// Penalty the search's penalty, in the cost's units.
	Noise, Penalty float64
	// RelTol, NoiseTol and MinSteady are the tolerances that applied.
	RelTol, NoiseTol float64
	MinSteady        int
	// N is the series' length.
	N int
	// Direction is the metric's direction.
	Direction Direction
}

// Classify finds the changepoints of x, merges neighbouring segments at
// the same level (see Options.RelTol and Options.NoiseTol, smallest
// difference first) and classifies what is left, by the rules of the
// package doc. It returns an error for an empty series, a value that is
// NaN, infinite or beyond ±MaxAbs, a series longer than MaxLen and
// invalid Options.
func Classify(x []float64, o Options) (Result, error) {
	if len(x) == 0 {
		return Result{}, errors.New("changepoint: empty series")
	}
	if err := checkSeries(x); err != nil {
		return Result{}, err
	}
	if o.Direction != HigherIsBetter && o.Direction != LowerIsBetter {
		return Result{}, fmt.Errorf("changepoint: direction %d, want HigherIsBetter or LowerIsBetter", int(o.Direction))
	}
	cfg, sigma, err := o.Config.resolve(x)
	if err != nil {
		return Result{}, err
	}
	r := Result{
		Noise: sigma, Penalty: cfg.Penalty, RelTol: o.RelTol, NoiseTol: o.NoiseTol,
		MinSteady: o.MinSteady, N: len(x), Direction: o.Direction,
	}
	if err := r.defaults(cfg.MinSize); err != nil {
		return Result{}, err
	}
	if r.Detected, err = detect(x, cfg, sigma); err != nil {
		return Result{}, err
	}
	bounds := append(append([]int{0}, r.Detected...), len(x))
	for i := range len(bounds) - 1 {
		r.Segments = append(r.Segments, segment(x, bounds[i], bounds[i+1]))
	}
	r.merge(x)
	for _, s := range r.Segments[1:] {
		r.Changepoints = append(r.Changepoints, s.Start)
	}
	r.classify()
	return r, nil
}

// defaults checks and fills in the tolerances.
func (r *Result) defaults(minSize int) error {
	for _, t := range []*float64{&r.RelTol, &r.NoiseTol} {
		if math.IsNaN(*t) || math.IsInf(*t, 0) || *t < 0 {
			return fmt.Errorf("changepoint: tolerance %v, want a finite value >= 0", *t)
		}
	}
	if r.RelTol == 0 {
		r.RelTol = DefaultRelTol
	}
	if r.NoiseTol == 0 {
		r.NoiseTol = DefaultNoiseTol
	}
	if r.MinSteady < 0 || r.MinSteady > r.N {
		return fmt.Errorf("changepoint: minimum steady length %d, want 0..%d (the series' length)", r.MinSteady, r.N)
	}
	if r.MinSteady == 0 {
		r.MinSteady = min(max((r.N+3)/4, minSize), r.N)
	}
	return nil
}

// segment summarises x[a:b].
func segment(x []float64, a, b int) Segment {
	s := Segment{Start: a, End: b, Mean: mean(x[a:b])}
	if b-a > 1 {
		var ss float64
		for _, v := range x[a:b] {
			ss += (v - s.Mean) * (v - s.Mean)
		}
		s.Spread = math.Sqrt(ss / float64(b-a-1))
	}
	return s
}

// mean of xs, summed from the first point.
func mean(xs []float64) float64 {
	var sum float64
	for _, v := range xs {
		sum += v
	}
	return sum / float64(len(xs))
}

// same says whether two segment means are at the same level: within
// RelTol of the larger magnitude, or within NoiseTol noise deviations.
func (r *Result) same(a, b float64) bool {
	band := max(r.RelTol*max(math.Abs(a), math.Abs(b)), r.NoiseTol*r.Noise)
	return math.Abs(a-b) <= band
}

// better says whether mean a is better than mean b beyond the tolerance.
func (r *Result) better(a, b float64) bool {
	if r.same(a, b) {
		return false
	}
	if r.Direction == LowerIsBetter {
		return a < b
	}
	return a > b
}

// merge joins neighbouring segments at the same level, the closest pair
// first, until no neighbours are at the same level.
func (r *Result) merge(x []float64) {
	for {
		best, at := math.Inf(1), -1
		for i := range len(r.Segments) - 1 {
			a, b := r.Segments[i].Mean, r.Segments[i+1].Mean
			if d := math.Abs(a - b); r.same(a, b) && d < best {
				best, at = d, i
			}
		}
		if at < 0 {
			return
		}
		joined := segment(x, r.Segments[at].Start, r.Segments[at+1].End)
		r.Segments[at] = joined
		r.Segments = append(r.Segments[:at+1], r.Segments[at+2:]...)
	}
}

// classify sets Class and SteadyStart from the merged segments.
func (r *Result) classify() {
	final := r.Segments[len(r.Segments)-1]
	switch {
	case len(r.Segments) == 1:
		r.Class, r.SteadyStart = Flat, 0
		return
	case final.Len() < r.MinSteady:
		r.Class, r.SteadyStart = NoSteadyState, -1
		return
	}
	r.Class, r.SteadyStart = Warmup, final.Start
	for _, s := range r.Segments[:len(r.Segments)-1] {
		if r.better(s.Mean, final.Mean) {
			r.Class = Slowdown
			return
		}
	}
}

// A Window is what Result.Window finds in x[From:To].
type Window struct {
	From, To int
	// Segment is the index in Result.Segments of the segment that holds
	// the whole window, -1 when the window crosses a changepoint.
	Segment int
	// InSteadyState says the window lies in the final segment of a series
	// that reached a steady state (SteadyStart >= 0).
	InSteadyState bool
	// Change is the mean of the window's last third minus the mean of its
	// first third, relative to the window's mean: +0.3 is a 30% rise.
	Change float64
	// Band is the largest |Change| that counts as steady: RelTol, or three
	// standard errors of the difference of the two thirds' means (from
	// the series' noise), whichever is larger.
	Band float64
	// Steady says the window holds no changepoint and |Change| <= Band.
	Steady bool
}

// Window tells whether x[from:to], the same series r classifies, lies
// inside one segment and how much it changes from its first third to its
// last. The window needs at least three intervals.
func (r Result) Window(x []float64, from, to int) (Window, error) {
	if len(x) != r.N {
		return Window{}, fmt.Errorf("changepoint: series of %d points, the result is of %d", len(x), r.N)
	}
	if from < 0 || to > len(x) || to-from < 3 {
		return Window{}, fmt.Errorf("changepoint: window [%d,%d) of a series of %d, want 0 <= from, from+3 <= to <= %d", from, to, len(x), len(x))
	}
	if err := checkSeries(x[from:to]); err != nil {
		return Window{}, err
	}
	w := Window{From: from, To: to, Segment: -1}
	for i, s := range r.Segments {
		if s.Start <= from && to <= s.End {
			w.Segment = i
		}
	}
	w.InSteadyState = r.SteadyStart >= 0 && from >= r.SteadyStart
	k := (to - from) / 3
	m, first, last := mean(x[from:to]), mean(x[from:from+k]), mean(x[to-k:to])
	noise := windowZ * r.Noise * math.Sqrt(2/float64(k))
	switch {
	case m != 0:
		w.Change = (last - first) / math.Abs(m)
		w.Band = max(r.RelTol, noise/math.Abs(m))
	case last == first:
		w.Band = r.RelTol
	default: // a zero mean with thirds that differ: no relative change
		w.Change = math.Copysign(math.Inf(1), last-first)
		w.Band = r.RelTol
	}
	w.Steady = w.Segment >= 0 && math.Abs(w.Change) <= w.Band
	return w, nil
}
