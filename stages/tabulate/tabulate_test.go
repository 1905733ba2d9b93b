package tabulate_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"yardstick/datasets"
	"yardstick/internal/synthrun"
	"yardstick/pipeline"
	"yardstick/stages/tabulate"
	"yardstick/stats/hdrstat"
)

func writeFixture(t *testing.T, o synthrun.Options) (*pipeline.RunDir, *pipeline.Plan) {
	t.Helper()
	rd, p, err := synthrun.Datasets.Write(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	return rd, p
}

func TestRunWritesEveryTable(t *testing.T) {
	rd, p := writeFixture(t, synthrun.Options{Pending: 2, Failed: 3})
	s, err := tabulate.Run(rd, "v-test")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings: %q", s.Warnings)
	}
	if s.Cells != len(p.Cells) || s.Pending != 2 || s.Failed != 1 || s.OK != len(p.Cells)-3 {
		t.Errorf("summary %+v", s)
	}
	var names []string
	for _, f := range s.Files {
		names = append(names, f.Table)
		if _, err := os.Stat(f.Path); err != nil {
			t.Error(err)
		}
	}
	if got, want := strings.Join(names, " "), strings.Join(tabulate.Tables, " "); got != want {
		t.Errorf("tables %s, want %s", got, want)
	}
	for _, f := range s.Files {
		t.Logf("%-12s %6d rows %8d bytes", f.Table, f.Rows, f.Bytes)
	}
}

// TestRebuildIsByteIdentical: the same checkpoints give the same bytes.
func TestRebuildIsByteIdentical(t *testing.T) {
	rd, _ := writeFixture(t, synthrun.Options{Pending: 1, Failed: 2})
	read := func() map[string][]byte {
		s, err := tabulate.Run(rd, "v-test")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{}
		for _, f := range s.Files {
			b, err := os.ReadFile(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			out[f.Table] = b
		}
		return out
	}
	first, second := read(), read()
	for name, b := range first {
		if !bytes.Equal(b, second[name]) {
			t.Errorf("%s differs between two rebuilds", name)
		}
	}
	// No temporary files are left behind.
	left, _ := filepath.Glob(rd.Path(".*tmp*"))
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	_ = datasets.SchemaVersion
}

// TestFixtureExercisesPercentileConvention: in some fixture cells the
// rank of p99 has a fraction below .5 and falls in another bucket than
// hdrhistogram-go's rounded rank, so the interop check (which compares
// with hdr-histogram-js exactly) would catch a switch to Go's convention.
func TestFixtureExercisesPercentileConvention(t *testing.T) {
	p, err := synthrun.Datasets.Plan()
	if err != nil {
		t.Fatal(err)
	}
	differ := 0
	for i := range p.Cells {
		cp, err := synthrun.Datasets.Checkpoint(p, &p.Cells[i], false)
		if err != nil {
			t.Fatal(err)
		}
		h, err := hdrstat.Decode(cp.Load.Hist)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []float64{50, 90, 99, 99.9, 99.99} {
			if hdrstat.NewDist(h).Percentile(q) != h.ValueAtPercentile(q) {
				differ++
			}
		}
	}
	t.Logf("%d cell percentiles differ between the conventions", differ)
	if differ == 0 {
		t.Error("no fixture percentile tells the conventions apart")
	}
}

// TestCellsColumns: what the cells table says about a pending, a failed
// and an ok cell, read back through the datasets reader.
func TestCellsColumns(t *testing.T) {
	rd, p := writeFixture(t, synthrun.Options{Pending: 1, Failed: 1, Fairness: []byte(`[
		{"check": "processors", "scope": "batch", "batch": "closed", "expected": 1, "measured": 1, "unit": "processors", "pass": true}]`)})
	if _, err := tabulate.Run(rd, "v-test"); err != nil {
		t.Fatal(err)
	}
	cells, meta, err := datasets.Cells.Read(datasets.Cells.Path(rd.Root))
	if err != nil {
		t.Fatal(err)
	}
	if meta.Experiment != synthrun.Datasets.Experiment || meta.RunID != synthrun.Datasets.RunID || meta.PlanHash != p.Hash || meta.Version != "v-test" {
		t.Errorf("meta %+v", meta)
	}
	if len(cells) != len(p.Cells) {
		t.Fatalf("%d rows, plan has %d cells", len(cells), len(p.Cells))
	}
	for i, c := range cells {
		if c.CellID != p.Cells[i].ID || c.Seq != int64(i) {
			t.Errorf("row %d is cell %s seq %d, want plan order", i, c.CellID, c.Seq)
		}
	}
	failed, pending := cells[0], cells[len(cells)-1]
	if failed.Status != pipeline.StatusFailed || failed.Error == nil || failed.Requests != nil || failed.Started == nil {
		t.Errorf("failed cell: %+v", failed)
	}
	if pending.Status != pipeline.StatusPending || pending.Started != nil || pending.LatencyP99US != nil || pending.Mode != "open" {
		t.Errorf("pending cell: %+v", pending)
	}
	byVariant := map[string]datasets.Cell{}
	for _, c := range cells[1 : len(cells)-1] {
		if c.Status != pipeline.StatusOK {
			t.Errorf("cell %s status %s", c.CellName, c.Status)
		}
		byVariant[c.Variant+"/"+strconv.FormatInt(deref(c.Concurrency), 10)] = c
	}
	g := byVariant["go-mem256mib/32"]
	if deref(g.GoMemLimitBytes) != 256<<20 || deref(g.GoMaxProcs) != 1 || g.Heap != nil || g.EventLoopThreads != nil || deref(g.GCSource) != "gctrace" {
		t.Errorf("go cell knobs: %+v", g)
	}
	if off := byVariant["go-memoff/32"]; deref(off.GoMemLimit) != "off" || off.GoMemLimitBytes != nil {
		t.Errorf("GOMEMLIMIT off: %v %v", off.GoMemLimit, off.GoMemLimitBytes)
	}
	j := byVariant["jvm-zgc/8"]
	if deref(j.GC) != "ZGC" || deref(j.HeapBytes) != 256<<20 || deref(j.EventLoopThreads) != 1 || deref(j.Processors) != 1 || j.GoMaxProcs != nil {
		t.Errorf("jvm cell knobs: %+v", j)
	}
	// Derived figures.
	if got := deref(j.LoadgenCPUShare); got <= 0 || got > 1 {
		t.Errorf("loadgen_cpu_share %v", got)
	}
	if deref(j.ColdStartUS) != 205_000 || deref(j.KeptDurationUS) != 4_000_000 || deref(j.WarmupUS) != 2_000_000 {
		t.Errorf("cold start %v kept %v warmup %v", deref(j.ColdStartUS), deref(j.KeptDurationUS), deref(j.WarmupUS))
	}
	if j.KeptStart.Nanosecond()%1000 != 0 {
		t.Errorf("kept_start %v not truncated to us", j.KeptStart)
	}
	if n, s := deref(j.Tails[0].Count), deref(j.Tails[0].Share); n == 0 || s != float64(n)/float64(deref(j.Requests)) {
		t.Errorf("tail over 1ms: %d, %v", n, s)
	}
	if deref(j.Tails[3].Count) > deref(j.Tails[2].Count) || deref(j.Tails[2].Count) > deref(j.Tails[1].Count) {
		t.Errorf("tails do not shrink with the threshold: %+v", j.Tails)
	}
	fair, _, err := datasets.Fairness.Read(datasets.Fairness.Path(rd.Root))
	if err != nil || len(fair) != 1 || fair[0].Check != "processors" || fair[0].CellID != nil {
		t.Errorf("fairness %+v, %v", fair, err)
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// TestWarnings: what a reader of the tables should hear about.
func TestWarnings(t *testing.T) {
	rd, p := writeFixture(t, synthrun.Options{NoEnvironment: true})
	cp, err := rd.ReadCheckpoint(p.Cells[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	cp.Load.Latency.P99 += 1000 // a load generator with another percentile convention
	if err := rd.WriteCheckpoint(cp); err != nil {
		t.Fatal(err)
	}
	stray := *cp
	stray.CellID = "0123456789ab"
	if err := rd.WriteCheckpoint(&stray); err != nil {
		t.Fatal(err)
	}
	s, err := tabulate.Run(rd, "v-test")
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(s.Warnings, "\n")
	for _, want := range []string{"checkpoint's p99", "no environment.json", "cells/0123456789ab has a checkpoint but is not in plan.json"} {
		if !strings.Contains(all, want) {
			t.Errorf("no warning %q in:\n%s", want, all)
		}
	}
	env, _, err := datasets.Environments.Read(datasets.Environments.Path(rd.Root))
	if err != nil || len(env) != 0 {
		t.Errorf("environment rows %d, %v", len(env), err)
	}
}

// TestErrors: inputs the stage refuses, with the reason.
func TestErrors(t *testing.T) {
	for name, c := range map[string]struct {
		fairness string
		want     string
	}{
		"bad scope":        {`[{"check": "x", "scope": "run", "batch": "b", "pass": true}]`, `scope "run"`},
		"cell without id":  {`[{"check": "x", "scope": "cell", "batch": "b", "pass": true}]`, "without cell_id"},
		"unknown key":      {`[{"check": "x", "scope": "batch", "batch": "b", "pass": true, "verdict": 1}]`, "unknown field"},
		"not an array":     {`{"check": "x"}`, "cannot unmarshal"},
		"checkpoint wrong": {"", "the checkpoint of cell"},
	} {
		t.Run(name, func(t *testing.T) {
			o := synthrun.Options{}
			if c.fairness != "" {
				o.Fairness = []byte(c.fairness)
			}
			rd, p := writeFixture(t, o)
			if c.fairness == "" {
				cp, _ := rd.ReadCheckpoint(p.Cells[1].ID)
				cp.CellID = p.Cells[2].ID
				b, _ := json.Marshal(cp)
				if err := pipeline.WriteFileAtomic(filepath.Join(rd.CellDir(p.Cells[1].ID), "checkpoint.json"), b); err != nil {
					t.Fatal(err)
				}
			}
			_, err := tabulate.Run(rd, "v")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
			if _, serr := os.Stat(datasets.Cells.Path(rd.Root)); serr == nil {
				t.Error("a failed run left a cells table")
			}
			left, _ := filepath.Glob(rd.Path(".*tmp*"))
			if len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}
