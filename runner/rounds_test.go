package runner

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"yardstick/datasets"
	"yardstick/pipeline"
)

// A round after which no cell of the batch was measured (every start
// failed) decides nothing: the rounds go on, and at the last one the
// message says that no comparison could be made, not that all were
// decided.
func TestDecideRoundWithoutComparisons(t *testing.T) {
	p := &pipeline.Plan{Experiment: "e", Batches: []pipeline.Batch{{
		Name: "main", Repeats: 4, RepeatsMin: 2, Baseline: "a",
		Variants: []pipeline.Variant{{Label: "a"}, {Label: "b"}},
	}}}
	for r := 1; r <= 4; r++ {
		for _, v := range []string{"a", "b"} {
			p.Cells = append(p.Cells, pipeline.Cell{
				ID: fmt.Sprintf("%012x", 16*r+len(v)+int(v[0])), Batch: "main", Target: v, Variant: v, Repeat: r,
				Name: "main/" + v + "/c1/r" + string(rune('0'+r)),
			})
		}
	}
	rd, err := pipeline.CreateRunDir(t.TempDir(), "e", "run1")
	if err != nil {
		t.Fatal(err)
	}
	if err := rd.WritePlan(p); err != nil {
		t.Fatal(err)
	}
	b := &p.Batches[0]
	var st pipeline.BatchRounds
	st.Min, st.Max = b.RepeatsMin, b.Repeats
	for r := 1; r <= 4; r++ {
		var w bytes.Buffer
		if err := decideRound(rd, p, b, &st, r, 4, roundTime{}, &w); err != nil {
			t.Fatal(err)
		}
		out := w.String()
		if strings.Contains(out, "decided") {
			t.Errorf("round %d: %q claims a decision on no comparison", r, out)
		}
		if r < 4 && (st.Stopped != "" || !strings.Contains(out, "no comparison of throughput and p99 yet")) {
			t.Errorf("round %d: stopped %q, said %q; want the next round", r, st.Stopped, out)
		}
		if r == 4 && (st.Stopped != pipeline.RoundsMax || !strings.Contains(out, "no comparison of throughput and p99 after 4 rounds (max)")) {
			t.Errorf("last round: stopped %q, said %q", st.Stopped, out)
		}
		if strings.Contains(out, "busy") {
			t.Errorf("round %d: no cell measured, yet the machine is called busy: %q", r, out)
		}
	}
}

// A point settles after a round once every comparison there that stops
// the rounds is decided, not before, and keeps the round it settled
// after; the cells of its later rounds are then not needed, those of
// the points still undecided are.
func TestSettle(t *testing.T) {
	cmp := func(point, candidate, verdict string) datasets.Comparison {
		return datasets.Comparison{Point: point, Candidate: candidate, Metric: "throughput", Verdict: verdict}
	}
	st := pipeline.BatchRounds{Min: 3, Max: 6}
	got := settle(&st, []datasets.Comparison{
		cmp("c8-p128", "b", "worse"), cmp("c8-p128", "c", "undecided"),
		cmp("c32-p128", "b", "equivalent"), cmp("c32-p128", "c", "better"),
	}, 3)
	if !slices.Equal(got, []string{"c32-p128"}) || st.Settled["c32-p128"] != 3 || len(st.Settled) != 1 {
		t.Fatalf("after round 3: settled %v (%v), want c32-p128 only, after round 3", got, st.Settled)
	}
	got = settle(&st, []datasets.Comparison{
		cmp("c8-p128", "b", "worse"), cmp("c8-p128", "c", "worse"),
		cmp("c32-p128", "b", "equivalent"), cmp("c32-p128", "c", "better"),
	}, 4)
	if !slices.Equal(got, []string{"c8-p128"}) || st.Settled["c32-p128"] != 3 || st.Settled["c8-p128"] != 4 {
		t.Fatalf("after round 4: settled %v (%v), want c8-p128 after 4 and c32-p128 still after 3", got, st.Settled)
	}
	cell := func(c, r int) *pipeline.Cell {
		n := 128
		return &pipeline.Cell{Repeat: r, Point: pipeline.Point{Mode: "closed", Concurrency: c, Payload: &n}}
	}
	for _, tc := range []struct {
		c, r int
		skip bool
	}{{32, 3, false}, {32, 4, true}, {8, 4, false}, {8, 5, true}, {16, 6, false}} {
		if got := st.Skips(cell(tc.c, tc.r)); got != tc.skip {
			t.Errorf("c%d round %d: skipped %v, want %v", tc.c, tc.r, got, tc.skip)
		}
	}
	st.Stopped, st.Ran = pipeline.RoundsMax, 5
	if !st.Skips(cell(16, 6)) || st.Skips(cell(16, 5)) {
		t.Errorf("stopped after round 5: a round-6 cell must be skipped and a round-5 one of an unsettled point not")
	}
}

// Only a batch whose points each measure on their own settles points:
// not one with a fraction-of-peak rate or a connection-holding point.
func TestSettles(t *testing.T) {
	for _, tc := range []struct {
		points []pipeline.Point
		want   bool
	}{
		{[]pipeline.Point{{Mode: "closed", Concurrency: 8}, {Mode: "open", Rate: 1000}}, true},
		{[]pipeline.Point{{Mode: "closed", Concurrency: 8}, {Mode: "open", PeakFraction: 0.5}}, false},
		{[]pipeline.Point{{Mode: "closed", Concurrency: 8}, {Mode: "hold", Connections: 100}}, false},
	} {
		p := &pipeline.Plan{Batches: []pipeline.Batch{{Name: "main"}}}
		for _, pt := range tc.points {
			p.Cells = append(p.Cells, pipeline.Cell{Batch: "main", Point: pt})
		}
		p.Cells = append(p.Cells, pipeline.Cell{Batch: "other", Point: pipeline.Point{Mode: "hold"}})
		if got := settles(p, &p.Batches[0]); got != tc.want {
			t.Errorf("%v: settles %v, want %v", tc.points, got, tc.want)
		}
	}
}

// A budget bounds the rounds' time: the next round is estimated from the
// last one, scaled to the cells it will run (a settled point's are not),
// and a round that would end past the budget does not start.
func TestBudgetCountsTheNextRound(t *testing.T) {
	conc := func(n int) pipeline.Point { return pipeline.Point{Mode: "closed", Concurrency: n} }
	p := &pipeline.Plan{Batches: []pipeline.Batch{{Name: "main", Repeats: 6, RepeatsMin: 3, RepeatsBudget: pipeline.Duration(150 * time.Second)}}}
	for r := 1; r <= 6; r++ {
		for _, v := range []string{"a", "b"} {
			for _, c := range []int{8, 32} {
				p.Cells = append(p.Cells, pipeline.Cell{Batch: "main", Variant: v, Repeat: r, Point: conc(c)})
			}
		}
	}
	b := &p.Batches[0]
	st := pipeline.BatchRounds{Min: 3, Max: 6}
	last := roundTime{took: 40 * time.Second, cells: 4}
	if got := nextRound(p, b, &st, 4, last); got != 40*time.Second {
		t.Errorf("next round of 4 cells after one of 4 in 40 s: %s", got)
	}
	st.Settled = map[string]int{conc(8).Label(): 3}
	if got := nextRound(p, b, &st, 4, last); got != 20*time.Second {
		t.Errorf("next round with one of two points settled: %s, want 20s", got)
	}
	if nextRound(p, b, &st, 4, roundTime{}) != 0 {
		t.Error("no last round, yet an estimate")
	}
	if !b.Over(120*time.Second, 40*time.Second) || b.Over(120*time.Second, 20*time.Second) || !b.Over(150*time.Second, 0) || b.Over(149*time.Second, 0) {
		t.Error("Over: want 120 s + 40 s over a 150 s budget, 120 s + 20 s not, 150 s over")
	}
	if (&pipeline.Batch{}).Over(time.Hour, time.Hour) {
		t.Error("a batch without a budget is over")
	}
}
