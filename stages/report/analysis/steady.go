package analysis

import (
	"slices"

	"yardstick/datasets"
	"yardstick/decide"
)

// Unsteady says which parts of a cell's steady-state analysis (the cells
// table's changepoint analysis, package stats/steady) find its kept
// window not steady: its throughput or p99 series, an analysis that
// failed, an adaptive warm-up capped before a steady state, or, with none
// of those, a failed steady_state check.
type Unsteady struct {
	NoAnalysis, Capped, Throughput, P99, FailedCheck bool
}

// Steady says none of the parts found the kept window unsteady.
func (u Unsteady) Steady() bool { return u == Unsteady{} }

// UnsteadyOf is cell c's steady state; an older run's cells without an
// analysis are steady.
func UnsteadyOf(c *datasets.Cell) Unsteady {
	u := Unsteady{
		NoAnalysis: c.SteadyError != nil,
		Capped:     c.WarmupCapped != nil && *c.WarmupCapped,
		Throughput: c.KeptSteady != nil && !*c.KeptSteady,
		P99:        c.P99KeptSteady != nil && !*c.P99KeptSteady,
	}
	if u.Steady() && slices.Contains(FailedChecks(c), "steady_state") {
		u.FailedCheck = true
	}
	return u
}

// UnsteadyCells are the measured cells of repeat set g that were not steady.
func UnsteadyCells(g *RepeatSet) []*datasets.Cell {
	if g == nil {
		return nil
	}
	var out []*datasets.Cell
	for _, c := range g.Measured {
		if !UnsteadyOf(c).Steady() {
			out = append(out, c)
		}
	}
	return out
}

// NeverSteadyCells are the measured cells of repeat set g whose load
// never became steady (decide.NeverSteady): those the decisions leave
// out.
func NeverSteadyCells(g *RepeatSet) []*datasets.Cell {
	if g == nil {
		return nil
	}
	var out []*datasets.Cell
	for _, c := range g.Measured {
		if decide.NeverSteady(c) {
			out = append(out, c)
		}
	}
	return out
}

// MeasuredCells are the measured cells of the batch, variant by variant
// and point by point, and whether any of them has a steady-state
// analysis.
func (b *Batch) MeasuredCells() ([]*datasets.Cell, bool) {
	var cells []*datasets.Cell
	analysed := false
	for _, v := range b.Variants {
		for _, p := range b.Points {
			if g := b.RepeatSet(v, p); g != nil {
				for _, c := range g.Measured {
					cells = append(cells, c)
					analysed = analysed || c.SteadyClass != nil || c.SteadyError != nil
				}
			}
		}
	}
	return cells, analysed
}

// IntervalsByCell are the timeseries' intervals by cell id.
func IntervalsByCell(series []datasets.Interval) map[string][]datasets.Interval {
	byCell := map[string][]datasets.Interval{}
	for _, s := range series {
		byCell[s.CellID] = append(byCell[s.CellID], s)
	}
	return byCell
}

// IntervalRPS is an interval's throughput in requests per second.
func IntervalRPS(iv datasets.Interval) float64 {
	if iv.DurationUS <= 0 {
		return 0
	}
	return float64(iv.Requests) * 1e6 / float64(iv.DurationUS)
}
