package analysis

import (
	"slices"
	"strings"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/pipeline"
)

// Comparing two runs of one plan (a run and its rerun months later, say)
// joins their cells by id and decides, per metric, how the second run's
// numbers relate to the first's: per batch, variant and workload point the
// repeats both runs measured are two repeat sets (A the baseline, B the
// candidate, B's declared margin).

// CompareMetrics are the keys of the metrics two runs are compared on,
// in output order: every compared metric (decide.Metrics); max is never
// ranked, tails and RSS after are left to the report.
func CompareMetrics() []string {
	var keys []string
	for _, m := range decide.Metrics {
		keys = append(keys, m.Name)
	}
	return keys
}

// A Side is one run of a comparison.
type Side struct {
	Tables  *Tables
	Batches []*Batch
	// Lock is lock.json; nil for a run without one.
	Lock *pipeline.Lock
}

// NewSide is the run of tables t, with its lock (nil: none).
func NewSide(t *Tables, lock *pipeline.Lock) *Side {
	return &Side{Tables: t, Batches: Batches(t, ""), Lock: lock}
}

// fingerprint is what a rerun must find unchanged: the lock's, else the
// environment table's.
func (s *Side) fingerprint() (pipeline.Fingerprint, bool) {
	if s.Lock != nil {
		return s.Lock.Fingerprint, true
	}
	if len(s.Tables.Env) == 0 {
		return pipeline.Fingerprint{}, false
	}
	e := s.Tables.Env[0]
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return pipeline.Fingerprint{OS: e.OS, Arch: e.Arch, Kernel: e.Kernel, CPUModel: e.CPUModel, Cores: int(e.Cores),
		Governor: str(e.Governor), MemoryBytes: e.MemoryBytes, GoVersion: str(e.GoVersion), JavaVersion: str(e.JavaVersion)}, true
}

// A CompareRow compares the repeats of one variant at one workload point
// that both runs measured.
type CompareRow struct {
	Batch   *Batch // B's
	Variant string
	Point   Point
	// Repeats is the number of cell ids measured (ok or unfair) in both.
	Repeats int
	// Comparisons are the decisions, one per CompareMetrics.
	Comparisons []datasets.Comparison
	// Unfair says a cell of the row is unfair in either run.
	Unfair bool
	// A and B are the row's two repeat sets: the same cell ids in each run.
	A, B *RepeatSet
}

// A Joined is two runs joined by cell id.
type Joined struct {
	A, B *Side
	// Drift is what changed around the cells: binaries and environment,
	// A's lock against B's; DriftKnown is false when a run has neither a
	// lock nor an environment row.
	Drift      []pipeline.Drift
	DriftKnown bool
	// OnlyA and OnlyB are the names of cells measured in one run only.
	OnlyA, OnlyB []string
	Rows         []CompareRow
}

// Join compares the cells b measured with the same cells in a.
func Join(a, b *Side) *Joined {
	c := &Joined{A: a, B: b}
	c.Drift, c.DriftKnown = drift(a, b)
	inA := map[string]*datasets.Cell{}
	for i := range a.Tables.Cells {
		if datasets.Measured(&a.Tables.Cells[i]) {
			inA[a.Tables.Cells[i].CellID] = &a.Tables.Cells[i]
		}
	}
	inB := map[string]bool{}
	for _, bb := range b.Batches {
		for _, v := range bb.Variants {
			for _, p := range bb.Points {
				if s := bb.RepeatSet(v, p); s != nil {
					c.joinSet(bb, s, inA, inB)
				}
			}
		}
	}
	for id, ca := range inA {
		if !inB[id] {
			c.OnlyA = append(c.OnlyA, ca.CellName)
		}
	}
	slices.Sort(c.OnlyA)
	slices.Sort(c.OnlyB)
	return c
}

// joinSet pairs the measured repeats of B's repeat set s with A's cells of
// the same ids and compares them as two repeat sets; repeats A did not
// measure are B's only.
func (c *Joined) joinSet(bb *Batch, s *RepeatSet, inA map[string]*datasets.Cell, inB map[string]bool) {
	base, cand := &RepeatSet{Variant: s.Variant, Point: s.Point}, &RepeatSet{Variant: s.Variant, Point: s.Point}
	row := CompareRow{Batch: bb, Variant: s.Variant.Label, Point: s.Point, A: base, B: cand}
	for _, cb := range s.Measured {
		inB[cb.CellID] = true
		ca := inA[cb.CellID]
		if ca == nil {
			c.OnlyB = append(c.OnlyB, cb.CellName)
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
	busy := busySides(base.Measured, cand.Measured)
	// Two runs' starts were not interleaved: whatever moved the machine
	// between them lies wholly on one side, beyond the spread of either
	// run's starts. A difference between runs is claimed only where its
	// whole interval lies beyond the margin, which leaves the machine's
	// drift up to the margin no say.
	design := bb.Design()
	design.Rule = pipeline.RuleBeyondMargin
	for _, k := range CompareMetrics() {
		m, _ := decide.MetricNamed(k)
		if !m.Applies(s.Point.Mode) {
			continue
		}
		d := decide.Compare(bb.Name, s.Point.Label(), "B "+s.Variant.Label, "A "+s.Variant.Label, m, base.Measured, cand.Measured, design)
		if busy != "" && d.Verdict != decide.Undecided {
			// Inside a run, rounds spread other work over the variants
			// and it widens the intervals; between two runs it lands on
			// one side: the difference may be the machine's.
			decide.Unfair(&d, "the machine was busy in "+busy+": the runs' difference may be the machine's")
		}
		row.Comparisons = append(row.Comparisons, d)
	}
	c.Rows = append(c.Rows, row)
}

// busySides names the runs, "A", "B" or "A and B", whose cells of a row
// were measured on a busy machine (decide.Busy); "" when neither was.
func busySides(a, b []*datasets.Cell) string {
	var busy []string
	for _, side := range []struct {
		name  string
		cells []*datasets.Cell
	}{{"A", a}, {"B", b}} {
		rows := make([]datasets.Cell, len(side.cells))
		for i, c := range side.cells {
			rows[i] = *c
		}
		if decide.Busy(rows) != "" {
			busy = append(busy, side.name)
		}
	}
	return strings.Join(busy, " and ")
}

// drift lists what differs between the runs' locks, or without both
// locks between their machine fingerprints.
func drift(a, b *Side) ([]pipeline.Drift, bool) {
	if a.Lock != nil && b.Lock != nil {
		return a.Lock.Diff(b.Lock), true
	}
	fa, okA := a.fingerprint()
	fb, okB := b.fingerprint()
	if !okA || !okB {
		return nil, false
	}
	return (&pipeline.Lock{Fingerprint: fa}).Diff(&pipeline.Lock{Fingerprint: fb}), true
}
