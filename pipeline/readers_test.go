package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"yardstick/pipeline/runfs"
)

// testPlan is a small plan made as the planner makes one: ids from the
// cells' resolved form, names from their batch, variant, point and repeat.
func testPlan() *Plan {
	p := &Plan{Version: PlanVersion, Experiment: "exp"}
	p.Batches = []Batch{{Name: "main", Variants: []Variant{{Process: Process{Name: "go", Kind: "go", Argv: []string{"bin/go", "-port", "8080"}}, Target: "go", Label: "go"}}}}
	b, v := &p.Batches[0], &p.Batches[0].Variants[0]
	for i, c := range []int{1, 4} {
		payload := 128
		cell := Cell{Seq: i, Batch: b.Name, Target: v.Target, Variant: v.Label, Kind: v.Kind, Repeat: 1,
			Point: Point{Mode: "closed", Concurrency: c, Payload: &payload}, Argv: v.Argv}
		cell.Name = fmt.Sprintf("%s/%s/%s/r%d", b.Name, v.Label, cell.Point.Label(), cell.Repeat)
		cell.ID = CellID(p.Experiment, b, v, &cell)
		p.Cells = append(p.Cells, cell)
	}
	p.Hash = PlanHash(p.Cells)
	return p
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A plan.json edited after it was made is refused on every read: a
// cell's point (payload 128 -> 65536, concurrency 4 -> 1000), invented
// cells, a renamed cell, a hash that environment.json did not record.
func TestReadPlanVerifies(t *testing.T) {
	good := testPlan()
	d := &RunDir{Root: t.TempDir()}
	writeJSON(t, d.Path("plan.json"), good)
	writeJSON(t, d.Path("environment.json"), Environment{PlanHash: good.Hash})
	if _, err := d.ReadPlan(); err != nil {
		t.Fatalf("the untouched plan: %v", err)
	}
	tamper := map[string]func(p *Plan){
		"point": func(p *Plan) {
			n := 65536
			p.Cells[1].Point.Payload, p.Cells[1].Point.Concurrency = &n, 1000
			p.Cells[1].Name = "main/go/c1000-p65536/r1"
		},
		"invented cells": func(p *Plan) {
			for i := range 3 {
				c := p.Cells[0]
				c.Repeat = 2 + i
				c.Name = fmt.Sprintf("main/go/c1-p128/r%d", c.Repeat)
				c.ID = fmt.Sprintf("%012x", i)
				p.Cells = append(p.Cells, c)
			}
		},
		"name":  func(p *Plan) { p.Cells[0].Name = "main/go/c4-p128/r1" },
		"order": func(p *Plan) { p.Cells[0], p.Cells[1] = p.Cells[1], p.Cells[0] },
		"argv":  func(p *Plan) { p.Cells[0].Argv = []string{"bin/other"} },
	}
	for name, f := range tamper {
		p := testPlan()
		f(p)
		writeJSON(t, d.Path("plan.json"), p)
		_, err := d.ReadPlan()
		if err == nil || !strings.Contains(err.Error(), "plan.json: refused: ") || !strings.Contains(err.Error(), "changed after it was made") {
			t.Errorf("%s: err = %v, want a refusal", name, err)
		}
	}
	// Ids and hash recomputed by the forger: environment.json's record of
	// the plan that ran still differs.
	p := testPlan()
	p.Cells = p.Cells[:1]
	p.Hash = PlanHash(p.Cells)
	writeJSON(t, d.Path("plan.json"), p)
	if _, err := d.ReadPlan(); err == nil || !strings.Contains(err.Error(), "environment.json recorded") {
		t.Errorf("a rehashed plan: err = %v, want the environment's hash", err)
	}
}

func goodCheckpoint(id string) *Checkpoint {
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	return &Checkpoint{Version: CheckpointVersion, CellID: id, CellName: "main/go/c1-p128/r1", Status: StatusOK,
		Started: t0, Ended: t0.Add(9 * time.Second),
		Window: &Window{Warmup: 2 * time.Second, Measure: 5 * time.Second, KeptStart: t0.Add(3 * time.Second), KeptEnd: t0.Add(8 * time.Second)},
		Load:   &Load{Mode: "closed", Connections: 1, Requests: 1000, DurationS: 5, RPS: 200},
		Steady: &Steady{StartUS: -1, Throughput: SeriesSteady{SteadyStart: -1, KeptChange: -0.02}, Noise: Noise{RPS: -1, P99: -1}},
		Target: &TargetStats{EventLoopThreads: -1}, Samples: []Sample{{MatchedThreads: -1}},
	}
}

// Impossible figures in a checkpoint are refused with the cell and the
// field; the "none" markers (-1) and signed drifts are not.
func TestReadCheckpointRefusesImpossible(t *testing.T) {
	const id = "0123456789ab"
	d := &RunDir{Root: t.TempDir()}
	path := filepath.Join(d.CellDir(id), "checkpoint.json")
	writeJSON(t, path, goodCheckpoint(id))
	if _, err := d.ReadCheckpoint(id); err != nil {
		t.Fatalf("a good checkpoint: %v", err)
	}
	cases := map[string]struct {
		edit func(cp *Checkpoint)
		want string
	}{
		"rps":      {func(cp *Checkpoint) { cp.Load.RPS = 1e308 }, "cell 0123456789ab: load.rps is 1e+308, outside [0, 1e+15]"},
		"duration": {func(cp *Checkpoint) { cp.Load.DurationS = -5 }, "load.duration_s is -5, outside [0, 1e+15]"},
		"window":   {func(cp *Checkpoint) { cp.Window.Measure = -time.Second }, "window.measure_ns is -1000000000, below 0"},
		"interval": {func(cp *Checkpoint) { cp.Intervals = []Interval{{DurationUS: 1e5}, {DurationUS: -1}} }, "intervals[1].duration_us is -1, below 0"},
		"noise":    {func(cp *Checkpoint) { cp.Steady.Noise.RPS = -2 }, "steady.noise.rps is -2, outside [-1, 1e+15]"},
		"ended":    {func(cp *Checkpoint) { cp.Ended = cp.Started.Add(-time.Second) }, "before it started"},
	}
	for name, c := range cases {
		cp := goodCheckpoint(id)
		c.edit(cp)
		writeJSON(t, path, cp)
		_, err := d.ReadCheckpoint(id)
		if err == nil || !strings.Contains(err.Error(), "refused: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
	if err := CheckNumbers(&struct{ X float64 }{math.NaN()}, true); err == nil {
		t.Error("NaN accepted")
	}
}

// A checkpoint or plan that is a link or a named pipe is refused, not
// followed or waited on.
func TestRunDirRefusesLinksAndPipes(t *testing.T) {
	const id = "0123456789ab"
	d := &RunDir{Root: t.TempDir()}
	outside := filepath.Join(t.TempDir(), "checkpoint.json")
	writeJSON(t, outside, goodCheckpoint(id))
	if err := os.MkdirAll(d.CellDir(id), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(d.CellDir(id), "checkpoint.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadCheckpoint(id); !errors.Is(err, runfs.ErrRefused) || !strings.Contains(err.Error(), "a symbolic link") {
		t.Errorf("linked checkpoint: err = %v", err)
	}
	if err := mkfifo(d.Path("plan.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenRunDir(d.Root); err == nil || !strings.Contains(err.Error(), "a named pipe, not a regular file") {
		t.Errorf("plan.json a pipe: err = %v", err)
	}
	if _, err := d.ReadCheckpoint("aaaaaaaaaaaa"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no checkpoint: err = %v, want fs.ErrNotExist", err)
	}
}

// --resume starts the same start again: the earlier session's start.json
// is kept, numbered, not overwritten.
func TestKeepStartRecord(t *testing.T) {
	dir := t.TempDir()
	if err := KeepStartRecord(dir); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 2; i++ {
		if err := os.WriteFile(filepath.Join(dir, "start.json"), []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := KeepStartRecord(dir); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 2; i++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("start.json.%d", i)))
		if err != nil || string(b) != fmt.Sprint(i) {
			t.Errorf("start.json.%d = %q, %v", i, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "start.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("start.json still there: %v", err)
	}
}
