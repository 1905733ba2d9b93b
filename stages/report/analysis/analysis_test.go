package analysis

import (
	"fmt"
	"math"
	"testing"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/pipeline"
)

func ptr[T any](v T) *T { return &v }

// cellsOf are the cells of batch "main": variants go (the baseline) and
// jvm, at concurrency 8 and 32, three repeats each, each repeat's kept
// window known to ±1%; jvm's throughput is factor × go's, its p99 the
// same. go's third repeat at c32 failed; jvm's first at c8 is unfair;
// one more go repeat was not needed.
func cellsOf(factor float64) []datasets.Cell {
	var cells []datasets.Cell
	seq := int64(0)
	for _, v := range []string{"go", "jvm"} {
		for _, conc := range []int64{32, 8} {
			for r := int64(1); r <= 3; r++ {
				seq++
				rps := 1000 * float64(conc) * (1 + 0.002*float64(r))
				if v == "jvm" {
					rps *= factor
				}
				c := datasets.Cell{Batch: "main", CellID: fmt.Sprintf("%s-%d-%d", v, conc, r), Seq: seq, Target: v, Variant: v, Kind: "go",
					CellName: fmt.Sprintf("main/%s/c%d/r%d", v, conc, r), Mode: "closed", Concurrency: ptr(conc), Repeat: r,
					Status: pipeline.StatusOK, RPS: ptr(rps), NoiseRPS: ptr(0.01), LatencyP99US: ptr(int64(5000)), NoiseP99: ptr(0.01)}
				switch {
				case v == "go" && conc == 32 && r == 3:
					c.Status, c.RPS = pipeline.StatusFailed, nil
				case v == "jvm" && conc == 8 && r == 1:
					c.Status, c.UnfairChecks = pipeline.StatusUnfair, ptr("cpu_affinity, event_loops")
				}
				cells = append(cells, c)
			}
		}
	}
	return append(cells, datasets.Cell{Batch: "main", CellID: "go-8-4", Seq: seq + 1, Target: "go", Variant: "go",
		Mode: "closed", Concurrency: ptr(int64(8)), Repeat: 4, Status: pipeline.StatusNotNeeded})
}

func tablesOf(cells []datasets.Cell) *Tables {
	return &Tables{Cells: cells, Plan: &pipeline.Plan{Batches: []pipeline.Batch{{Name: "main", Baseline: "go", Fairness: pipeline.Fairness{Noise: 0.05}}}}}
}

func TestBatchesGroupAndCount(t *testing.T) {
	bs := Batches(tablesOf(cellsOf(2)), "")
	if len(bs) != 1 {
		t.Fatalf("%d batches", len(bs))
	}
	b := bs[0]
	if b.Baseline == nil || b.Baseline.Label != "go" || b.BaselineFrom != "the batch's declared baseline" || b.Noise != 0.05 {
		t.Fatalf("baseline %v from %q, noise %v", b.Baseline, b.BaselineFrom, b.Noise)
	}
	if len(b.Points) != 2 || b.Points[0].Label() != "c8" || b.Points[1].Label() != "c32" {
		t.Errorf("points %v, want c8 then c32", b.Points)
	}
	if n := b.Counts(); n != (pipeline.CellCounts{OK: 10, Unfair: 1, Failed: 1}) {
		t.Errorf("counts %+v: the not-needed cell is in no repeat set", n)
	}
	jvm := b.Variants[1]
	s := b.RepeatSet(jvm, b.Points[0])
	if len(s.Measured) != 3 || s.N.Unfair != 1 || fmt.Sprint(s.Unfair) != "[cpu_affinity event_loops]" {
		t.Errorf("jvm at c8: %d measured, %+v, unfair %v", len(s.Measured), s.N, s.Unfair)
	}
	if b.ColorIndex(b.Baseline) != 0 || b.ColorIndex(jvm) != 1 {
		t.Errorf("colours: baseline %d, jvm %d", b.ColorIndex(b.Baseline), b.ColorIndex(jvm))
	}
	if bs := Batches(tablesOf(cellsOf(2)), "jvm"); bs[0].Baseline != bs[0].Variants[1] || bs[0].BaselineFrom != "--baseline" {
		t.Errorf("--baseline jvm: baseline %v", bs[0].Baseline)
	}
	if bs := Batches(tablesOf(cellsOf(2)), "nginx"); bs[0].Baseline != nil || bs[0].BaselineName != "nginx" {
		t.Errorf("--baseline nginx: baseline %v, name %q", bs[0].Baseline, bs[0].BaselineName)
	}
}

// Twice the throughput wins both points (one with an unfair cell),
// peaks at c32 and scores 100 + 30 log10 2 on the radar's throughput
// axis; the same throughput wins none.
func TestWinsPeaksRadar(t *testing.T) {
	b := Batches(tablesOf(cellsOf(2)), "")[0]
	rps := ColumnByKey("throughput")
	wc := b.Wins(rps)
	if wc.Points != 2 || wc.Count["jvm"] != 1 || wc.Unfair["jvm"] != 0 || wc.Undecided != 1 {
		// at c8 the unfair cell leaves the comparison undecided
		t.Errorf("wins %+v", wc)
	}
	ps := b.Peaks()
	if len(ps) != 2 || ps[1].Set.Variant.Label != "jvm" || ps[1].Set.Point.Label() != "c32" || ps[1].RPS != 64256 {
		t.Errorf("peaks %+v", ps)
	}
	rows := b.Radar()
	if len(rows) != 2 || !rows[1].Unfair || math.Abs(rows[1].Scores[0]-(100+30*math.Log10(2))) > 0.01 || !rows[1].Undecided[0] {
		t.Errorf("radar %+v", rows)
	}
	if rows[0].Scores[0] != 100 || rows[0].Undecided[0] {
		t.Errorf("the baseline scores %v on throughput", rows[0].Scores[0])
	}
	eq := Batches(tablesOf(cellsOf(1)), "")[0]
	if wc := eq.Wins(rps); wc.Count["jvm"]+wc.Count["go"] != 0 || wc.Equivalent != 1 {
		t.Errorf("equal throughput: wins %+v", wc)
	}
	o := eq.PointWinner(rps, eq.Points[1])
	if !o.Measured || o.Winner != nil || o.Verdict != decide.Equivalent {
		t.Errorf("equal throughput at c32: %+v", o)
	}
	// undecided at c8 (unfair), better at c32: undecided, not split
	d := b.Dimension(b.Variants[1], rps)
	if d.Outcome != decide.Undecided || d.Split || len(d.Decisions) != 2 || d.Decisions[1].Verdict != decide.Better {
		t.Errorf("dimension %+v", d)
	}
}

func TestUnsteadyOf(t *testing.T) {
	no := false
	for _, tc := range []struct {
		c    datasets.Cell
		want Unsteady
	}{
		{datasets.Cell{}, Unsteady{}},
		{datasets.Cell{KeptSteady: &no}, Unsteady{Throughput: true}},
		{datasets.Cell{P99KeptSteady: &no, SteadyError: ptr("too short")}, Unsteady{P99: true, NoAnalysis: true}},
		{datasets.Cell{UnfairChecks: ptr("steady_state")}, Unsteady{FailedCheck: true}},
		{datasets.Cell{UnfairChecks: ptr("steady_state"), KeptSteady: &no}, Unsteady{Throughput: true}},
	} {
		if got := UnsteadyOf(&tc.c); got != tc.want || got.Steady() != (tc.want == Unsteady{}) {
			t.Errorf("%+v: %+v, want %+v", tc.c, got, tc.want)
		}
	}
}

// Overall folds per-point winners: one winner everywhere, all
// equivalent, undecided where any point is, or split.
func TestOverall(t *testing.T) {
	for _, tc := range []struct {
		per  []string
		want string
	}{
		{[]string{"go", "go"}, "go"},
		{[]string{"equivalent", "equivalent"}, "equivalent"},
		{[]string{"go", "equivalent"}, "split"},
		{[]string{"go", "undecided"}, "undecided"},
		{[]string{"go", "scg-g1"}, "split"},
		{[]string{"", ""}, "not measured"},
		{[]string{"", "go"}, "go"},
	} {
		if got := Overall(tc.per); got != tc.want {
			t.Errorf("Overall(%q) = %q, want %q", tc.per, got, tc.want)
		}
	}
}

// TestAddedMetricIsAColumn: a metric added to the registry (decide.Metrics)
// is a ranked column of the report's table and a metric of compare, with
// no change here.
func TestAddedMetricIsAColumn(t *testing.T) {
	saved := decide.Metrics
	t.Cleanup(func() { decide.Metrics = saved })
	decide.Metrics = append(saved[:len(saved):len(saved)],
		decide.Metric{Name: "latency_max", Title: "max", Unit: "us", Column: "latency_max_us", LowerIsBetter: true})
	m := ColumnByKey("latency_max")
	mx := int64(4321)
	if v, ok := m.Get(&datasets.Cell{LatencyMaxUS: &mx}); !m.Ranked() || m.Cmp != "latency_max" || !ok || v != 4321 {
		t.Errorf("the added metric's column: %+v (%v %v)", m, v, ok)
	}
	if keys := CompareMetrics(); keys[len(keys)-1] != "latency_max" {
		t.Errorf("compare's metrics: %v", keys)
	}
}
