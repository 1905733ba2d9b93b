package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"yardstick/stages/report/analysis"
)

// unfairSummary lists the failed fairness checks, one line each, before
// any result; nothing when every check passed. A check that failed for
// more than two cells of a batch takes one line: the cells, whose
// details the fairness table has.
func unfairSummary(d *doc, t *analysis.Tables) {
	var items, short []string
	n := 0
	for _, g := range analysis.FailedGroups(t.Fairness) {
		n += len(g)
		f := g[0]
		if f.Scope == "batch" {
			short = append(short, fmt.Sprintf("UNFAIR %s: batch %s", f.Check, f.Batch))
		} else {
			short = append(short, fmt.Sprintf("UNFAIR %s: %d cell(s) of batch %s", f.Check, len(g), f.Batch))
		}
		if len(g) <= 2 {
			for _, f := range g {
				items = append(items, fmt.Sprintf("UNFAIR %s [%s %s]: %s", f.Check, f.Scope, f.Batch, deref(f.Detail)))
			}
			continue
		}
		var cells []string
		for _, f := range g {
			if f.CellID != nil {
				cells = append(cells, cellNameIn(t, *f.CellID))
			}
		}
		items = append(items, fmt.Sprintf("UNFAIR %s [%s %s], %d cells: %s (the fairness table near the end says why, a row each)", f.Check, f.Scope, f.Batch, len(g), shortNames(cells)))
	}
	if len(items) == 0 {
		return
	}
	d.h(2, "Unfair: %d fairness check(s) failed", n)
	d.list(short)
	d.fold("Details of the failed checks: their cells are marked UNFAIR in every table and chart below, their decisions undecided; the fairness table near the end has the numbers")
	d.list(items)
	d.foldEnd()
}

// shortNames joins cell names, each after the first without the part
// before its last slash that it shares with the one before it:
// "main/jvm/c8/r1, r2, r3".
func shortNames(names []string) string {
	out := slices.Clone(names)
	for i := 1; i < len(names); i++ {
		if j := strings.LastIndex(names[i], "/"); j >= 0 && strings.HasPrefix(names[i-1], names[i][:j+1]) {
			out[i] = names[i][j+1:]
		}
	}
	return strings.Join(out, ", ")
}

// cellNameIn is the name of the cell with id in the cells table, or the id.
func cellNameIn(t *analysis.Tables, id string) string {
	for i := range t.Cells {
		if t.Cells[i].CellID == id {
			return t.Cells[i].CellName
		}
	}
	return id
}

// cellName is the name of the cell with id, or the id.
func cellName(id string, batches []*analysis.Batch) string {
	for _, b := range batches {
		if c := b.Cell(id); c != nil {
			return c.CellName
		}
	}
	return id
}

func fairnessSection(d *doc, t *analysis.Tables, batches []*analysis.Batch) {
	d.h(2, "Fairness failures")
	var rows [][]string
	for _, f := range t.Fairness {
		if f.Pass {
			continue
		}
		cell := "-"
		if f.CellID != nil {
			cell = cellName(*f.CellID, batches)
		}
		num := func(p *float64) string {
			if p == nil {
				return "-"
			}
			return trimFloat(math.Round(*p*1000) / 1000)
		}
		tol := "-"
		if f.Tolerance != nil {
			tol = fmtPct(*f.Tolerance)
		}
		rows = append(rows, []string{f.Check, f.Scope, f.Batch, cell, num(f.Expected), num(f.Measured), tol, deref(f.Unit), deref(f.Detail)})
	}
	switch {
	case len(t.Fairness) == 0:
		d.p("The fairness table has no rows: no fairness check ran, so fairness is unknown.")
	case len(rows) == 0:
		d.p("All %d fairness checks passed.", len(t.Fairness))
	default:
		d.p("%d of %d fairness checks failed. The cells they concern are marked UNFAIR in every table above.", len(rows), len(t.Fairness))
		d.table("Failed fairness checks (fairness table)", []string{"check", "scope", "batch", "cell", "expected", "measured", "tolerance", "unit", "detail"}, rows)
	}
}
