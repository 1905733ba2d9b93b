package changepoint

import (
	"errors"
	"fmt"
	"math"
	"slices"
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
	// DefaultNoiseTol: segment means within three standard errors of
	// their difference (from Result.Noise) are the same level.
	DefaultNoiseTol = 3.0
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
	// NoiseTol is the same band in standard errors of the difference of
	// the two means, σ̂·√(1/m₁ + 1/m₂) for segments of m₁ and m₂ points
	// (σ̂ is Result.Noise, the long-run scale: a mean of m points is known
	// to σ̂/√m); 0 means DefaultNoiseTol. Two means are the same level
	// when they are within either band.
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
	// denominator, 0 for one point); both leave its outliers out.
	Mean, Spread float64
	// Outliers is how many of its intervals are outliers.
	Outliers int
}

// Len is the number of intervals in the segment.
func (s Segment) Len() int { return s.End - s.Start }

// kept is the number of its intervals that are not outliers.
func (s Segment) kept() int { return s.Len() - s.Outliers }

// A Result is the classification of a series.
type Result struct {
	// Class is Flat, Warmup, Slowdown or NoSteadyState.
	Class string
	// Changepoints are the starts of Segments[1:], the changes left after
	// merging equivalent neighbours.
	Changepoints []int
	// Detected are the changepoints the search found, before merging.
	Detected []int
	// Outliers are the indexes of isolated outliers: runs of at most
	// MaxOutlierRun intervals far from the level around them (a
	// collector's pause, a neighbour's burst), left out of the search and
	// of segment means.
	Outliers []int
	// Segments cover the series, in order, after merging.
	Segments []Segment
	// SteadyStart is where the level reaches the band of its final level
	// (0 for Flat): the start of the first segment the search found in
	// the final segment from which all are within the band of the final
	// mean. It is -1 for NoSteadyState.
	SteadyStart int
	// Noise is the robust long-run noise scale σ̂ of the series without
	// its outliers (see the package doc); Penalty the search's penalty,
	// in the cost's units.
	Noise, Penalty float64
	// RelTol, NoiseTol and MinSteady are the tolerances that applied.
	RelTol, NoiseTol float64
	MinSteady        int
	// N is the series' length.
	N int
	// Direction is the metric's direction.
	Direction Direction
}

// Classify marks x's isolated outliers, finds the changepoints of the
// rest, merges neighbouring segments at the same level (see
// Options.RelTol and Options.NoiseTol, smallest difference first) and
// classifies what is left, by the rules of the package doc. It returns an
// error for an empty series, a value that is NaN, infinite or beyond
// ±MaxAbs, a series longer than MaxLen and invalid Options.
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
	out := outliers(x)
	y, at := without(x, out)
	cfg, sigma, err := o.Config.resolve(y)
	if err != nil {
		return Result{}, err
	}
	r := Result{
		Outliers: out, Noise: sigma, Penalty: cfg.Penalty, RelTol: o.RelTol, NoiseTol: o.NoiseTol,
		MinSteady: o.MinSteady, N: len(x), Direction: o.Direction,
	}
	if err := r.defaults(cfg.MinSize); err != nil {
		return Result{}, err
	}
	found, err := detect(y, cfg, sigma)
	if err != nil {
		return Result{}, err
	}
	for _, c := range found {
		r.Detected = append(r.Detected, at[c])
	}
	skip := r.outlierMask()
	bounds := append(append([]int{0}, r.Detected...), len(x))
	var detected []Segment
	for i := range len(bounds) - 1 {
		detected = append(detected, segment(x, skip, bounds[i], bounds[i+1]))
	}
	r.Segments = slices.Clone(detected)
	r.merge(x, skip)
	for _, s := range r.Segments[1:] {
		r.Changepoints = append(r.Changepoints, s.Start)
	}
	r.classify(x, skip, detected)
	return r, nil
}

// without is x less the points at the sorted indexes out, and the index
// in x of each point kept.
func without(x []float64, out []int) (y []float64, at []int) {
	y, at = make([]float64, 0, len(x)-len(out)), make([]int, 0, len(x)-len(out))
	for i, v := range x {
		if len(out) > 0 && out[0] == i {
			out = out[1:]
			continue
		}
		y, at = append(y, v), append(at, i)
	}
	return y, at
}

// outlierMask says for each interval whether it is an outlier; nil when
// none is.
func (r *Result) outlierMask() []bool {
	if len(r.Outliers) == 0 {
		return nil
	}
	skip := make([]bool, r.N)
	for _, i := range r.Outliers {
		skip[i] = true
	}
	return skip
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

// segment summarises x[a:b], leaving out the points skip marks (nil for
// none). A segment of outliers only has their mean.
func segment(x []float64, skip []bool, a, b int) Segment {
	s := Segment{Start: a, End: b}
	var sum float64
	for i := a; i < b; i++ {
		if skip != nil && skip[i] {
			s.Outliers++
			continue
		}
		sum += x[i]
	}
	if s.kept() == 0 {
		s.Mean = mean(x[a:b])
		return s
	}
	s.Mean = sum / float64(s.kept())
	if s.kept() > 1 {
		var ss float64
		for i := a; i < b; i++ {
			if skip == nil || !skip[i] {
				ss += (x[i] - s.Mean) * (x[i] - s.Mean)
			}
		}
		s.Spread = math.Sqrt(ss / float64(s.kept()-1))
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

// same says whether two segments are at the same level: their means
// within RelTol of the larger magnitude, or within NoiseTol standard
// errors of their difference.
func (r *Result) same(a, b Segment) bool {
	se := r.Noise * math.Sqrt(1/float64(max(a.kept(), 1))+1/float64(max(b.kept(), 1)))
	band := max(r.RelTol*max(math.Abs(a.Mean), math.Abs(b.Mean)), r.NoiseTol*se)
	return math.Abs(a.Mean-b.Mean) <= band
}

// better says whether segment a is better than segment b beyond the
// tolerance.
func (r *Result) better(a, b Segment) bool {
	if r.same(a, b) {
		return false
	}
	if r.Direction == LowerIsBetter {
		return a.Mean < b.Mean
	}
	return a.Mean > b.Mean
}

// merge joins neighbouring segments at the same level, the closest pair
// first, until no neighbours are at the same level.
func (r *Result) merge(x []float64, skip []bool) {
	for {
		best, at := math.Inf(1), -1
		for i := range len(r.Segments) - 1 {
			a, b := r.Segments[i], r.Segments[i+1]
			if d := math.Abs(a.Mean - b.Mean); r.same(a, b) && d < best {
				best, at = d, i
			}
		}
		if at < 0 {
			return
		}
		joined := segment(x, skip, r.Segments[at].Start, r.Segments[at+1].End)
		r.Segments[at] = joined
		r.Segments = append(r.Segments[:at+1], r.Segments[at+2:]...)
	}
}

// classify sets Class and SteadyStart from the merged segments and the
// segments the search found.
func (r *Result) classify(x []float64, skip []bool, detected []Segment) {
	final := r.Segments[len(r.Segments)-1]
	if len(r.Segments) == 1 {
		r.Class, r.SteadyStart = Flat, 0
		return
	}
	start := final.Start
	for _, s := range detected {
		if s.Start < final.Start {
			continue
		}
		if !r.same(s, final) {
			start = s.End
		}
	}
	band := r.RelTol * math.Abs(final.Mean)
	// The ramp into the final level, if any, shows best with the step
	// before the final one.
	from := 0
	for _, s := range detected {
		if s.End <= start {
			from = s.Start
		}
	}
	start = rampEnd(x, skip, from, start, band, r.Noise)
	if r.N-start < r.MinSteady {
		r.Class, r.SteadyStart = NoSteadyState, -1
		return
	}
	r.Class, r.SteadyStart = Warmup, start
	for _, s := range r.Segments[:len(r.Segments)-1] {
		if r.better(s, final) {
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
	// first third, relative to the first third's: +0.3 is a 30% rise, and
	// for a positive series 1 + Change is the ratio of the two means (a
	// drift in words, DriftWords). Outliers are left out of both means.
	Change float64
	// Band is the largest |Change| that counts as steady: RelTol, or three
	// standard errors of the difference of the two thirds' means (from
	// the series' long-run noise) relative to the first's, whichever is
	// larger.
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
	skip := r.outlierMask()
	a, b := segment(x, skip, from, from+k), segment(x, skip, to-k, to)
	first, last := a.Mean, b.Mean
	noise := windowZ * r.Noise * math.Sqrt(1/float64(max(a.kept(), 1))+1/float64(max(b.kept(), 1)))
	switch {
	case first != 0:
		w.Change = (last - first) / math.Abs(first)
		w.Band = max(r.RelTol, noise/math.Abs(first))
	case last == first:
		w.Band = r.RelTol
	default: // a first third of mean 0 and a last that differs: no relative change
		w.Change = math.Copysign(math.Inf(1), last-first)
		w.Band = r.RelTol
	}
	w.Steady = w.Segment >= 0 && math.Abs(w.Change) <= w.Band
	return w, nil
}
