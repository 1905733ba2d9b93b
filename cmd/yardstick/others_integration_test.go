//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"yardstick/pipeline"
)

const othersCUE = `others: {
	description: "what other work takes of the target's CPU"
	batches: main: {
		placement: {target: "0", loadgen: "1"}
		windows: {serviceWarmup: "0s", warmup: "1s", measure: "3s", discardHead: "0s", readyTimeout: "20s"}
		sampling: {interval: "100ms", idleAfter: "100ms"}
		workload: {request: path: "/api/generated/{payload}", payload: [64], concurrency: [1]}
		targets: go: {kind: "go", cmd: ["SAMPLE", "-port", "{port}"], port: PORT, ready: "/ready", gomemlimit: "off"}
	}
}
`

// TestIntegrationOthers: a thread spinning on the target's CPU during a
// real run shows in the checkpoint's others figures and in the run's
// busy note, and a run without it measures a share at least 0.15 lower;
// the same on the load generator's CPU.
// The spinner is a thread of this test, pinned to CPU 0, stopped on
// every exit path.
func TestIntegrationOthers(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs 2 CPUs: the target on CPU 0, the load generator on CPU 1")
	}
	dir := t.TempDir()
	yardstick, sample := buildBinaries(t, dir)
	def := strings.NewReplacer("SAMPLE", sample, "PORT", fmt.Sprint(freeLoopbackPort(t))).Replace(othersCUE)
	if err := os.WriteFile(filepath.Join(dir, "others.cue"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string) (*pipeline.Checkpoint, string) {
		out, err := runFor(t, 3*time.Minute, dir, yardstick, "run", "others.cue", "--out", filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("run %s: %v\n%s", name, err, out)
		}
		cps, _ := filepath.Glob(filepath.Join(dir, name, "others", "run=*", "cells", "*", "checkpoint.json"))
		if len(cps) != 1 {
			t.Fatalf("run %s: %d checkpoints", name, len(cps))
		}
		b, err := os.ReadFile(cps[0])
		if err != nil {
			t.Fatal(err)
		}
		var cp pipeline.Checkpoint
		if err := json.Unmarshal(b, &cp); err != nil {
			t.Fatal(err)
		}
		if cp.Others == nil || cp.LoadgenOthers == nil {
			t.Fatalf("run %s: no others figures in the checkpoint", name)
		}
		t.Logf("%s: target %+v share %.3f; load generator %+v share %.3f", name, *cp.Others, cp.Others.Share(), *cp.LoadgenOthers, cp.LoadgenOthers.Share())
		return &cp, out
	}
	q, _ := run("quiet")
	stop := spin(t, 0)
	b, out := run("busy")
	stop()
	stop = spin(t, 1)
	l, lout := run("busyloadgen")
	stop()
	quiet, busy := q.Others.Share(), b.Others.Share()
	if busy < 0.25 {
		t.Errorf("a thread spinning on the target's CPU took %.2f of it, want at least 0.25", busy)
	}
	if busy-quiet < 0.15 {
		t.Errorf("others' share %.2f with a spinner, %.2f without: want a difference of at least 0.15", busy, quiet)
	}
	if !strings.Contains(out, "note: the machine was busy: other work took a median") {
		t.Errorf("the busy run does not say the machine was busy:\n%s", out)
	}
	// The same on the load generator's CPU: the spinner there, less the
	// load generator's and this run process's own time.
	if lq, lb := q.LoadgenOthers.Share(), l.LoadgenOthers.Share(); lb < 0.25 || lb-lq < 0.15 {
		t.Errorf("load generator's CPU: others' share %.2f with a spinner there, %.2f without: want at least 0.25 and a difference of at least 0.15", lb, lq)
	}
	if !strings.Contains(lout, "of the load generator's during 1 kept window(s)") {
		t.Errorf("the run with a spinner on the load generator's CPU does not say so:\n%s", lout)
	}
}

// spin keeps a thread of this process busy on cpu until stop is called
// (or the test ends).
func spin(t *testing.T, cpu int) (stop func()) {
	t.Helper()
	var done atomic.Bool
	started := make(chan error)
	go func() {
		runtime.LockOSThread()
		var set unix.CPUSet
		set.Set(cpu)
		started <- unix.SchedSetaffinity(0, &set)
		for !done.Load() {
		}
	}()
	if err := <-started; err != nil {
		t.Fatalf("pin the spinner to CPU %d: %v", cpu, err)
	}
	stop = func() { done.Store(true) }
	t.Cleanup(stop)
	return stop
}
