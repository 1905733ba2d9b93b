package steady

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/pipeline"
	"yardstick/stats/changepoint"
)

// checkEvery is how many intervals a Detector lets pass between two
// analyses: it runs on the load generator's CPUs while the load runs.
const checkEvery = 5

// A Detector watches a cell's load while it runs and says when it has
// been steady for For intervals, by the criterion the steady_state check
// applies to the kept window afterwards: in throughput and in p99 (see the
// package doc). The zero value is not usable; fill For and Band.
type Detector struct {
	// For is how many intervals the series must have been steady.
	For int
	// Band is the batch's declared margin.
	Band float64

	x       []float64 // throughput of the latest intervals
	tail    []pipeline.Interval
	bars    [][]hdrhistogram.Bar // tail's decoded histograms, once decoded
	decoded []bool
	step    int64 // the first interval's length, us
	added   int
}

// Add appends one interval and reports whether the load so far ends in a
// steady state at least For intervals long. It judges every few
// intervals, and a short last interval not at all.
func (d *Detector) Add(iv pipeline.Interval) bool {
	if !d.Observe(iv) {
		return false
	}
	if d.added < d.For+changepoint.DefaultMinSize || d.added%checkEvery != 0 {
		return false
	}
	return Steady(d.x[max(0, len(d.x)-d.keep()):], d.For, d.Band, changepoint.HigherIsBetter) && d.p99Steady()
}

// Observe appends one interval without judging: after the warm-up, so
// that Window can judge the kept window in the context of the load
// before it. It reports whether the interval was taken (a short last
// interval is not).
func (d *Detector) Observe(iv pipeline.Interval) bool {
	if d.step == 0 {
		d.step = iv.DurationUS
	}
	if iv.DurationUS*2 < d.step {
		return false
	}
	d.x = trim(append(d.x, iv.RPS()), d.keep())
	d.tail = trim(append(d.tail, iv), d.p99Span())
	d.bars = trim(append(d.bars, nil), d.p99Span())
	d.decoded = trim(append(d.decoded, false), d.p99Span())
	d.added++
	return true
}

// keep is how many of the latest intervals are analysed: only the
// recent past matters, and a long warm-up must not make each analysis
// slower than the one before.
func (d *Detector) keep() int { return max(detectorSpan, 4*d.For) }

// Rising says whether the throughput of the last k intervals observed
// rose through them: from their first third to their last by more than
// least, the band, and three standard errors of the series' own
// long-run noise. Such a window was cut from a load still warming up,
// which the detector took for steady (a JIT's plateau before its next
// tier compiles). A window that drifts down, or wanders within its
// noise, is no warm-up: measuring it again would measure the same.
func (d *Detector) Rising(k int, least float64) bool {
	x := d.x[max(0, len(d.x)-d.keep()):]
	if k < 3 || len(x) < max(k, 2*changepoint.DefaultMinSize) {
		return false
	}
	r, err := changepoint.Classify(x, changepoint.Options{
		Direction: changepoint.HigherIsBetter, RelTol: max(d.Band, changepoint.DefaultRelTol), MinSteady: k,
	})
	if err != nil {
		return false
	}
	w, err := r.Window(x, len(x)-k, len(x))
	return err == nil && w.Change > max(w.Band, least)
}

// detectorSpan is how many of the latest intervals a Detector analyses at
// least (60 s at 100 ms).
const detectorSpan = 600

// p99Span is how many of the latest intervals the p99 series is taken
// over: its histograms are decoded only once throughput is steady, and
// only the last For intervals need to be steady in it.
func (d *Detector) p99Span() int { return 4 * d.For }

// trim keeps the last n elements of s, copying them down now and then so
// that s does not grow without bound.
func trim[T any](s []T, n int) []T {
	if len(s) <= 2*n {
		return s
	}
	return append(s[:0], s[len(s)-n:]...)
}

// p99Steady says whether the p99 series of the latest intervals, taken as
// Analyze takes it (groups of intervals holding about p99Requests each,
// their histograms merged), ends in a steady state For intervals long.
func (d *Detector) p99Steady() bool {
	off := max(0, len(d.tail)-d.p99Span())
	tail, bars := d.tail[off:], d.bars[off:]
	g := p99Group(tail, max(0, len(tail)-d.For), len(tail))
	if g > 1 {
		for i, iv := range tail {
			if d.decoded[off+i] {
				continue
			}
			b, err := intervalBars(iv)
			if err != nil {
				return false // an undecodable histogram: nothing says p99 is steady
			}
			bars[i], d.decoded[off+i] = b, true
		}
	}
	// Groups end at the latest interval.
	from := len(tail) % g
	var p99 []float64
	if g == 1 {
		_, p99 = Series(tail[from:])
	} else {
		p99 = groupP99s(bucketsOf(bars[from:]), tail[from:], g)
	}
	return Steady(p99, d.For/g, d.Band, changepoint.LowerIsBetter)
}

// Steady says whether x ends in a steady state at least k points long:
// it classifies as flat, warm-up or slowdown in direction dir with a
// final segment of at least k, and its last k points do not drift beyond
// band (or the series' own noise).
func Steady(x []float64, k int, band float64, dir changepoint.Direction) bool {
	if k < 3 || len(x) < k {
		return false
	}
	r, err := changepoint.Classify(x, changepoint.Options{
		Direction: dir, RelTol: max(band, changepoint.DefaultRelTol), MinSteady: k,
	})
	if err != nil || r.SteadyStart < 0 || len(x)-r.SteadyStart < k {
		return false
	}
	w, err := r.Window(x, len(x)-k, len(x))
	return err == nil && w.Steady
}
