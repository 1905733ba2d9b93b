package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"yardstick/datasets"
	"yardstick/pipeline"
	"yardstick/stages/report/analysis"
	"yardstick/stats/changepoint"
)

// Steady state in the report: whether each cell's kept window lay in a
// steady state of its load (the cells table's changepoint analysis, see
// package stats/steady), said in words at the top of the batch and beside
// every comparison a cell that was not steady takes part in, shown per
// cell in the batch's "Steady state" section, and drawn as a ramp per
// variant: requests per second of each interval, the changepoints and
// the kept window.

// notSteady says why cell c's kept window was not steady, in words ("was
// still warming up inside its kept window (throughput drift x1.15
// higher)"); "" when it was, or when the tables say nothing about it (an
// older run).
func notSteady(c *datasets.Cell) string {
	u := analysis.UnsteadyOf(c)
	var why []string
	if u.NoAnalysis {
		why = append(why, "has no steady-state analysis ("+*c.SteadyError+")")
	}
	if u.Capped {
		why = append(why, "reached the cap of its adaptive warm-up without a steady state")
	}
	if u.Throughput {
		why = append(why, throughputWhy(c))
	}
	if u.P99 {
		s := "had a p99 that was not steady in its kept window (" + deref(c.P99Class)
		if c.P99KeptChange != nil {
			s += ", drift " + changepoint.DriftWords(*c.P99KeptChange)
		}
		why = append(why, s+")")
	}
	if u.FailedCheck {
		why = append(why, "failed the steady_state check")
	}
	return strings.Join(why, "; ")
}

// throughputWhy describes a throughput series whose kept window was not
// steady, by its class and the window's drift.
func throughputWhy(c *datasets.Cell) string {
	drift := ""
	if c.KeptChange != nil {
		drift = " (throughput drift " + changepoint.DriftWords(*c.KeptChange) + ")"
	}
	rising := c.KeptChange != nil && *c.KeptChange > 0
	switch class := deref(c.SteadyClass); {
	case class == pipeline.SteadyNone:
		return "never reached a steady throughput" + drift
	case class == pipeline.SteadyWarmup || rising:
		return "was still warming up inside its kept window" + drift
	case class == pipeline.SteadySlowdown || c.KeptChange != nil && *c.KeptChange < 0:
		return "was slowing down inside its kept window" + drift
	}
	return "had a changepoint inside its kept window" + drift
}

// setWho names repeat set g's unsteady cells us in a sentence: "jvm at c8"
// with one repeat, "jvm at c8 (3 of 5 repeats)" with several.
func setWho(b *analysis.Batch, g *analysis.RepeatSet, us []*datasets.Cell) string {
	s := g.Variant.Label + " at " + g.Point.Label()
	switch {
	case b.Repeats <= 1:
	case len(us) == 1:
		s += fmt.Sprintf(" (repeat %d)", us[0].Repeat)
	default:
		s += fmt.Sprintf(" (%d of %d repeats)", len(us), len(g.Measured))
	}
	return s
}

// unsteady says why repeat set g's cells were not steady, in one sentence
// (the first unsteady repeat's reasons); "" when all were.
func unsteady(b *analysis.Batch, g *analysis.RepeatSet) string {
	us := analysis.UnsteadyCells(g)
	if len(us) == 0 {
		return ""
	}
	if len(us) > 1 {
		return fmt.Sprintf("%s, repeat %d for one, %s", setWho(b, g, us), us[0].Repeat, notSteady(us[0]))
	}
	return setWho(b, g, us) + " " + notSteady(us[0])
}

// biasNote is what a comparison of candidate g against base says when
// starts of either were left out, their load never steady; "" when none
// was. A start that drifted inside its kept window counts, its drift in
// its own interval: that is a note on the measurement, folded below.
func biasNote(b *analysis.Batch, base, g *analysis.RepeatSet) string {
	var who []string
	for _, s := range []*analysis.RepeatSet{base, g} {
		if us := analysis.NeverSteadyCells(s); len(us) > 0 {
			who = append(who, setWho(b, s, us))
		}
	}
	if len(who) == 0 {
		return ""
	}
	return "left out: " + strings.Join(who, " and ") + " never steady"
}

// steadyLead notes, folded at the top of a batch, which cells were not
// steady in their kept window and what that does to the decisions;
// nothing when every cell was steady. Steadiness is a note on the
// measurement, not a problem of the comparison: a drift counts as noise
// within its start and widens the intervals.
func steadyLead(d *doc, b *analysis.Batch) {
	var items []string
	n := 0
	for _, p := range b.Points {
		for _, v := range b.Variants {
			g := b.RepeatSet(v, p)
			s := unsteady(b, g)
			if s == "" {
				continue
			}
			n += len(analysis.UnsteadyCells(g))
			if never := analysis.NeverSteadyCells(g); len(never) > 0 {
				s += fmt.Sprintf("; %d never steady, left out of the decisions", len(never))
			}
			items = append(items, s)
		}
	}
	if len(items) == 0 {
		return
	}
	d.fold(fmt.Sprintf("Notes on steadiness (%d start(s))", n))
	d.p("Notes on steadiness: %d start(s) of this batch not steady in their kept window. A drift counts as noise within its start and widens that start's interval; a start whose load never became steady is left out of the decisions.", n)
	d.list(items)
	d.foldEnd()
}

// fmtDrift is a kept window's drift, its last third against its first.
func fmtDrift(p *float64) string {
	if p == nil {
		return "-"
	}
	return changepoint.DriftWords(*p)
}

// fmtNoise is a measured noise, a 95% half-width.
func fmtNoise(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("±%.1f%%", 100**p)
}

// fmtSteadyAt is a time to steady state: "3.3 s", "never" without one,
// "-" without an analysis.
func fmtSteadyAt(c *datasets.Cell) string {
	switch {
	case c.SteadyStartUS != nil:
		return fmtSeconds(float64(*c.SteadyStartUS))
	case c.SteadyClass != nil:
		return "never"
	}
	return "-"
}

// fmtSeconds formats microseconds as seconds with one decimal.
func fmtSeconds(us float64) string { return fmt.Sprintf("%.1f s", us/1e6) }

// steadySection is the batch's "Steady state" section: the ramp of every
// variant, then one row per measured cell.
func steadySection(d *doc, t *analysis.Tables, b *analysis.Batch) {
	cells, analysed := b.MeasuredCells()
	if len(cells) == 0 || (!analysed && len(t.Series) == 0) {
		return
	}
	d.h(3, "Steady state")
	d.p("From the cells table's changepoint analysis of each cell's load (requests/s and p99 per interval, warm-up included): the class of each series (flat, warmup, slowdown, no_steady_state), when the load became steady (time to steady state, from the load's start), the drift inside the kept window (its last third against its first third) and the kept window's measured noise (95%% half-width of a block bootstrap). A kept window is steady when it lies in the final steady segment, with no changepoint and no drift beyond the band.")
	n := 0
	for _, c := range cells {
		if !analysis.UnsteadyOf(c).Steady() {
			n++
		}
	}
	if analysed {
		if n == 0 {
			d.p("Every measured cell's kept window was steady in throughput and p99.")
		} else {
			d.p("%d of %d measured cells were not steady in their kept window: marked NO below. Their drift counts as noise within the start (it widens that start's interval); a cell whose load never became steady is left out of the decisions.", n, len(cells))
		}
	}
	ramps(d, t, b)
	if !analysed {
		d.p("The cells table has no steady-state analysis (a run made before it existed).")
		return
	}
	var rows [][]string
	for _, c := range cells {
		steady := "yes"
		if notSteady(c) != "" {
			steady = "NO"
		}
		warm := "-"
		if c.WarmupUS != nil {
			warm = fmtSeconds(float64(*c.WarmupUS))
			if c.WarmupAuto != nil && *c.WarmupAuto {
				warm += " auto"
				if c.WarmupCapped != nil && *c.WarmupCapped {
					warm += " (capped)"
				}
			}
		}
		name := c.CellName
		if c.Status == pipeline.StatusUnfair {
			name += " UNFAIR"
		}
		rows = append(rows, []string{name, steady, orDash(deref(c.SteadyClass)), orDash(deref(c.P99Class)), fmtSteadyAt(c), warm,
			fmtDrift(c.KeptChange), fmtDrift(c.P99KeptChange), fmtNoise(c.NoiseRPS), fmtNoise(c.NoiseP99)})
	}
	d.table(preconditions(b), []string{"cell", "kept window steady", "throughput", "p99", "time to steady", "warm-up",
		"drift rps", "drift p99", "noise rps", "noise p99"}, rows)
}

// ramps draws, per variant, requests/s per interval of each of its
// measured cells, with the changepoints (where timeseries.segment
// changes) and the kept window (in_window).
func ramps(d *doc, t *analysis.Tables, b *analysis.Batch) {
	if len(t.Series) == 0 {
		return
	}
	byCell := analysis.IntervalsByCell(t.Series)
	first := true
	for _, v := range b.Variants {
		ch := rampChart(b, v, byCell)
		if ch == nil {
			continue
		}
		if first {
			d.p("Ramps: requests/s per interval of every measured cell of each variant, warm-up included; a short vertical mark is a changepoint (a new level of throughput), the shaded span the kept window.")
			first = false
		}
		d.chart(&chartFile{File: "rampup-" + b.Name + "-" + v.Label + ".svg", Title: ch.title, SVG: ch.svg()})
	}
}

// rampChart is variant v's ramp: a series per measured cell, coloured by
// workload point (its repeats share the colour and one legend entry,
// "c8-p128 ×5 unsteady" when one of them was not steady);
// nil when none of its cells has intervals.
func rampChart(b *analysis.Batch, v *analysis.Variant, byCell map[string][]datasets.Interval) *lineChart {
	ch := &lineChart{title: "Batch " + b.Name + ": ramp of " + v.Label + " (requests/s per interval)", xLabel: "second since the load started",
		yLabel: "requests/s", yFormat: fmtRPS, zeroY: true, vline: math.NaN(), noDots: true}
	for pi, p := range b.Points {
		g := b.RepeatSet(v, p)
		if g == nil {
			continue
		}
		color := palette[pi%len(palette)]
		legend := p.Label()
		if len(g.Measured) > 1 {
			legend += fmt.Sprintf(" ×%d", len(g.Measured))
		}
		if len(unsteady(b, g)) > 0 {
			legend += " unsteady"
		}
		for _, c := range g.Measured {
			ivs := byCell[c.CellID]
			if len(ivs) == 0 {
				continue
			}
			name := p.Label()
			if b.Repeats > 1 {
				name += fmt.Sprintf(" r%d", c.Repeat)
			}
			if notSteady(c) != "" {
				name += " NOT STEADY"
			}
			s := series{name: name, color: color, legend: legend, noLegend: legend == ""}
			legend = ""
			addRamp(ch, &s, ivs)
			ch.series = append(ch.series, s)
		}
	}
	if len(ch.series) == 0 {
		return nil
	}
	return ch
}

// addRamp fills series s from a cell's intervals and adds its
// changepoints and kept window to the chart.
func addRamp(ch *lineChart, s *series, ivs []datasets.Interval) {
	kept := span{x0: math.NaN(), color: s.color}
	for i, iv := range ivs {
		at := float64(iv.StartUS) / 1e6
		s.pts = append(s.pts, xy{at, analysis.IntervalRPS(iv)})
		if i > 0 && iv.Segment != nil && ivs[i-1].Segment != nil && *iv.Segment != *ivs[i-1].Segment {
			ch.marks = append(ch.marks, mark{x: at, y: analysis.IntervalRPS(iv), color: s.color, series: s.name})
		}
		if iv.InWindow {
			if math.IsNaN(kept.x0) {
				kept.x0 = at
			}
			kept.x1 = float64(iv.StartUS+iv.DurationUS) / 1e6
		}
	}
	if !math.IsNaN(kept.x0) && !slices.ContainsFunc(ch.spans, func(o span) bool { return o.x0 == kept.x0 && o.x1 == kept.x1 }) {
		ch.spans = append(ch.spans, kept)
	}
}
