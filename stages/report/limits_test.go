package report

import (
	"strings"
	"testing"
	"time"

	"yardstick/datasets"
	"yardstick/pipeline"
	"yardstick/stages/report/analysis"
)

// TestLimitsBesideP99: a batch under CPU quotas gets a table with each
// variant's p99 beside its throttling; a batch without limits gets none.
func TestLimitsBesideP99(t *testing.T) {
	i := func(v int64) *int64 { return &v }
	f := func(v float64) *float64 { return &v }
	s := func(v string) *string { return &v }
	kept := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	end := kept.Add(4 * time.Second)
	cell := func(id, variant string, cpus, share float64, throttledUS, p99 int64) datasets.Cell {
		return datasets.Cell{Batch: "main", CellID: id, CellName: "main/" + variant + "/c16/r1", Target: "go", Variant: variant, Kind: "go",
			Mode: "closed", Concurrency: i(16), Repeat: 1, Status: pipeline.StatusOK, Requests: i(1000), RPS: f(250),
			LatencyP99US: i(p99), LimitCPUs: f(cpus), LimitPeriodUS: i(100_000), Cgroup: s("v1"), CPUPeriods: i(40),
			CPUThrottledPeriods: i(int64(40 * share)), CPUThrottledShare: f(share), CPUThrottledUS: i(throttledUS),
			MemoryMaxHits: i(0), OOMKills: i(0), SeenProcessors: i(1), KeptStart: &kept, KeptEnd: &end}
	}
	tb := &analysis.Tables{Meta: datasets.Meta{Experiment: "quota", RunID: "r"}, Cells: []datasets.Cell{
		cell("a", "go-cpus0.5", 0.5, 0.9, 1_200_000, 91_000),
		cell("b", "go-cpus1", 1, 0, 0, 88_000),
	}}
	d, _ := build(tb, "")
	md := string(d.markdown())
	for _, want := range []string{
		"### Container limits",
		"| variant | limits | p99 | throttled periods | throttled ms/s | memory.max hits | OOM kills | runtime's processors |",
		"| go-cpus0.5 | 0.5 CPU / 100ms | 91.00 ms | 90% | 300.0 | 0 | 0 | 1 |",
		"| go-cpus1 | 1 CPU / 100ms | 88.00 ms | 0% | 0.0 | 0 | 0 | 1 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	for k := range tb.Cells {
		tb.Cells[k].LimitCPUs, tb.Cells[k].LimitPeriodUS = nil, nil
	}
	d, _ = build(tb, "")
	if strings.Contains(string(d.markdown()), "Container limits") {
		t.Error("a batch without limits has a container limits section")
	}
}
