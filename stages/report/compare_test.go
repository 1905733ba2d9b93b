package report

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/pipeline"
	"yardstick/stages/report/analysis"
)

// fixtureSide reads the fixture run as one side of a comparison.
func fixtureSide(t *testing.T) *analysis.Side {
	t.Helper()
	s, err := readSide(context.Background(), fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sideOf is a side made of cells, with the fixture's metadata.
func sideOf(t *testing.T, cells []datasets.Cell, env []datasets.Environment) *analysis.Side {
	t.Helper()
	return analysis.NewSide(&analysis.Tables{Meta: fixtureSide(t).Tables.Meta, Cells: cells, Env: env}, nil)
}

// join joins two sides as Compare does.
func join(a, b *analysis.Side) *TwoRuns { return &TwoRuns{analysis.Join(a, b)} }

func rowsOf(c *TwoRuns) []string {
	var out []string
	for _, r := range c.Rows {
		out = append(out, fmt.Sprintf("%s/%s/%s x%d", r.Batch.Name, r.Variant, r.Point.Label(), r.Repeats))
	}
	return out
}

// A run compared with itself: every measured cell is joined, no verdict
// is better or worse; the failed cell is left out of its row and the
// unfair one marks its row.
func TestCompareRunWithItself(t *testing.T) {
	c, err := Compare(fixtureDir, fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.OnlyA)+len(c.OnlyB) != 0 || !c.DriftKnown || len(c.Drift) != 0 {
		t.Errorf("only A %v, only B %v, drift %v (known %v)", c.OnlyA, c.OnlyB, c.Drift, c.DriftKnown)
	}
	rows := rowsOf(c)
	if len(rows) != 15 || !slices.Contains(rows, "main/go/c8-p128 x4") || !slices.Contains(rows, "heap/jvm-512m/c32-p128 x1") {
		t.Errorf("rows %v", rows)
	}
	var out bytes.Buffer
	if err := c.Write(&out, "text"); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"yardstick compare reportfix run 20261130T062300Z-r3p0 (A) with run 20261130T062300Z-r3p0 (B)",
		"Same plan (hash ", "Nothing: the same binaries", "None: every measured cell is in both runs.",
		"\nmain   jvm-zgc UNFAIR  c32-p2048        5   1.00x [0.97, 1.03] undecided",
		"- main jvm-zgc c8-p128: rps: interval straddles the margin; about 54 more starts per side would decide it",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for _, r := range c.Rows {
		for i, v := range r.Comparisons {
			if v.Verdict == decide.Better || v.Verdict == decide.Worse {
				t.Errorf("%s/%s/%s %s: %s against itself", r.Batch.Name, r.Variant, r.Point.Label(), compareMetrics[i], v.Verdict)
			}
		}
	}
	if err := c.Write(&out, "pdf"); err == nil {
		t.Error("format pdf accepted")
	}
}

// Twice the throughput in B is better, with its interval; fewer
// cells in A are B's only; a changed kernel in the environment table is
// what changed around the cells when the runs have no lock.
func TestCompareVerdictsAndDrift(t *testing.T) {
	a := fixtureSide(t)
	cells := slices.Clone(a.Tables.Cells)
	for i := range cells {
		if c := &cells[i]; c.Variant == "jvm-g1" && c.RPS != nil {
			rps := 2 * *c.RPS
			c.RPS = &rps
		}
	}
	env := slices.Clone(a.Tables.Env)
	env[0].Kernel = "6.12.9"
	b := sideOf(t, cells, env)
	a = sideOf(t, slices.DeleteFunc(slices.Clone(a.Tables.Cells), func(c datasets.Cell) bool { return c.CellName == "main/go/c32-p128/r2" }), a.Tables.Env)
	c := join(a, b)
	if !slices.Equal(c.OnlyB, []string{"main/go/c32-p128/r2"}) || len(c.OnlyA) != 0 {
		t.Errorf("only A %v, only B %v", c.OnlyA, c.OnlyB)
	}
	var out bytes.Buffer
	if err := c.Write(&out, "markdown"); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	for _, want := range []string{
		"- environment `kernel`: `6.1.0-28-amd64` → `6.12.9`\n",
		"- only in B: main/go/c32-p128/r2\n",
		"| main | go | c32-p128 | 4 | 1.00x \\[0.99, 1.01\\] undecided |",
		"| main | jvm-g1 | c8-p128 | 5 | 2.00x \\[1.94, 2.07\\] better | 1.00x \\[0.97, 1.03\\] undecided |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// A run measured on a busy machine decides nothing against another run:
// twice the throughput in B, where other work took a fifth of the load
// generator's CPUs in B's windows, is undecided with the busy run named;
// the same B on a quiet machine is better.
func TestCompareBusyRun(t *testing.T) {
	a := fixtureSide(t)
	doubled := func(share float64) []datasets.Cell {
		cells := slices.Clone(a.Tables.Cells)
		for i := range cells {
			if c := &cells[i]; c.Variant == "jvm-g1" && c.RPS != nil {
				rps, sh := 2**c.RPS, share
				c.RPS, c.LoadgenOthersCPUShare = &rps, &sh
			}
		}
		return cells
	}
	verdict := func(c *TwoRuns) datasets.Comparison {
		for _, r := range c.Rows {
			if r.Variant == "jvm-g1" && r.Point.Label() == "c8-p128" {
				return r.Comparisons[0]
			}
		}
		t.Fatal("no jvm-g1 c8-p128 row")
		return datasets.Comparison{}
	}
	if v := verdict(join(a, sideOf(t, doubled(0.01), a.Tables.Env))); v.Verdict != decide.Better {
		t.Errorf("quiet B, twice the throughput: %s", v)
	}
	v := verdict(join(a, sideOf(t, doubled(0.2), a.Tables.Env)))
	if v.Verdict != decide.Undecided || decide.KindOf(v) != decide.ReasonUnfair || !strings.HasPrefix(v.Reason, "unfair (the machine was busy in B") || v.Ratio == nil || *v.Ratio < 1.9 {
		t.Errorf("busy B, twice the throughput: %s", v)
	}
}

// openLoopCells are the cells of an open-loop batch at 80% and 90% of
// each repeat's peak, as the cells table has them: peak_fraction from the
// plan, rate_target what the load generator aimed at (each repeat's own
// peak times the fraction), or null where it did not say.
func openLoopCells(rateKnown bool) []datasets.Cell {
	var cells []datasets.Cell
	for i, frac := range []float64{0.8, 0.9} {
		for r := int64(1); r <= 5; r++ {
			pl, f, rps := int64(128), frac, 1000+float64(r)
			c := datasets.Cell{Batch: "open", CellID: fmt.Sprintf("id%d-%d", i, r), Seq: int64(5*i) + r,
				CellName: fmt.Sprintf("open/go/r%.0fpct-p128/r%d", 100*frac, r), Target: "go", Variant: "go", Kind: "go",
				Payload: &pl, Mode: "open", PeakFraction: &f, Repeat: r, Status: pipeline.StatusOK, RPS: &rps}
			if rateKnown {
				rate := frac * (9000 + 100*float64(r))
				c.RateTarget = &rate
			}
			cells = append(cells, c)
		}
	}
	return cells
}

// Fix: compare grouped open-loop cells by the rate they reached and not by
// their planned fraction of peak, so that the repeats of "80% of peak"
// split into one row each (each repeat measures its own peak), and where
// the rate was unknown 80% and 90% collided in one row. Points are now
// the plan's, named as cell names name them.
func TestCompareOpenLoopPeakFraction(t *testing.T) {
	for _, known := range []bool{true, false} {
		a, b := sideOf(t, openLoopCells(known), nil), sideOf(t, openLoopCells(known), nil)
		c := join(a, b)
		if got := rowsOf(c); !slices.Equal(got, []string{"open/go/r80pct-p128 x5", "open/go/r90pct-p128 x5"}) {
			t.Errorf("rate known %v: rows %v, want one row of five repeats per fraction of peak", known, got)
		}
		if c.DriftKnown {
			t.Error("drift known without lock or environment")
		}
	}
}

// aaCells are one repeat of go at c8, as a run and its rerun might
// measure it: rps and p99 with each kept window's measured noise, and
// whether the throughput was steady in it.
func aaCells(rps float64, p99 int64, noise float64, steady bool) []datasets.Cell {
	c8 := int64(8)
	change := 0.01
	if !steady {
		change = 0.25
	}
	return []datasets.Cell{{Batch: "main", CellID: "c8id", Seq: 1, CellName: "main/go/c8/r1", Target: "go", Variant: "go", Kind: "go",
		Mode: "closed", Concurrency: &c8, Repeat: 1, Status: pipeline.StatusOK, RPS: &rps, LatencyP99US: &p99,
		NoiseRPS: &noise, NoiseP99: &noise, SteadyClass: ptrTo("warmup"), KeptSteady: &steady, KeptChange: &change}}
}

func ptrTo[T any](v T) *T { return &v }

// One start a side, no margin (the fixture has no batches table): B's
// throughput 20% above A's with each kept window ±15% has an interval
// that straddles 1; with ±3% the interval lies beyond it. Neither is
// decided: one start a side measures nothing of the noise between starts,
// which is what a run and its rerun differ by. Unless B's kept window was
// not steady (its throughput drifted 25% across it): its drift counts as
// noise within the start, which widens the interval, and the row gets a
// note on steadiness.
func TestCompareMeasuredNoise(t *testing.T) {
	for _, tc := range []struct {
		noise      float64
		steady     bool
		want, ties string
	}{
		{0.15, true, "| main | go | c8 | 1 | 1.20x \\[0.97, 1.48\\] undecided | undecided | 0.80x \\[0.65, 0.99\\] undecided |",
			"- main go c8: rps, p99: one start a side: no noise between starts"},
		{0.03, true, "| main | go | c8 | 1 | 1.20x \\[1.15, 1.25\\] undecided | undecided | 0.80x \\[0.77, 0.83\\] undecided |",
			"- main go c8: rps, p99: one start a side: no noise between starts; 3 starts per side would measure it"},
		{0.03, false, "| main | go | c8 | 1 | 1.20x \\[0.93, 1.54\\] undecided | undecided | 0.80x \\[0.77, 0.83\\] undecided |",
			"- main go c8: rps, p99: one start a side: no noise between starts; 3 starts per side would measure it"},
	} {
		c := join(sideOf(t, aaCells(10000, 5000, tc.noise, true), nil), sideOf(t, aaCells(12000, 4000, tc.noise, tc.steady), nil))
		var out bytes.Buffer
		if err := c.Write(&out, "markdown"); err != nil {
			t.Fatal(err)
		}
		md := out.String()
		name := fmt.Sprintf("noise ±%.0f%%, steady %v", 100*tc.noise, tc.steady)
		if !strings.Contains(md, tc.want) {
			t.Errorf("%s: want %q in\n%s", name, tc.want, md)
		}
		if tc.ties != "" && !strings.Contains(md, tc.ties) {
			t.Errorf("%s: want the reason %q in:\n%s", name, tc.ties, md)
		}
		if strings.Contains(md, "tie") {
			t.Errorf("%s: the word tie in:\n%s", name, md)
		}
		unsteady := strings.Contains(md, "- main go c8: B: go at c8 was still warming up inside its kept window (throughput drift x1.25 higher)\n")
		if unsteady == tc.steady {
			t.Errorf("%s: not-steady note %v:\n%s", name, unsteady, md)
		}
	}
}

// A run measured on a busy machine is named so in what changed around
// the cells; the quiet side is not.
func TestCompareBusySide(t *testing.T) {
	a := fixtureSide(t)
	cells := slices.Clone(a.Tables.Cells)
	for i := range cells {
		share := 0.4
		cells[i].OthersCPUShare = &share
	}
	c := join(a, sideOf(t, cells, a.Tables.Env))
	var out bytes.Buffer
	if err := c.Write(&out, "markdown"); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	if !strings.Contains(md, "In B the machine was busy: other work took a median 40%") {
		t.Errorf("the busy side is not named:\n%s", md)
	}
	if strings.Contains(md, "In A the machine was busy") {
		t.Error("the quiet side is called busy")
	}
}
