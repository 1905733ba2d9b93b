package history

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/internal/synthrun"
	"yardstick/pipeline"
)

// report is the report fixture's run with its tables, written once for
// this file's tests (it takes seconds); read only.
var report struct {
	once sync.Once
	rd   *pipeline.RunDir
	err  error
}

func reportRun(t *testing.T) *pipeline.RunDir {
	t.Helper()
	report.once.Do(func() {
		dir, err := os.MkdirTemp("", "history-report-")
		if err != nil {
			report.err = err
			return
		}
		report.rd, _, report.err = synthrun.Report.Write(dir, synthrun.Options{Tables: true})
	})
	if report.err != nil {
		t.Fatal(report.err)
	}
	return report.rd
}

// The columns the history reads give every figure, busy share and
// steadiness the whole cells table gives: a metric that comes to read
// another column fails here, not silently in a history.
func TestProjectedFigures(t *testing.T) {
	rd := reportRun(t)
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
	if decide.Busy(some) != decide.Busy(all) || decide.Busy(all) == "" {
		t.Errorf("busy: %q and %q", decide.Busy(some), decide.Busy(all))
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
	run, err := ReadRun(context.Background(), reportRun(t).Root)
	if err != nil {
		t.Fatal(err)
	}
	if run.Margin("main", "latency_p99") != 0.07 || run.Margin("heap", "rss") != 0.05 {
		t.Errorf("the report fixture's margins: main %v, heap %v; want 0.07 and 0.05", run.Margin("main", "latency_p99"), run.Margin("heap", "rss"))
	}
}

// Against says what differs around the run; a busy run is undecided.
func TestAgainstNotes(t *testing.T) {
	k := key{batch: "main", variant: "go", point: "c8", metric: "throughput"}
	mk := func(id, env string, mean float64, busy string) *Run {
		return &Run{ID: id, Environment: env, Busy: busy, figures: map[key]Figure{k: {Mean: mean, Starts: 3}}}
	}
	base := []*Run{mk("r1", "a", 100, ""), mk("r2", "a", 102, ""), mk("r3", "a", 98, ""), mk("r4", "a", 101, "")}
	vs := Against(base, mk("r5", "b", 70, ""))
	if len(vs) != 1 || vs[0].Outcome != "worse" {
		t.Fatalf("30%% less throughput: %+v, want worse", vs)
	}
	var out strings.Builder
	if err := WriteAgainst(&out, mk("r5", "b", 70, ""), base, vs, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "the machine or toolchains differ from 4 of the 4 earlier runs") {
		t.Errorf("no note of the other machine:\n%s", out.String())
	}
	if vs := Against(base, mk("r5", "a", 70, "the machine was busy")); vs[0].Outcome != "undecided" || !strings.Contains(vs[0].Reason, "busy machine") {
		t.Errorf("a busy run: %+v, want undecided for the busy machine", vs[0])
	}
	tight := []*Run{mk("r1", "a", 100, ""), mk("r2", "a", 100.5, ""), mk("r3", "a", 99.6, ""), mk("r4", "a", 100.2, ""), mk("r5", "a", 99.8, "")}
	if vs := Against(tight, mk("r6", "a", 100.3, "")); vs[0].Outcome != "equivalent" {
		t.Errorf("the same again: %+v, want equivalent", vs[0])
	}
}

// The history's directory is refused when it is a symbolic link.
func TestWriteRefusesLink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "history")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	h := &History{Experiment: "x"}
	if _, err := h.Write(link, "v"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("write through a link: %v", err)
	}
}
