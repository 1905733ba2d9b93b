package history

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"yardstick/datasets"
	"yardstick/internal/synthrun"
	"yardstick/pipeline"
)

// The columns the history reads give every figure, busy share and
// steadiness the whole cells table gives: a metric that comes to read
// another column fails here, not silently in a history.
func TestProjectedFigures(t *testing.T) {
	rd, _, err := synthrun.Report.Write(t.TempDir(), synthrun.Options{Tables: true})
	if err != nil {
		t.Fatal(err)
	}
	path := datasets.Cells.Path(rd.Root)
	all, _, err := datasets.Cells.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	some, _, err := datasets.Cells.ReadColumnsContext(context.Background(), path, cellColumns)
	if err != nil {
		t.Fatal(err)
	}
	if len(some) != len(all) || some[0].Requests != nil || some[0].CellName != all[0].CellName {
		t.Fatalf("projected read: %d rows (want %d), requests %v (want nil)", len(some), len(all), some[0].Requests)
	}
	// every cell busy, so that the busy shares are compared too
	for i := range all {
		share := 0.3 + 0.01*float64(i)
		all[i].OthersCPUShare, some[i].OthersCPUShare = &share, &share
	}
	got, want := figuresOf(some), figuresOf(all)
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("projected read: %d series, the whole table %d", len(got), len(want))
	}
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	for k, w := range want {
		g := got[k]
		if !same(g.Mean, w.Mean) || !same(g.Low, w.Low) || !same(g.High, w.High) || !same(g.HalfWidth, w.HalfWidth) || g.Starts != w.Starts {
			t.Errorf("%v: projected %+v, whole %+v", k, g, w)
		}
	}
	if datasets.Busy(some) != datasets.Busy(all) || datasets.Busy(all) == "" {
		t.Errorf("busy: %q and %q", datasets.Busy(some), datasets.Busy(all))
	}
	if _, _, err := datasets.Cells.ReadColumnsContext(context.Background(), path, []string{"batch", "no_such"}); err == nil || !strings.Contains(err.Error(), "1 of the 2 columns") {
		t.Errorf("an unknown column: %v", err)
	}
	if _, err := os.Stat(filepath.Join(rd.Root, "cells.parquet")); err != nil {
		t.Fatal(err)
	}
}

// A metric's own margin wins over its batch's, which wins over the
// default; a run read from a directory takes them from plan.json.
func TestMargins(t *testing.T) {
	r := &Run{margins: map[string]float64{"main": 0.07}, metricMargins: map[string]map[string]float64{"main": {"latency_p99": 0.15}}}
	if r.Margin("main", "latency_p99") != 0.15 || r.Margin("main", "throughput") != 0.07 || r.Margin("other", "throughput") != pipeline.DefaultMargin {
		t.Errorf("margins: %v %v %v", r.Margin("main", "latency_p99"), r.Margin("main", "throughput"), r.Margin("other", "throughput"))
	}
	rd, _, err := synthrun.Report.Write(t.TempDir(), synthrun.Options{Tables: true})
	if err != nil {
		t.Fatal(err)
	}
	run, err := ReadRun(context.Background(), rd.Root)
	if err != nil {
		t.Fatal(err)
	}
	if run.Margin("main", "latency_p99") != 0.07 || run.Margin("heap", "rss") != 0.05 {
		t.Errorf("the report fixture's margins: main %v, heap %v; want 0.07 and 0.05", run.Margin("main", "latency_p99"), run.Margin("heap", "rss"))
	}
}
