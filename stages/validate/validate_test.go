package validate

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"yardstick/schema"
)

// TestCellCap: the cap counts variants x points x repeats before any
// rule, and refuses one cell more than it allows at the batches field.
func TestCellCap(t *testing.T) {
	path := filepath.Join("testdata", "matrix", "cells.cue")
	for _, c := range []struct {
		max  int
		want []want
	}{
		{max: 8},
		{max: 7, want: []want{werr("matrix", "5:2", "more than 7 cells", "--max-cells")}},
	} {
		r, err := Load(context.Background(), ".", path, Options{Machine: Machine{CPUs: 2}, MaxCells: c.max})
		if err != nil {
			t.Fatal(err)
		}
		matchFindings(t, path, r.Findings, c.want)
	}
}

// TestLoadSources: a definition given as contents gives the findings
// Load gives from the file, and touches no file.
func TestLoadSources(t *testing.T) {
	path := filepath.Join("testdata", "processors", "budget.cue")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Machine: Machine{CPUs: 2}}
	r, err := LoadSources(context.Background(), "mem.cue", []schema.SourceFile{{Path: "mem.cue", Content: src}}, o)
	if err != nil {
		t.Fatal(err)
	}
	matchFindings(t, "mem.cue", r.Findings, allFixtures()["processors"][1].want)
	if r.Definition == nil || r.Valid() {
		t.Errorf("Definition %v, Valid %v: want a decoded, invalid definition", r.Definition, r.Valid())
	}
}

// TestPrint: a finding prints as file:line:col: [warning: ]message, one
// line each, with a line break in the message escaped.
func TestPrint(t *testing.T) {
	var b bytes.Buffer
	Print(&b, []Finding{
		{Pos: schema.Pos{File: "a.cue", Line: 3, Col: 7}, Severity: Warning, Check: "x", Msg: "two\nlines"},
		{Severity: Error, Check: "x", Msg: "no position"},
	})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "a.cue:3:7: warning: two") || lines[1] != "no position" {
		t.Errorf("Print wrote %q", b.String())
	}
}

// TestTimeout: an evaluation past Options.Timeout ends with the cause
// that names --eval-timeout, not with findings.
func TestTimeout(t *testing.T) {
	path := filepath.Join("testdata", "schema", "good.cue")
	_, err := Load(context.Background(), ".", path, Options{Timeout: time.Nanosecond})
	if err == nil || !strings.Contains(err.Error(), "--eval-timeout") {
		t.Fatalf("Load with a 1ns timeout: %v, want the --eval-timeout cause", err)
	}
	ctx, cancel := Deadline(context.Background(), Options{})
	defer cancel()
	if d, ok := ctx.Deadline(); !ok || time.Until(d) > DefaultTimeout || time.Until(d) < DefaultTimeout-time.Second {
		t.Errorf("Deadline with no Timeout: %v %v, want DefaultTimeout", d, ok)
	}
}

var sink [][]byte

// TestWatchMemory: a heap grown past the bound cancels the context with
// ErrMemory; stop restores the soft limit that was set before.
func TestWatchMemory(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	const bound = 64 << 20
	ctx, stop := watchMemory(context.Background(), bound)
	if got := debug.SetMemoryLimit(-1); got != bound {
		t.Errorf("soft limit while watching %d, want %d", got, bound)
	}
	deadline := time.After(10 * time.Second)
	for ctx.Err() == nil {
		select {
		case <-deadline:
			stop()
			t.Fatal("heap past the bound was not noticed in 10s")
		default:
		}
		if len(sink) < 64 {
			sink = append(sink, make([]byte, 4<<20))
		}
		time.Sleep(time.Millisecond)
	}
	sink = nil
	cause := context.Cause(ctx)
	if !errors.Is(cause, ErrMemory) || !strings.Contains(cause.Error(), "64 MiB") {
		t.Errorf("cause %v, want ErrMemory naming 64 MiB", cause)
	}
	stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("soft limit after stop %d, want %d", got, before)
	}

	// A watch that ends under its bound cancels with no cause of its own.
	ctx, stop = watchMemory(context.Background(), 1<<40)
	stop()
	if errors.Is(context.Cause(ctx), ErrMemory) || debug.SetMemoryLimit(-1) != before {
		t.Errorf("after a quiet watch: cause %v, limit %d", context.Cause(ctx), debug.SetMemoryLimit(-1))
	}
}
