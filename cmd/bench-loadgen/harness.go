package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The harness's own cost: a real `yardstick run` of a one-cell experiment
// (the Go sample target, 4 connections, /proc sampled every interval),
// with the run process's CPU time (utime + stime of /proc/<pid>/stat, all
// its threads) read at two moments inside the cell's measure window.
const harnessCUE = `package bench

harness: {
	description: "the harness's own cost (cmd/bench-loadgen)"
	batches: main: {
		processors: 1
		placement: {target: %q, loadgen: %q}
		windows: {serviceWarmup: "0s", warmup: "2s", measure: %q, discardHead: "0s", readyTimeout: "30s"}
		sampling: {interval: %q, idleAfter: "0s"}
		repeats: 1
		workload: {
			request: {method: "GET", path: "/hello"}
			concurrency: [4]
		}
		targets: "go": {
			kind: "go"
			cmd: [%q, "-port", "{port}"]
			port:  %d
			ready: "/ready"
		}
	}
}
`

// harnessOpts is what the harness measurement needs.
type harnessOpts struct {
	ys, sample         string
	targetCPU, genCPU  string
	window, interval   time.Duration
	warmup, leadIn     time.Duration
	measureAfterWindow time.Duration
}

// harnessCost runs the experiment and returns the run process's CPU time
// over the window, as a fraction of one core.
func harnessCost(ctx context.Context, o harnessOpts) (float64, error) {
	dir, err := os.MkdirTemp("", "bench-harness-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	port, err := freePort()
	if err != nil {
		return 0, err
	}
	sample, err := filepath.Abs(o.sample)
	if err != nil {
		return 0, err
	}
	measure := o.leadIn + o.window + o.measureAfterWindow
	def := filepath.Join(dir, "harness.cue")
	cue := fmt.Sprintf(harnessCUE, o.targetCPU, o.genCPU, measure.String(), o.interval.String(), sample, port)
	if err := os.WriteFile(def, []byte(cue), 0o644); err != nil {
		return 0, err
	}
	run := exec.CommandContext(ctx, o.ys, "run", def, "--out", filepath.Join(dir, "results"))
	var out bytes.Buffer
	run.Stdout, run.Stderr = &out, &out
	run.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := run.Start(); err != nil {
		return 0, fmt.Errorf("yardstick run: %w", err)
	}
	cost, merr := measureRun(ctx, run.Process.Pid, o)
	if merr != nil {
		_ = run.Process.Kill()
	}
	if err := run.Wait(); err != nil && merr == nil {
		merr = fmt.Errorf("yardstick run: %w\n%s", err, out.String())
	}
	return cost, merr
}

// measureRun waits for the run's load generator (the cell's: the
// experiment has no service warm-up), lets the warm-up and a lead-in pass,
// and reads the run process's CPU time across the window.
func measureRun(ctx context.Context, pid int, o harnessOpts) (float64, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for !hasLoadgenChild(pid) {
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("yardstick run (pid %d) started no load generator within 2 minutes", pid)
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return 0, err
		}
	}
	if err := sleep(ctx, o.warmup+o.leadIn); err != nil {
		return 0, err
	}
	t0, err := cpuTicks(pid)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := sleep(ctx, o.window); err != nil {
		return 0, err
	}
	t1, err := cpuTicks(pid)
	if err != nil {
		return 0, err
	}
	if !hasLoadgenChild(pid) {
		return 0, fmt.Errorf("the cell's load ended before the window did: the figure would not be of a measure window")
	}
	return float64(t1-t0) / 100 / time.Since(start).Seconds(), nil // USER_HZ is 100
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// cpuTicks is utime + stime of process pid, in clock ticks.
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: malformed", pid)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: malformed times", pid)
	}
	return u + s, nil
}

// hasLoadgenChild reports whether a child of pid runs `yardstick loadgen`.
func hasLoadgenChild(pid int) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", child))
		i := bytes.LastIndexByte(b, ')')
		if err != nil || i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(pid) {
			continue
		}
		if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", child)); err == nil && bytes.Contains(cmd, []byte("loadgen\x00--stdio")) {
			return true
		}
	}
	return false
}
