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

// measuredComponents estimates them: the pooled variance of the log
// throughput of the starts of each variant at each point, less the mean
// variance their windows measured of themselves (at least 0), and that
// window variance per second of kept window; the cost of a start per
// cell is its warm-up plus its share of the start's cold start and
// service warm-up.
func measuredComponents(b *pipeline.Batch, rows []datasets.Cell) components {
	groups := map[string][]float64{}
	points := map[string]bool{}
	var c components
	var within, warm, start float64
	for i := range rows {
		r := &rows[i]
		if !datasets.Measured(r) || r.RPS == nil || *r.RPS <= 0 || r.NoiseRPS == nil || *r.NoiseRPS < 0 || r.KeptDurationUS == nil {
			continue
		}
		pt := datasets.CellPoint(r).Label()
		points[pt] = true
		groups[r.Variant+"\x00"+pt] = append(groups[r.Variant+"\x00"+pt], math.Log(*r.RPS))
		v := (*r.NoiseRPS / 1.959964) * (*r.NoiseRPS / 1.959964)
		within += v
		c.withinPerSecond += v * float64(*r.KeptDurationUS) / 1e6
		start += b.Windows.ServiceWarmup.D().Seconds()
		if r.ColdStartUS != nil {
			start += float64(*r.ColdStartUS) / 1e6
		}
		if r.WarmupUS != nil {
			warm += float64(*r.WarmupUS) / 1e6
		}
		c.n++
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
	if df < 1 || c.n == 0 {
		return components{}
	}
	n := float64(c.n)
	c.between = max(ss/float64(df)-within/n, 0)
	c.withinPerSecond /= n
	c.cost = warm/n + start/n/float64(len(points))
	return c
}
