package history

import (
	"math"
	"strings"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/stats"
)

// This file is the history's one use of the decision code's metrics
// (decide.Metrics, decide.StartsOf, datasets.Measured): which figures
// a cell has, and how well its kept window knows each.

// MetricNames are the metrics a history follows, in the comparisons
// table's order.
func MetricNames() []string {
	out := make([]string, len(decide.Metrics))
	for i, m := range decide.Metrics {
		out[i] = m.Name
	}
	return out
}

// lowerIsBetter says which way the metric called name improves.
func lowerIsBetter(name string) bool {
	m, _ := decide.MetricNamed(name)
	return m.LowerIsBetter
}

// cellColumns are the cells table's columns the history reads: the
// cell, its status, each compared metric's figure (decide.Metrics'
// columns) and window noise, what says its load never became steady
// (decide.NeverSteady) and the busy shares (decide.Busy).
// TestProjectedFigures holds them to the figures of the whole table.
var cellColumns = func() []string {
	cols := []string{"batch", "cell_name", "variant", "status", "noise_rps", "kept_change", "noise_p99",
		"steady_error", "warmup_auto", "warmup_capped", "steady_class", "others_cpu_share", "loadgen_others_cpu_share"}
	for _, m := range decide.Metrics {
		cols = append(cols, m.Column)
	}
	return cols
}()

// A key names one series: a cell (batch, variant, point) and a metric.
type key struct{ batch, variant, point, metric string }

// figuresOf is each cell's and metric's figure of one run: its measured
// repeats pooled (the starts of a repeat set).
func figuresOf(cells []datasets.Cell) map[key]Figure {
	groups := map[key][]*datasets.Cell{}
	for i := range cells {
		c := &cells[i]
		if !datasets.Measured(c) {
			continue
		}
		k := key{batch: c.Batch, variant: c.Variant, point: pointOf(c.CellName)}
		groups[k] = append(groups[k], c)
	}
	out := make(map[key]Figure, len(groups)*len(decide.Metrics))
	for k, cs := range groups {
		for _, m := range decide.Metrics {
			f, ok := figureOf(decide.StartsOf(cs, m), m.HalfWidth != nil)
			if !ok {
				continue
			}
			k.metric = m.Name
			out[k] = f
		}
	}
	return out
}

// pointOf is the point label of a cell name,
// <batch>/<variant>/<point>/r<repeat>.
func pointOf(name string) string {
	parts := strings.Split(name, "/")
	if len(parts) < 4 {
		return name
	}
	return strings.Join(parts[2:len(parts)-1], "/")
}

// A Figure is one run's value of one series: the mean over the run's
// starts and its 95% interval.
type Figure struct {
	Mean float64
	// Low and High bound the interval; NaN when the run's starts give
	// none (fewer than decide.MinStarts and no within-start uncertainty).
	Low, High float64
	// HalfWidth is the interval's relative half-width; NaN with Low.
	HalfWidth float64
	Starts    int
}

// figureOf pools a run's starts of one metric: the mean, and an interval
// from the spread between the starts (Student's t) and each start's own
// within-window half-width, added in quadrature. Starts whose load never
// became steady are left out, as a decision leaves them out.
func figureOf(starts []decide.Start, within bool) (Figure, bool) {
	var vals, hws []float64
	for _, s := range starts {
		if s.NeverSteady {
			continue
		}
		vals = append(vals, s.Value)
		hws = append(hws, s.HalfWidth)
	}
	n := len(vals)
	if n == 0 {
		return Figure{}, false
	}
	f := Figure{Mean: stats.Mean(vals), Low: math.NaN(), High: math.NaN(), HalfWidth: math.NaN(), Starts: n}
	var w2 float64 // variance of the mean from the windows' own noise
	known := within
	for i, h := range hws {
		if math.IsNaN(h) {
			known = false
			continue
		}
		sd := h * vals[i] / 1.96
		w2 += sd * sd / float64(n*n)
	}
	var b2 float64
	if n >= 2 {
		b2 = variance(vals) / float64(n)
	}
	if n < decide.MinStarts && !known {
		return f, true
	}
	hw := tQuantile(n-1) * math.Sqrt(b2+w2)
	if n < 2 {
		hw = 1.96 * math.Sqrt(w2)
	}
	if f.Mean > 0 {
		f.Low, f.High, f.HalfWidth = f.Mean-hw, f.Mean+hw, hw/f.Mean
	}
	return f, true
}
