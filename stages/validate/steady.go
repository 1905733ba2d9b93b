package validate

import (
	"time"

	"yardstick/stats/changepoint"
	"yardstick/stats/steady"
)

// Bounds of the load generator's reporting interval (its own bounds).
const (
	minLoadInterval = 10 * time.Millisecond
	maxLoadInterval = 10 * time.Second
)

// checkSteadyWindows: the windows leave the steady-state analysis enough
// intervals. The kept window needs three (an error: the steady_state
// check would fail every cell); two bootstrap blocks of it are needed to
// measure noise (a warning: without it throughput and p99 comparisons are
// undecided); an adaptive
// warm-up needs a steadyFor of at least three intervals, below warmupMax.
func checkSteadyWindows(c *checker) {
	w, s := c.b.Windows, c.b.Sampling
	if li := s.LoadInterval.D(); li != 0 && (li < minLoadInterval || li > maxLoadInterval) {
		c.add(Error, "windows", c.pos("sampling", "loadInterval"), "sampling.loadInterval %s: want %s..%s", li, minLoadInterval, maxLoadInterval)
		return
	}
	step := s.Load()
	kept := int((w.Measure.D() - w.DiscardHead.D()) / step)
	if w.Measure.D() > w.DiscardHead.D() && kept < 3 {
		c.add(Error, "windows", c.pos("windows", "measure"), "the kept window (measure %s less discard head %s) holds %d load interval(s) of %s; the steady-state analysis needs at least 3", w.Measure, w.DiscardHead, kept, step)
	} else if kept >= 3 && kept < 2*steady.MinBlock {
		c.add(Warning, "windows", c.pos("windows", "measure"), "the kept window holds %d load intervals of %s, fewer than the %d that measure its noise: its throughput and p99 comparisons will be undecided", kept, step, 2*steady.MinBlock)
	}
	if total := int((w.MaxWarmup() + w.Measure.D()) / step); total < 2*changepoint.DefaultMinSize {
		c.add(Error, "windows", c.pos("windows"), "warm-up and measure hold %d load intervals of %s; the steady-state analysis needs at least %d", total, step, 2*changepoint.DefaultMinSize)
	}
	if !w.WarmupAuto {
		return
	}
	if n := int(w.SteadyFor.D() / step); n < 3 {
		c.add(Error, "windows", c.pos("windows", "steadyFor"), "windows.steadyFor %s is %d load interval(s) of %s; want at least 3", w.SteadyFor, n, step)
	}
	if w.SteadyFor.D() >= w.WarmupMax.D() {
		c.add(Error, "windows", c.pos("windows", "warmupMax"), "windows.warmupMax %s must be longer than windows.steadyFor %s", w.WarmupMax, w.SteadyFor)
	}
}
