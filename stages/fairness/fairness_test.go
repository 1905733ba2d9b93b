package fairness

import (
	"encoding/json"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/pipeline"
	"yardstick/stats/hdrstat"
)

// hist records n values of v microseconds and encodes them.
func hist(t *testing.T, v int64, n int) string {
	t.Helper()
	h := hdrhistogram.New(1, 60_000_000, 3)
	for range n {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	s, err := hdrstat.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func plan2() *pipeline.Plan {
	b := pipeline.Batch{
		Name:     "main",
		Fairness: pipeline.Fairness{EventLoops: 2, LogBytesPerRequest: &pipeline.Tolerance{Tolerance: 0.15}, Noise: 0.05},
		Variants: []pipeline.Variant{
			{Process: pipeline.Process{Kind: "go", Env: []string{"GOMAXPROCS=2"}}, Label: "go"},
			{Process: pipeline.Process{Kind: "jvm", EventLoopThreads: "^w-"}, Label: "jvm"},
		},
	}
	c := 32
	return &pipeline.Plan{Batches: []pipeline.Batch{b}, Cells: []pipeline.Cell{
		{ID: "a", Name: "main/go/c32/r1", Batch: "main", Variant: "go", Point: pipeline.Point{Mode: "closed", Concurrency: c}},
		{ID: "b", Name: "main/jvm/c32/r1", Batch: "main", Variant: "jvm", Point: pipeline.Point{Mode: "closed", Concurrency: c}},
	}}
}

func ok(rps, meanUS float64, p50 int64, t *testing.T) *pipeline.Checkpoint {
	return &pipeline.Checkpoint{
		Status: pipeline.StatusOK,
		Load: &pipeline.Load{Mode: "closed", Connections: 32, Requests: int64(rps), RPS: rps, DurationS: 1,
			Latency: pipeline.LatencyUS{Mean: meanUS}, Hist: hist(t, p50, 100), ResponseBytes: int64(rps) * 100,
			LoadgenCPUS: 0.5, LoadgenDurationS: 1, LoadgenCPUs: 1},
		Target:    &pipeline.TargetStats{EventLoopThreads: -1},
		AccessLog: &pipeline.LogStats{BytesPerRequest: 100},
		GC:        &pipeline.GCStats{Source: "gctrace", Count: 3},
		Steady:    steadyOK(),
	}
}

// steadyOK is the analysis of a flat series whose kept window is steady,
// with ±2% of noise on throughput and ±4% on p99.
func steadyOK() *pipeline.Steady {
	flat := pipeline.SeriesSteady{Class: pipeline.SteadyFlat, Changepoints: []int{}, KeptChange: 0.01, KeptBand: 0.05, KeptSteady: true}
	return &pipeline.Steady{Throughput: flat, P99: flat, StartUS: 0, Noise: pipeline.Noise{RPS: 0.02, P99: 0.04, Block: 5, Replicates: 400}}
}

func find(rows []pipeline.FairnessRow, check, cell string) *pipeline.FairnessRow {
	for i := range rows {
		r := &rows[i]
		if r.Check != check {
			continue
		}
		if cell == "" && r.CellID == nil || r.CellID != nil && *r.CellID == cell {
			return r
		}
	}
	return nil
}

// wantRow is a fairness row a test expects: the check, the cell ("" for
// the batch row), pass or fail, and a part of its detail.
type wantRow struct {
	check, cell string
	pass        bool
	detail      string
}

// expectRows checks that rows has each wanted row.
func expectRows(t *testing.T, rows []pipeline.FairnessRow, want []wantRow) {
	t.Helper()
	for _, tc := range want {
		r := find(rows, tc.check, tc.cell)
		if r == nil {
			t.Errorf("%s %q: no row", tc.check, tc.cell)
			continue
		}
		if r.Pass != tc.pass || r.Detail == nil || !strings.Contains(*r.Detail, tc.detail) {
			t.Errorf("%s %q: pass %v (want %v), detail %v (want %q)", tc.check, tc.cell, r.Pass, tc.pass, *r.Detail, tc.detail)
		}
	}
}

func TestChecks(t *testing.T) {
	p := plan2()
	// go: 32 connections at 10000 rps = 3200 us residence, mean 3200 us.
	goCP := ok(10000, 3200, 3000, t)
	// jvm: 4 worker threads where 2 are declared; 40 ms latency floor;
	// 4.4x the access-log bytes; mean latency 40 ms but 32/700 = 45.7 ms.
	jvmCP := ok(700, 40000, 44000, t)
	jvmCP.Target.EventLoopThreads = 4
	jvmCP.AccessLog.BytesPerRequest = 440
	rows := Check(Input{Plan: p, Checkpoints: map[string]*pipeline.Checkpoint{"a": goCP, "b": jvmCP}})

	expectRows(t, rows, []wantRow{
		{"event_loops", "a", true, "GOMAXPROCS"},
		{"event_loops", "b", false, "4 event-loop threads, declared 2"},
		{"event_loops", "", false, "go 2, jvm 4"},
		{"log_bytes", "", false, "go 100.0, jvm 440.0"},
		{"littles_law", "a", true, "3200 us residence vs 3200 us"},
		{"littles_law", "b", false, "45714 us residence vs 40000 us"},
		{"nagle_floor", "a", true, "p5 latency 3.0 ms"},
		{"nagle_floor", "b", false, "Nagle"},
		{"loadgen_saturation", "a", true, "busy 50%"},
		{"gc_window", "a", true, "3 collection(s) in the window"},
	})

	unfair := pipeline.UnfairCells(p, rows)
	if got := strings.Join(unfair["b"], ","); got != "event_loops,littles_law,log_bytes,nagle_floor" {
		t.Errorf("unfair checks of b: %s", got)
	}
	// batch-scope failures mark every cell of the batch
	if got := strings.Join(unfair["a"], ","); got != "event_loops,log_bytes" {
		t.Errorf("unfair checks of a: %s", got)
	}
}

// Steadiness is no fairness check: a cell that ramps through its kept
// window, one whose adaptive warm-up was capped and one without an
// analysis get no row, and no cell is unfair for it (the decisions count
// the drift as noise within the start); a measured noise wider than the
// margin is no unfairness either.
func TestSteadinessIsNoFairnessCheck(t *testing.T) {
	p := plan2()
	ramp := ok(10000, 3200, 3000, t)
	ramp.Intervals = make([]pipeline.Interval, 80)
	for i := range ramp.Intervals {
		ramp.Intervals[i] = pipeline.Interval{Index: i, StartUS: int64(i) * 100_000, DurationUS: 100_000, InWindow: i >= 30}
	}
	ramp.Steady.Throughput = pipeline.SeriesSteady{Class: pipeline.SteadyWarmup, Changepoints: []int{12, 55}, SteadyStart: 55,
		KeptChange: 0.3, KeptBand: 0.07, KeptChangepoint: true}
	ramp.Steady.StartUS = 5_500_000
	ramp.Steady.Noise.RPS = 0.12
	capped := ok(10000, 3200, 3000, t)
	capped.Window = &pipeline.Window{Auto: true, WarmupCapped: true, WarmupMax: 20e9}
	short := ok(10000, 3200, 3000, t)
	short.Steady = &pipeline.Steady{Error: "steady state: 8 intervals, need at least 10", StartUS: -1}
	for _, cps := range []map[string]*pipeline.Checkpoint{{"a": ok(10000, 3200, 3000, t), "b": ramp}, {"a": capped, "b": short}} {
		rows := Check(Input{Plan: p, Checkpoints: cps})
		for _, r := range rows {
			if r.Check == "steady_state" || r.Check == "noise" {
				t.Errorf("a %s row: %+v", r.Check, r)
			}
		}
		if u := pipeline.UnfairCells(p, rows); len(u) > 0 {
			t.Errorf("cells unfair for their steadiness: %v", u)
		}
	}
}

func TestSaturationAndVaries(t *testing.T) {
	p := plan2()
	busy := ok(10000, 3200, 3000, t)
	busy.Load.LoadgenCPUS = 0.95
	cached := ok(10000, 3200, 3000, t)
	cached.Varies = &pipeline.VariesProbe{Values: []string{"1", "2"}, Statuses: []int{200, 200}, BodySHA: []string{"abcdef0123456789", "abcdef0123456789"}, Same: true}
	rows := Check(Input{Plan: p, Checkpoints: map[string]*pipeline.Checkpoint{"a": busy, "b": cached}})
	if r := find(rows, "loadgen_saturation", "a"); r == nil || r.Pass {
		t.Errorf("a load generator busy 95%% of its CPU passed: %+v", r)
	}
	if r := find(rows, "response_varies", "b"); r == nil || r.Pass {
		t.Errorf("a cached answer passed: %+v", r)
	}
	if r := find(rows, "response_varies", "a"); r != nil {
		t.Errorf("a cell without a probe got a response_varies row")
	}
	// An open loop that sent a fifth of its rate.
	open := ok(2000, 3200, 3000, t)
	open.Load.Mode, open.Load.RateTarget, open.Load.Sends = "open", 10000, 2000
	rows = Check(Input{Plan: p, Checkpoints: map[string]*pipeline.Checkpoint{"a": open}})
	if r := find(rows, "loadgen_saturation", "a"); r == nil || r.Pass || !strings.Contains(*r.Detail, "sent 2000 of 10000 req/s") {
		t.Errorf("an open loop at 20%% of its rate passed: %+v", r)
	}
}

// affinity compares CPU sets, not their spellings: a target declared
// "0,1" (a checkpoint of an older yardstick kept that spelling) whose
// threads all run on 0-1 passes; a thread allowed a CPU outside the set
// fails the cell, and the detail names the declared set and the mask read
// back; a role with no thread read back fails.
func TestAffinity(t *testing.T) {
	read := func(js string) *pipeline.Affinity {
		var a pipeline.Affinity
		if err := json.Unmarshal([]byte(js), &a); err != nil {
			t.Fatal(err)
		}
		return &a
	}
	p := plan2()
	pinned := ok(10000, 3200, 3000, t)
	pinned.Affinity = read(`{"target_declared": "0,1", "target": {"0-1": 4}, "loadgen_declared": "2", "loadgen": {"2": 3}}`)
	leaked := ok(10000, 3200, 3000, t)
	leaked.Affinity = read(`{"target_declared": "0-1", "target": {"0,1": 3, "0-2": 1}, "loadgen_declared": "2", "loadgen": {}}`)
	rows := Check(Input{Plan: p, Checkpoints: map[string]*pipeline.Checkpoint{"a": pinned, "b": leaked}})
	expectRows(t, rows, []wantRow{
		{"affinity", "a", true, "target declared 0-1: 4 thread(s) on 0-1; load generator declared 2: 3 thread(s) on 2"},
		{"affinity", "b", false, "target declared 0-1: 3 thread(s) on 0-1, 1 thread(s) on 0-2; load generator: no thread read back"},
	})
	if got := strings.Join(pipeline.UnfairCells(p, rows)["b"], ","); !strings.Contains(got, "affinity") {
		t.Errorf("unfair checks of b: %s, want affinity among them", got)
	}
	if got := strings.Join(pipeline.UnfairCells(p, rows)["a"], ","); strings.Contains(got, "affinity") {
		t.Errorf("unfair checks of a: %s, want no affinity", got)
	}
}
