package steady

import (
	"yardstick/pipeline"
	"yardstick/stats/changepoint"
)

// checkEvery is how many intervals a Detector lets pass between two
// analyses: it runs on the load generator's CPUs while the load runs.
const checkEvery = 5

// A Detector watches a cell's throughput while its load runs and says
// when it has been steady for For intervals (see the package doc). The
// zero value is not usable; fill For and Band.
type Detector struct {
	// For is how many intervals the series must have been steady.
	For int
	// Band is the batch's declared noise band.
	Band float64

	x     []float64
	step  int64 // the first interval's length, us
	added int
}

// Add appends one interval and reports whether the throughput series so
// far ends in a steady state at least For intervals long. It judges every
// few intervals, and a short last interval not at all.
func (d *Detector) Add(iv pipeline.Interval) bool {
	if d.step == 0 {
		d.step = iv.DurationUS
	}
	if iv.DurationUS*2 < d.step {
		return false
	}
	d.x = append(d.x, iv.RPS())
	d.added++
	n := len(d.x)
	if n < d.For+changepoint.DefaultMinSize || d.added%checkEvery != 0 {
		return false
	}
	// Only the recent past matters, and a long warm-up must not make
	// each analysis slower than the one before.
	keep := max(detectorSpan, 4*d.For)
	return Steady(d.x[max(0, n-keep):], d.For, d.Band)
}

// detectorSpan is how many of the latest intervals a Detector analyses at
// least (60 s at 100 ms).
const detectorSpan = 600

// Steady says whether x ends in a steady state at least k points long:
// it classifies as flat, warm-up or slowdown with a final segment of at
// least k, and its last k points do not drift beyond band (or the
// series' own noise).
func Steady(x []float64, k int, band float64) bool {
	if k < 3 || len(x) < k {
		return false
	}
	r, err := changepoint.Classify(x, changepoint.Options{
		Direction: changepoint.HigherIsBetter, RelTol: max(band, changepoint.DefaultRelTol), MinSteady: k,
	})
	if err != nil || r.SteadyStart < 0 || len(x)-r.SteadyStart < k {
		return false
	}
	w, err := r.Window(x, len(x)-k, len(x))
	return err == nil && w.Steady
}
