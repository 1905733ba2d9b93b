package runner

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"yardstick/datasets"
	"yardstick/pipeline"
	"yardstick/stages/tabulate"
	"yardstick/stats"
)

// With windows.measure "auto", each round's measure window is chosen
// before the round from the batch's starts so far, as Kalibera and Jones
// ("Rigorous Benchmarking in Reasonable Time", ISMM 2013) split a
// budget between the levels of a two-level experiment: with the variance
// of a start's figure between starts σ²_b, the variance of one second of
// a window σ²_w, and the cost of a start c (its cold start, service
// warm-up and warm-up, in seconds of wall time), the variance of a mean
// over n starts of L seconds each is σ²_b/n + σ²_w/(nL) at a cost of
// n(c + L), least for L = √(c·σ²_w/σ²_b). Where starts differ more than
// windows are noisy, that is a short window and many starts.

// roundPlan is the plan round r of batch b runs with: p itself, or with
// an automatic window, a copy whose batch measures the round's window
// (the one st recorded for it, or the one chosen now, recorded in st and
// said on w).
func roundPlan(rd *pipeline.RunDir, p *pipeline.Plan, b *pipeline.Batch, st *pipeline.BatchRounds, r int, w io.Writer) (*pipeline.Plan, error) {
	if !b.Windows.MeasureAuto {
		return p, nil
	}
	var d pipeline.Duration
	if r <= len(st.Measures) {
		d = st.Measures[r-1]
	} else {
		rows, err := tabulate.CellRows(rd, p, b.Name)
		if err != nil {
			return nil, fmt.Errorf("batch %s, round %d: %w", b.Name, r, err)
		}
		var why string
		d, why = chooseMeasure(b, rows)
		fmt.Fprintf(w, "batch %s: round %d measures %s: %s\n", b.Name, r, d.D(), why)
		st.Measures = append(st.Measures[:r-1:r-1], d)
		if err := rd.WriteRounds(b.Name, *st); err != nil {
			return nil, err
		}
	}
	rp := *p
	rp.Batches = slices.Clone(p.Batches)
	for i := range rp.Batches {
		if rp.Batches[i].Name == b.Name {
			rp.Batches[i].Windows.Measure = d
		}
	}
	return &rp, nil
}

// chooseMeasure is the cost-optimal window for the batch's next round
// from its measured cells, and why, in words; the first window
// (Windows.FirstMeasure) until two starts of a variant at a point have
// measured the spread between starts.
func chooseMeasure(b *pipeline.Batch, rows []datasets.Cell) (pipeline.Duration, string) {
	w := b.Windows
	c := measuredComponents(b, rows)
	if c.n == 0 {
		return w.Measure, "no two starts of a variant at a point yet: the first window"
	}
	l := stats.OptimalWindow(c.cost, c.withinPerSecond, c.between)
	lo, hi := w.MeasureMin.D().Seconds(), w.MeasureMax.D().Seconds()
	l = min(max(l, lo), hi)
	d := pipeline.Duration(time.Duration(math.Round(l*10)) * 100 * time.Millisecond)
	return d, fmt.Sprintf("cost-optimal from %d start(s): a start costs %.1f s, starts differ by %.1f%% in throughput, a second of window by ±%.1f%% (between %s and %s)",
		c.n, c.cost, 100*math.Sqrt(c.between), 100*1.959964*math.Sqrt(c.withinPerSecond), w.MeasureMin.D(), w.MeasureMax.D())
}

// components are a batch's variance components of throughput as its
// cells measured them, and the cost of a start per cell.
type components struct {
	n                        int // the cells that measured them
	between, withinPerSecond float64
	cost                     float64
}

// measuredComponents estimates them: the spread of throughput between
// and within starts (SpreadOf); the cost of a start per cell is its
// warm-up plus its share of the start's cold start and service warm-up.
func measuredComponents(b *pipeline.Batch, rows []datasets.Cell) components {
	s := SpreadOf(rows, Throughput)
	if s.N == 0 {
		return components{}
	}
	points := map[string]bool{}
	var warm, start float64
	for i := range rows {
		r := &rows[i]
		if _, _, ok := spreadFigure(r, Throughput); !ok {
			continue
		}
		points[datasets.CellPoint(r).Label()] = true
		start += b.Windows.ServiceWarmup.D().Seconds()
		if r.ColdStartUS != nil {
			start += float64(*r.ColdStartUS) / 1e6
		}
		if r.WarmupUS != nil {
			warm += float64(*r.WarmupUS) / 1e6
		}
	}
	n := float64(s.N)
	return components{n: s.N, between: s.Between, withinPerSecond: s.WithinPerSecond, cost: warm/n + start/n/float64(len(points))}
}

// A Spread is a figure's variance components as cells measured them.
type Spread struct {
	// N is the cells that measured the figure.
	N int
	// Between is the variance of the log of a start's figure from one
	// start to the next: the pooled variance of the starts of each
	// variant at each point of each batch about their own mean, less the
	// mean variance their windows measured of themselves, at least 0.
	Between float64
	// WithinPerSecond is a window's variance of its figure per second of
	// kept window; HalfWidth the median 95% half-width of the windows'.
	WithinPerSecond, HalfWidth float64
}

// A Figure is a cell's figure and the 95% half-width its window
// measured of it; false when the cell has none.
type Figure func(*datasets.Cell) (value, halfWidth float64, ok bool)

// Throughput is a cell's throughput and its window's noise.
func Throughput(c *datasets.Cell) (float64, float64, bool) {
	if c.RPS == nil || c.NoiseRPS == nil {
		return 0, 0, false
	}
	return *c.RPS, *c.NoiseRPS, true
}

// P99 is a cell's p99 and its window's noise.
func P99(c *datasets.Cell) (float64, float64, bool) {
	if c.LatencyP99US == nil || c.NoiseP99 == nil {
		return 0, 0, false
	}
	return float64(*c.LatencyP99US), *c.NoiseP99, true
}

// spreadFigure is figure f of measured cell c when it counts in a
// spread: a positive value whose kept window measured its noise.
func spreadFigure(c *datasets.Cell, f Figure) (float64, float64, bool) {
	v, hw, ok := f(c)
	if !ok || !datasets.Measured(c) || !(v > 0) || hw < 0 || c.KeptDurationUS == nil {
		return 0, 0, false
	}
	return v, hw, true
}

// SpreadOf estimates figure f's spread from the cells: those of one
// variant at one point of one batch are the starts of one group.
func SpreadOf(rows []datasets.Cell, f Figure) Spread {
	groups := map[string][]float64{}
	var s Spread
	var within float64
	var hws []float64
	for i := range rows {
		r := &rows[i]
		v, hw, ok := spreadFigure(r, f)
		if !ok {
			continue
		}
		k := r.Batch + "\x00" + r.Variant + "\x00" + datasets.CellPoint(r).Label()
		groups[k] = append(groups[k], math.Log(v))
		w := (hw / 1.959964) * (hw / 1.959964)
		within += w
		s.WithinPerSecond += w * float64(*r.KeptDurationUS) / 1e6
		hws = append(hws, hw)
		s.N++
	}
	var ss float64
	df := 0
	for _, g := range groups {
		m := stats.Mean(g)
		for _, x := range g {
			ss += (x - m) * (x - m)
		}
		df += len(g) - 1
	}
	if df < 1 {
		return Spread{}
	}
	n := float64(s.N)
	s.Between = max(ss/float64(df)-within/n, 0)
	s.WithinPerSecond /= n
	s.HalfWidth = stats.Median(hws)
	return s
}
