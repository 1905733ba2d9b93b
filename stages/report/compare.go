package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"yardstick/datasets"
	"yardstick/pipeline"
	"yardstick/stats"
)

// Comparing two runs of one plan (a run and its rerun months later, say)
// reads both through the report's read model, joins their cells by id and
// says, per metric, how the second run's numbers relate to the first's,
// with the report's noise-aware verdicts. The output is a document of the
// report's document model: what changed around the cells first (binaries,
// machine, toolchains), then the cells only one run has, then per batch,
// variant and workload point the repeats both runs measured as two samples
// (A the baseline, B the candidate, B's declared noise band).

// compareMetrics are the compared metrics, in output order; max is never
// ranked, tails and RSS after are left to the report.
var compareMetrics = []string{"rps", "p50", "p99", "p999", "rss", "cpu", "cold", "steady"}

// A side is one run of a comparison.
type side struct {
	dir     string
	t       *tables
	batches []*Batch
	// lock is lock.json; nil for a run without one.
	lock *pipeline.Lock
}

// readSide reads a run directory's tables and lock.json.
func readSide(ctx context.Context, dir string) (*side, error) {
	t, err := load(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	s := &side{dir: dir, t: t, batches: buildBatches(t, "")}
	l, err := (&pipeline.RunDir{Root: dir}).WithContext(ctx).ReadLock()
	switch {
	case err == nil:
		s.lock = l
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("compare: %w", err)
	}
	return s, nil
}

// fingerprint is what a rerun must find unchanged: the lock's, else the
// environment table's.
func (s *side) fingerprint() (pipeline.Fingerprint, bool) {
	if s.lock != nil {
		return s.lock.Fingerprint, true
	}
	if len(s.t.env) == 0 {
		return pipeline.Fingerprint{}, false
	}
	e := s.t.env[0]
	return pipeline.Fingerprint{OS: e.OS, Arch: e.Arch, Kernel: e.Kernel, CPUModel: e.CPUModel, Cores: int(e.Cores),
		Governor: deref(e.Governor), MemoryBytes: e.MemoryBytes, GoVersion: deref(e.GoVersion), JavaVersion: deref(e.JavaVersion)}, true
}

// A compareRow compares the repeats of one variant at one workload point
// that both runs measured.
type compareRow struct {
	Batch, Variant string
	Point          Point
	// Repeats is the number of cell ids measured (ok or unfair) in both.
	Repeats     int
	Comparisons []datasets.Comparison
	// Unfair says a cell of the row is unfair in either run.
	Unfair bool
	// NotSteady says which cells of the row were not steady in their
	// kept window, and why ("A: go at c8-p128 was still warming up ...").
	NotSteady []string
}

// A Comparison is two runs joined by cell id.
type Comparison struct {
	a, b *side
	// drift is what changed around the cells: binaries and environment,
	// A's lock against B's; driftKnown is false when a run has neither a
	// lock nor an environment row.
	drift      []pipeline.Drift
	driftKnown bool
	// onlyA and onlyB are the names of cells measured in one run only.
	onlyA, onlyB []string
	rows         []compareRow
}

// Compare reads the run directories a and b (their Parquet tables, and
// lock.json where there is one) and joins them by cell id.
func Compare(a, b string) (*Comparison, error) {
	return CompareContext(context.Background(), a, b)
}

// CompareContext is Compare, whose reads end when ctx does.
func CompareContext(ctx context.Context, a, b string) (*Comparison, error) {
	sa, err := readSide(ctx, a)
	if err != nil {
		return nil, err
	}
	sb, err := readSide(ctx, b)
	if err != nil {
		return nil, err
	}
	return join(sa, sb), nil
}

// join compares the cells b measured with the same cells in a.
func join(a, b *side) *Comparison {
	c := &Comparison{a: a, b: b}
	c.drift, c.driftKnown = drift(a, b)
	inA := map[string]*datasets.Cell{}
	for i := range a.t.cells {
		if datasets.Measured(&a.t.cells[i]) {
			inA[a.t.cells[i].CellID] = &a.t.cells[i]
		}
	}
	inB := map[string]bool{}
	for _, bb := range b.batches {
		for _, v := range bb.Variants {
			for _, p := range bb.Points {
				if s := bb.Sample(v, p); s != nil {
					c.joinSample(bb, s, inA, inB)
				}
			}
		}
	}
	for id, ca := range inA {
		if !inB[id] {
			c.onlyA = append(c.onlyA, ca.CellName)
		}
	}
	slices.Sort(c.onlyA)
	slices.Sort(c.onlyB)
	return c
}

// joinSample pairs the measured repeats of B's sample s with A's cells of
// the same ids and compares them as two samples; repeats A did not
// measure are B's only.
func (c *Comparison) joinSample(bb *Batch, s *Sample, inA map[string]*datasets.Cell, inB map[string]bool) {
	base, cand := &Sample{Variant: s.Variant, Point: s.Point}, &Sample{Variant: s.Variant, Point: s.Point}
	row := compareRow{Batch: bb.Name, Variant: s.Variant.Label, Point: s.Point}
	for _, cb := range s.Measured {
		inB[cb.CellID] = true
		ca := inA[cb.CellID]
		if ca == nil {
			c.onlyB = append(c.onlyB, cb.CellName)
			continue
		}
		base.add(ca)
		cand.add(cb)
		row.Unfair = row.Unfair || ca.Status != pipeline.StatusOK || cb.Status != pipeline.StatusOK
	}
	if len(cand.Measured) == 0 {
		return
	}
	row.Repeats = len(cand.Measured)
	row.NotSteady = append(unsteadySide("A", bb, base), unsteadySide("B", bb, cand)...)
	for _, k := range compareMetrics {
		m, _ := datasets.MetricNamed(metricByKey(k).cmp)
		row.Comparisons = append(row.Comparisons,
			datasets.Decide(bb.Name, s.Point.Label(), "B "+s.Variant.Label, "A "+s.Variant.Label, m, base.Measured, cand.Measured, bb.Noise))
	}
	c.rows = append(c.rows, row)
}

// drift lists what differs between the runs' locks, or without both
// locks between their machine fingerprints.
func drift(a, b *side) ([]pipeline.Drift, bool) {
	if a.lock != nil && b.lock != nil {
		return a.lock.Diff(b.lock), true
	}
	fa, okA := a.fingerprint()
	fb, okB := b.fingerprint()
	if !okA || !okB {
		return nil, false
	}
	return (&pipeline.Lock{Fingerprint: fa}).Diff(&pipeline.Lock{Fingerprint: fb}), true
}

// Write writes the comparison as "text" or "markdown".
func (c *Comparison) Write(w io.Writer, format string) error {
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
func (c *Comparison) doc() *doc {
	ma, mb := c.a.t.meta, c.b.t.meta
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
	for _, n := range c.onlyA {
		only = append(only, "only in A: "+n)
	}
	for _, n := range c.onlyB {
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
func (c *Comparison) changes(d *doc) {
	d.h(2, "What changed around the cells")
	var items []string
	for _, x := range c.drift {
		items = append(items, fmt.Sprintf("%s `%s`: `%s` → `%s`", x.What, x.Item, x.Was, x.Now))
	}
	switch {
	case !c.driftKnown:
		d.p("Unknown: a run has neither lock.json nor an environment row.")
	case len(items) == 0:
		d.p("Nothing: the same binaries, machine fingerprint and toolchains.")
	default:
		d.list(items)
	}
	if lb := c.b.lock; lb != nil && lb.RerunOf != "" {
		s := "B is a rerun of " + lb.RerunOf
		if len(lb.Drift) > 0 {
			s += fmt.Sprintf(", run with --allow-drift (%d difference(s) recorded)", len(lb.Drift))
		}
		d.p("%s.", s)
	}
}

// verdicts is the section of ratios and verdicts, one row per batch,
// variant and workload point.
func (c *Comparison) verdicts(d *doc) {
	d.h(2, "B against A")
	d.p("Ratio B / A of the means over the starts both runs measured (for latency, memory, CPU, cold start and time to steady state above 1 is worse), with its 95%% interval (hierarchical bootstrap over the starts and the noise within each start's kept window) and the outcome against the batch's margin: better or worse when the interval lies beyond it, equivalent when inside it, undecided otherwise (reasons below). Unfair cells are marked UNFAIR.")
	if len(c.rows) == 0 {
		d.p("No cell was measured in both runs.")
		return
	}
	head := []string{"batch", "variant", "point", "repeats"}
	for _, k := range compareMetrics {
		head = append(head, metricByKey(k).title)
	}
	var rows [][]string
	for _, r := range c.rows {
		variant := r.Variant
		if r.Unfair {
			variant += " UNFAIR"
		}
		row := []string{r.Batch, variant, r.Point.Label(), fmt.Sprint(r.Repeats)}
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

// unsteadySide lists the cells of sample s (of run "A" or "B") that were
// not steady in their kept window.
func unsteadySide(run string, bb *Batch, s *Sample) []string {
	if u := unsteady(bb, s); u != "" {
		return []string{run + ": " + u}
	}
	return nil
}

// undecided lists the undecided comparisons with their reasons, the
// same reason said once for all the metrics it covers.
func (c *Comparison) undecided(d *doc) {
	var items []string
	for _, r := range c.rows {
		var byReason []string
		which := map[string][]string{}
		for i, cmp := range r.Comparisons {
			if cmp.Verdict != stats.Undecided {
				continue
			}
			reason := cmp.ShortReason()
			if _, ok := which[reason]; !ok {
				byReason = append(byReason, reason)
			}
			which[reason] = append(which[reason], metricByKey(compareMetrics[i]).title)
		}
		for _, reason := range byReason {
			items = append(items, fmt.Sprintf("%s %s %s: %s: %s", r.Batch, r.Variant, r.Point.Label(), strings.Join(which[reason], ", "), reason))
		}
	}
	if len(items) > 0 {
		d.p("Undecided, and why:")
		d.list(items)
	}
}

// notSteady lists the rows whose cells were not steady in their kept
// window: their ratios are biased.
func (c *Comparison) notSteady(d *doc) {
	var items []string
	for _, r := range c.rows {
		for _, n := range r.NotSteady {
			items = append(items, fmt.Sprintf("%s %s %s: %s: this row's ratios are biased", r.Batch, r.Variant, r.Point.Label(), n))
		}
	}
	if len(items) > 0 {
		d.p("Not steady: cells whose load was not in a steady state during their kept window:")
		d.list(items)
	}
}
