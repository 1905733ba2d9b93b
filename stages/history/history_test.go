package history_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/internal/synthrun"
	"yardstick/stages/history"
)

// base is a real run directory (synthrun.Report, with its tables),
// written once for the package's tests.
var base struct {
	once sync.Once
	dir  string
	err  error
}

func baseRun(t testing.TB) string {
	t.Helper()
	base.once.Do(func() {
		tmp, err := os.MkdirTemp("", "history-base-")
		if err != nil {
			base.err = err
			return
		}
		rd, _, err := synthrun.Report.Write(tmp, synthrun.Options{Tables: true})
		if err != nil {
			base.err = err
			return
		}
		base.dir = rd.Root
	})
	if base.err != nil {
		t.Fatal(base.err)
	}
	return base.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	history.CleanupReport()
	if base.dir != "" {
		os.RemoveAll(filepath.Dir(filepath.Dir(base.dir)))
	}
	os.Exit(code)
}

// runID is the id of the i-th run of a generated history: a day apart.
func runID(i int) string {
	return time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format("20060102T150405Z") + fmt.Sprintf("-%04x", i)
}

// makeHistory copies the base run n times under a new results directory,
// each copy's figures scaled by a between-run noise of sd (log scale)
// and by step from run at on (at < 0: no step).
func makeHistory(t testing.TB, n int, sd, step float64, at int, seed uint64) []string {
	t.Helper()
	src := baseRun(t)
	results := t.TempDir()
	rng := rand.New(rand.NewPCG(seed, 3))
	dirs := make([]string, n)
	for i := range n {
		f := math.Exp(sd * rng.NormFloat64())
		if at >= 0 && i >= at {
			f *= step
		}
		rd, err := synthrun.Scaled(src, results, runID(i), synthrun.Scale{Factor: f})
		if err != nil {
			t.Fatal(err)
		}
		dirs[i] = rd.Root
	}
	return dirs
}

func build(t testing.TB, dirs []string, o history.Options) *history.History {
	t.Helper()
	runs, skipped, err := history.ReadAll(context.Background(), dirs, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range skipped {
		t.Errorf("skipped %s: %v", s.Dir, s.Err)
	}
	h, err := history.Build("reportfix", runs, o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A step of 20% at run 25 of 40 is found at run 25 ± 1 and called worse,
// on throughput and on p99, in every cell of the main batch.
func TestStepFound(t *testing.T) {
	dirs := makeHistory(t, 40, 0.02, 1.2, 25, 1)
	h := build(t, dirs, history.Options{Metrics: []string{"throughput", "latency_p99"}, Cell: "main/*/*"})
	if len(h.Runs) != 40 {
		t.Fatalf("%d runs, want 40", len(h.Runs))
	}
	if len(h.Series) == 0 {
		t.Fatal("no series")
	}
	for _, s := range h.Series {
		if len(s.Changes) != 1 {
			t.Errorf("%s %s: %d changes, want 1: %+v", s.Cell(), s.Metric, len(s.Changes), s.Changes)
			continue
		}
		c := s.Changes[0]
		run := s.Points[c.At].Run
		if run < 24 || run > 26 {
			t.Errorf("%s %s: change at run %d, want 25 ± 1", s.Cell(), s.Metric, run)
		}
		if c.Decision.Verdict != decide.Worse {
			t.Errorf("%s %s: %s (%s), want worse", s.Cell(), s.Metric, c.Decision.Verdict, c.Decision.Reason)
		}
	}
}

// A flat history of 40 runs has no change in any series.
func TestFlatHasNoChange(t *testing.T) {
	dirs := makeHistory(t, 40, 0.02, 1, -1, 2)
	h := build(t, dirs, history.Options{})
	for _, s := range h.Series {
		if len(s.Changes) > 0 {
			t.Errorf("%s %s: %d changes in a flat history: %+v", s.Cell(), s.Metric, len(s.Changes), s.Changes[0].Decision)
		}
	}
	if len(h.Series) < 8 {
		t.Errorf("%d series, want one per cell and metric", len(h.Series))
	}
}

// A run directory that does not read back is skipped and named; a run
// of a newer schema version stops the history, named.
func TestUnreadableAndNewer(t *testing.T) {
	dirs := makeHistory(t, 4, 0.02, 1, -1, 3)
	if err := os.Remove(filepath.Join(dirs[1], "cells.parquet")); err != nil {
		t.Fatal(err)
	}
	runs, skipped, err := history.ReadAll(context.Background(), dirs, "")
	if err != nil || len(runs) != 3 || len(skipped) != 1 || skipped[0].Dir != dirs[1] {
		t.Fatalf("runs %d, skipped %+v, err %v; want 3 runs and %s skipped", len(runs), skipped, err, dirs[1])
	}
	if err := synthrun.NewerSchema(filepath.Join(dirs[2], "cells.parquet")); err != nil {
		t.Fatal(err)
	}
	_, _, err = history.ReadAll(context.Background(), dirs, "")
	var newer *history.NewerError
	if !errors.As(err, &newer) || newer.Dir != dirs[2] || !strings.Contains(err.Error(), "newer than the") {
		t.Fatalf("err %v, want a NewerError naming %s", err, dirs[2])
	}
}

// A run on another host is marked, a busy run is drawn hollow, and the
// files hold the band, the points and the change; history.parquet reads
// back with the series' rows.
func TestMarksAndFiles(t *testing.T) {
	src := baseRun(t)
	results := t.TempDir()
	var dirs []string
	for i := range 12 {
		s := synthrun.Scale{Factor: 1 + 0.01*float64(i%3)}
		if i >= 6 {
			s.Factor *= 1.3
		}
		if i == 3 {
			s.Busy = 0.4
		}
		if i >= 9 {
			s.Host = "bench-02"
		}
		rd, err := synthrun.Scaled(src, results, runID(i), s)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, rd.Root)
	}
	h := build(t, dirs, history.Options{Metrics: []string{"latency_p99"}, Cell: "main/go/c8-p128"})
	if got := h.Runs[9].Marks; len(got) != 1 || got[0] != "environment" {
		t.Errorf("run 10 on another host: marks %v, want [environment]", got)
	}
	if h.Runs[3].Busy == "" || h.Runs[4].Busy != "" {
		t.Errorf("busy: run 4 %q, run 5 %q; want only run 4 busy", h.Runs[3].Busy, h.Runs[4].Busy)
	}
	if len(h.Series) != 1 || len(h.Series[0].Changes) != 1 || h.Series[0].Points[h.Series[0].Changes[0].At].Run != 6 {
		t.Fatalf("want one series with one change at run 7: %+v", h.Series)
	}
	out := t.TempDir()
	if _, err := h.Write(out, "v-test"); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(out, "history-latency_p99.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for want, n := range map[string]int{`<polygon class="band"`: 1, `<circle class="point"`: 11, `<circle class="point busy"`: 1,
		`<line class="mark"`: 1, `<line class="change"`: 1, `>worse 1.3`: 1} {
		if got := strings.Count(string(svg), want); got != n {
			t.Errorf("svg: %d of %q, want %d", got, want, n)
		}
	}
	rows, meta, err := datasets.History.Read(filepath.Join(out, "history.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 12 || meta.RunID != h.Runs[11].ID || rows[6].ChangeVerdict == nil || *rows[6].ChangeVerdict != "worse" || rows[3].Busy != true ||
		rows[9].Marks == nil || *rows[9].Marks != "environment" || rows[0].Mean == nil || rows[0].Low == nil {
		t.Errorf("history.parquet: %d rows, run_id %s; rows 4, 7, 10: %+v %+v %+v", len(rows), meta.RunID, rows[3], rows[6], rows[9])
	}
}
