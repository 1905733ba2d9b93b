package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"yardstick/decide"
	"yardstick/pipeline"
	"yardstick/stages/report/analysis"
)

// Compare reads two runs through the report's reading of the tables,
// joins them with package analysis and renders their comparison through
// the report's document model: what changed around the cells first
// (binaries, machine, toolchains), then the cells only one run has, then
// per batch, variant and workload point B against A.

// compareMetrics are the compared metrics (analysis.CompareMetrics()).
var compareMetrics = analysis.CompareMetrics()

// readSide reads a run directory's tables and lock.json.
func readSide(ctx context.Context, dir string) (*analysis.Side, error) {
	t, err := load(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	l, err := (&pipeline.RunDir{Root: dir}).WithContext(ctx).ReadLock()
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		l = nil
	default:
		return nil, fmt.Errorf("compare: %w", err)
	}
	return analysis.NewSide(t, l), nil
}

// TwoRuns are two runs joined by cell id, to be written.
type TwoRuns struct {
	*analysis.Joined
}

// Compare reads the run directories a and b (their Parquet tables, and
// lock.json where there is one) and joins them by cell id.
func Compare(a, b string) (*TwoRuns, error) {
	return CompareContext(context.Background(), a, b)
}

// CompareContext is Compare, whose reads end when ctx does.
func CompareContext(ctx context.Context, a, b string) (*TwoRuns, error) {
	sa, err := readSide(ctx, a)
	if err != nil {
		return nil, err
	}
	sb, err := readSide(ctx, b)
	if err != nil {
		return nil, err
	}
	return &TwoRuns{analysis.Join(sa, sb)}, nil
}

// Write writes the comparison as "text" or "markdown".
func (c *TwoRuns) Write(w io.Writer, format string) error {
	d := c.doc()
	var out []byte
	switch format {
	case "text":
		out = d.text()
	case "markdown":
		out = d.markdown()
	default:
		return fmt.Errorf("compare: unknown format %q (want text, markdown)", format)
	}
	_, err := w.Write(out)
	return err
}

// doc is the comparison as a document: what changed, cells in one run
// only, then B against A.
func (c *TwoRuns) doc() *doc {
	ma, mb := c.A.Tables.Meta, c.B.Tables.Meta
	d := &doc{}
	d.h(1, "yardstick compare %s run %s (A) with run %s (B)", mb.Experiment, ma.RunID, mb.RunID)
	if ma.PlanHash == mb.PlanHash {
		d.p("Same plan (hash %s): the cells are joined by id.", short(mb.PlanHash))
	} else {
		d.p("The plans differ (hash %s vs %s): only cells with the same id are compared.", short(ma.PlanHash), short(mb.PlanHash))
	}
	c.changes(d)
	d.h(2, "Cells in one run only")
	var only []string
	for _, n := range c.OnlyA {
		only = append(only, "only in A: "+n)
	}
	for _, n := range c.OnlyB {
		only = append(only, "only in B: "+n)
	}
	if len(only) == 0 {
		d.p("None: every measured cell is in both runs.")
	} else {
		d.list(only)
	}
	c.verdicts(d)
	return d
}

// changes is the section on what changed around the cells.
func (c *TwoRuns) changes(d *doc) {
	d.h(2, "What changed around the cells")
	var items []string
	for _, x := range c.Drift {
		items = append(items, fmt.Sprintf("%s `%s`: `%s` → `%s`", x.What, x.Item, x.Was, x.Now))
	}
	switch {
	case !c.DriftKnown:
		d.p("Unknown: a run has neither lock.json nor an environment row.")
	case len(items) == 0:
		d.p("Nothing: the same binaries, machine fingerprint and toolchains.")
	default:
		d.list(items)
	}
	// The machine's other work is around the cells too: a run measured on
	// a busy machine is compared with one that was not.
	for _, s := range []struct {
		name string
		side *analysis.Side
	}{{"A", c.A}, {"B", c.B}} {
		if busy := s.side.Tables.Busy(); busy != "" {
			d.p("In %s %s. A row whose cells were measured on a busy machine in either run is undecided: inside a run, other work spreads over the variants and widens the intervals; between two runs it lands on one side.", s.name, busy)
		}
	}
	if lb := c.B.Lock; lb != nil && lb.RerunOf != "" {
		s := "B is a rerun of " + lb.RerunOf
		if len(lb.Drift) > 0 {
			s += fmt.Sprintf(", run with --allow-drift (%d difference(s) recorded)", len(lb.Drift))
		}
		d.p("%s.", s)
	}
}

// verdicts is the section of ratios and verdicts, one row per batch,
// variant and workload point.
func (c *TwoRuns) verdicts(d *doc) {
	d.h(2, "B against A")
	d.p("Ratio B / A of the means over the starts both runs measured (for latency, memory, CPU, cold start and time to steady state above 1 is worse), with its 95%% interval (from the spread between the starts and the noise within each start's kept window) and the outcome against the batch's margin: better or worse when the whole interval lies beyond it (two runs' starts were not interleaved, so what moved the machine between them lies on one side: the margin is left for it), equivalent when inside it, undecided otherwise (reasons below). Unfair cells are marked UNFAIR.")
	if len(c.Rows) == 0 {
		d.p("No cell was measured in both runs.")
		return
	}
	head := []string{"batch", "variant", "point", "repeats"}
	for _, k := range compareMetrics {
		head = append(head, columnByKey(k).Title)
	}
	var rows [][]string
	for _, r := range c.Rows {
		variant := r.Variant
		if r.Unfair {
			variant += " UNFAIR"
		}
		row := []string{r.Batch.Name, variant, r.Point.Label(), fmt.Sprint(r.Repeats)}
		for _, cmp := range r.Comparisons {
			row = append(row, fmtComparison(cmp))
		}
		rows = append(rows, row)
	}
	d.tableLeft(3, "", head, rows)
	c.undecided(d)
	c.notSteady(d)
}

func short(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return h
}

// unsteadySide lists the cells of repeat set s (of run "A" or "B") that were
// not steady in their kept window.
func unsteadySide(run string, bb *analysis.Batch, s *analysis.RepeatSet) []string {
	if u := unsteady(bb, s); u != "" {
		return []string{run + ": " + u}
	}
	return nil
}

// undecided lists the undecided comparisons with their reasons, the
// same reason said once for all the metrics it covers.
func (c *TwoRuns) undecided(d *doc) {
	var items []string
	for _, r := range c.Rows {
		var byReason []string
		which := map[string][]string{}
		for i, cmp := range r.Comparisons {
			if cmp.Verdict != decide.Undecided {
				continue
			}
			reason := decide.ShortReason(cmp)
			if _, ok := which[reason]; !ok {
				byReason = append(byReason, reason)
			}
			which[reason] = append(which[reason], columnByKey(compareMetrics[i]).Title)
		}
		for _, reason := range byReason {
			items = append(items, fmt.Sprintf("%s %s %s: %s: %s", r.Batch.Name, r.Variant, r.Point.Label(), strings.Join(which[reason], ", "), reason))
		}
	}
	if len(items) > 0 {
		d.p("Undecided, and why:")
		d.list(items)
	}
}

// notSteady notes the rows whose cells were not steady in their kept
// window: a drift counts as noise within its start and widens the row's
// intervals; a cell whose load never became steady is left out.
func (c *TwoRuns) notSteady(d *doc) {
	var items []string
	for _, r := range c.Rows {
		for _, n := range append(unsteadySide("A", r.Batch, r.A), unsteadySide("B", r.Batch, r.B)...) {
			items = append(items, fmt.Sprintf("%s %s %s: %s", r.Batch.Name, r.Variant, r.Point.Label(), n))
		}
	}
	if len(items) > 0 {
		d.p("Notes on steadiness: cells whose load was not in a steady state during their kept window (a drift counts as noise within its start and widens the row's intervals; a cell never steady is left out of its load comparisons):")
		d.list(items)
	}
}
