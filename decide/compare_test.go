package decide

import (
	"strings"
	"testing"

	"yardstick/datasets"
	"yardstick/pipeline"
)

// testCells are two variants' starts at one point: the candidate 20%
// slower, every start's kept window steady but those marked.
func testCells(n int, mark func(c *datasets.Cell, variant string, repeat int)) []*datasets.Cell {
	f := func(v float64) *float64 { return &v }
	conc := int64(8)
	var cells []*datasets.Cell
	for r := range n {
		for _, v := range []struct {
			name string
			rps  float64
			p99  int64
		}{{"base", 10000, 1000}, {"slow", 8000, 1300}} {
			jitter := 1 + 0.02*float64((r*7+len(v.name))%3-1)
			p99 := int64(float64(v.p99) * jitter)
			flat := pipeline.SteadyFlat
			c := &datasets.Cell{Batch: "main", Variant: v.name, Repeat: int64(r + 1), Status: pipeline.StatusOK, Mode: "closed",
				Concurrency: &conc, RPS: f(v.rps * jitter), NoiseRPS: f(0.02), NoiseP99: f(0.05), LatencyP99US: &p99, SteadyClass: &flat}
			if mark != nil {
				mark(c, v.name, r+1)
			}
			cells = append(cells, c)
		}
	}
	return cells
}

func metricRow(t *testing.T, rows []datasets.Comparison, metric string) datasets.Comparison {
	t.Helper()
	for _, c := range rows {
		if c.Metric == metric {
			return c
		}
	}
	t.Fatalf("no %s row in %v", metric, rows)
	return datasets.Comparison{}
}

// TestCompareBatchCountsEveryStart: a start that drifted inside its kept
// window, or whose p99 series was not steady, counts (its drift widens
// its own interval); only a start whose load never became steady is left
// out, and the reason says so.
func TestCompareBatchCountsEveryStart(t *testing.T) {
	no := false
	drift := 0.03
	none := pipeline.SteadyNone
	cells := testCells(4, func(c *datasets.Cell, v string, r int) {
		switch {
		case r == 2:
			c.KeptSteady, c.KeptChange, c.P99KeptSteady = &no, &drift, &no
		case v == "base" && r == 4:
			c.SteadyClass = &none
		}
	})
	rows := Batch("main", cells, "base", Design{Margin: 0.05})
	tp := metricRow(t, rows, "throughput")
	if tp.Verdict != "worse" || tp.RepeatsBaseline != 3 || tp.RepeatsCandidate != 4 || !strings.Contains(tp.Reason, "left out, never steady: 1 baseline and 0 candidate") {
		t.Errorf("throughput: %s (starts %d and %d)", tp, tp.RepeatsBaseline, tp.RepeatsCandidate)
	}
	if tp.Confidence != 0.95 {
		t.Errorf("a fixed design's confidence: %g", tp.Confidence)
	}
	p99 := metricRow(t, rows, "latency_p99")
	if p99.RepeatsCandidate != 4 || p99.Verdict != "worse" {
		t.Errorf("p99: a p99 series that was not steady removes no start: %s", p99)
	}
}

// TestDesignMargins: a margin declared per metric decides that metric,
// the plain margin the others; adaptive repeats decide at their look's
// confidence, a rerun's fixed rounds at 95%.
func TestDesignMargins(t *testing.T) {
	cells := testCells(4, nil)
	rows := Batch("main", cells, "base", Design{Margin: 0.05, Margins: map[string]float64{"latency_p99": 0.4}})
	if r := metricRow(t, rows, "latency_p99"); r.Band != 0.4 || r.Verdict != "equivalent" {
		t.Errorf("p99 at a ±40%% margin, 1.3x: %s (band %g)", r, r.Band)
	}
	if r := metricRow(t, rows, "throughput"); r.Band != 0.05 || r.Verdict != "worse" {
		t.Errorf("throughput at the plain margin: %s", r)
	}
	b := &pipeline.Batch{Repeats: 8, RepeatsMin: 3, Fairness: pipeline.Fairness{Noise: 0.07, Margins: map[string]float64{"latency_p99": 0.15}}}
	d := DesignOf(b, pipeline.BatchRounds{Ran: 4})
	if d.MarginOf("throughput") != 0.07 || d.MarginOf("latency_p99") != 0.15 || !(d.Confidence > 0.95 && d.Confidence < 0.995) {
		t.Errorf("adaptive design after 4 rounds: %+v", d)
	}
	if d := DesignOf(b, pipeline.BatchRounds{Ran: 4, Fixed: 4}); d.Confidence != 0 {
		t.Errorf("a rerun's fixed rounds look once: %+v", d)
	}
	if d := DesignOf(nil, pipeline.BatchRounds{}); d.Margin != pipeline.DefaultMargin {
		t.Errorf("no batch: %+v", d)
	}
}

// TestHeadlineClaims: the same starts, a difference whose interval
// excludes 1 but reaches past the margin, are worse on a headline metric
// and undecided on any other; a batch's own headline (repeats.until)
// moves the line, and the rule beyond-margin claims neither.
func TestHeadlineClaims(t *testing.T) {
	jitter := []float64{1.06, 0.95, 1.0, 0.99}
	var cells []*datasets.Cell
	conc := int64(8)
	for r, j := range jitter {
		for _, v := range []struct {
			name string
			rps  float64
		}{{"base", 10000}, {"slow", 8900}} {
			rps, noise := v.rps*j, 0.02
			cpu := 1e6 / rps // CPU per request, us, the slower the dearer
			flat := pipeline.SteadyFlat
			cells = append(cells, &datasets.Cell{Batch: "main", Variant: v.name, Repeat: int64(r + 1), Status: pipeline.StatusOK, Mode: "closed",
				Concurrency: &conc, RPS: &rps, NoiseRPS: &noise, CPUPerRequestUS: &cpu, SteadyClass: &flat})
		}
	}
	for _, c := range []struct {
		name       string
		design     Design
		rps, perRq string
	}{
		{"default headline", Design{Margin: 0.05}, Worse, Undecided},
		{"repeats.until: cpu_per_request", Design{Margin: 0.05, Headline: []string{"cpu_per_request"}}, Undecided, Worse},
		{"rule beyond-margin", Design{Margin: 0.05, Rule: pipeline.RuleBeyondMargin}, Undecided, Undecided},
	} {
		rows := Batch("main", cells, "base", c.design)
		rps, cpu := metricRow(t, rows, "throughput"), metricRow(t, rows, "cpu_per_request")
		if rps.Verdict != c.rps || cpu.Verdict != c.perRq {
			t.Errorf("%s: throughput %s (%s), CPU per request %s (%s); want %s and %s", c.name, rps.Verdict, rps.Reason, cpu.Verdict, cpu.Reason, c.rps, c.perRq)
		}
		if *rps.CIHigh >= 1 || *rps.CIHigh <= 0.95 {
			t.Errorf("%s: the case needs an interval below 1 that reaches past the margin: %s", c.name, rps.Reason)
		}
	}
}
