//go:build calibration

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"yardstick/datasets"
	"yardstick/pipeline"
)

// The calibration tests (make calibration-test): real runs of the Go
// sample target that check the decisions against differences known in
// advance. Variant "same" is the baseline's binary with the baseline's
// flags: every comparison of it is an A/A and must never be better or
// worse. Variant "slow" does more work per request (-work-factor 16
// against 10; 14 gave 9% to 16% lower throughput from one run to the
// next, too close to the 5% margin for 16 rounds to decide it every
// time): about 20% lower throughput, which adaptive repeats must call
// worse, in the right direction, within 16 rounds. Two starts of
// the same binary here differ by about 7% (the A/A pair's interval was
// 0.92x [0.80, 1.05] after 8 rounds), and some kept windows are not
// steady and left out: it takes 6 or more steady starts a side.

const calibrationCUE = `calibration: {
	description: "decisions against known differences: an A/A pair and a slower twin"
	batches: main: {
		processors: 1
		placement: {target: "0", loadgen: "1"}
		windows: {serviceWarmup: "1s", warmup: "auto", warmupMax: "10s", steadyFor: "2s", measure: "4s", discardHead: "0s", readyTimeout: "20s"}
		sampling: {interval: "100ms", idleAfter: "200ms"}
		repeats: {min: 3, max: MAXROUNDS}
		workload: {request: path: "/api/generated/{payload}", payload: [128], concurrency: [8]}
		targets: {
			base: {kind: "go", cmd: ["SAMPLE", "-port", "{port}"], port: PORT1, ready: "/ready", gomemlimit: "off"}
			same: {kind: "go", cmd: ["SAMPLE", "-port", "{port}"], port: PORT2, ready: "/ready", gomemlimit: "off"}
			slow: {kind: "go", cmd: ["SAMPLE", "-port", "{port}", "-work-factor", "16"], port: PORT3, ready: "/ready", gomemlimit: "off"}
		}
		baseline: "base"
		fairness: noise: 0.05
	}
}
`

// TestCalibrationQuiet runs the calibration batch on the machine as it is.
func TestCalibrationQuiet(t *testing.T) { calibrate(t, false) }

// TestCalibrationLoaded runs it while another process loads both CPUs in
// bursts (200 ms busy, 300 ms idle, in two threads): the A/A pair must
// still never get better or worse.
func TestCalibrationLoaded(t *testing.T) { calibrate(t, true) }

func calibrate(t *testing.T, loaded bool) {
	dir := t.TempDir()
	yardstick, sample := buildBinaries(t, dir)
	// Quiet, the slower twin must be called worse: up to 16 rounds (it was
	// at round 8 of 12 in one run here). Loaded, only the A/A pair is
	// asserted: 8 rounds.
	rounds := 16
	if loaded {
		rounds = 8
	}
	def := strings.NewReplacer("SAMPLE", sample, "MAXROUNDS", fmt.Sprint(rounds),
		"PORT1", fmt.Sprint(freeLoopbackPort(t)), "PORT2", fmt.Sprint(freeLoopbackPort(t)), "PORT3", fmt.Sprint(freeLoopbackPort(t))).Replace(calibrationCUE)
	if err := os.WriteFile(filepath.Join(dir, "calibration.cue"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	if loaded {
		stop := burstLoad(t)
		defer stop()
	}
	results := filepath.Join(dir, "results")
	out, err := runFor(t, 15*time.Minute, dir, yardstick, "run", "calibration.cue", "--out", results)
	t.Logf("yardstick run:\n%s", out)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	rows, _ := readComparisons(t, results)
	slowWorse := false
	for _, r := range rows {
		t.Logf("%s", r)
		switch {
		case r.Candidate == "same" && (r.Verdict == "better" || r.Verdict == "worse"):
			t.Errorf("A/A called %s: %s", r.Verdict, r)
		case r.Candidate == "slow" && r.Metric == "throughput":
			slowWorse = r.Verdict == "worse"
			if r.Verdict == "better" {
				t.Errorf("the slower twin called better: %s", r)
			}
		}
	}
	if !loaded && !slowWorse {
		busy := ""
		if i := strings.Index(out, "note: the machine was busy"); i >= 0 {
			busy = " (" + strings.SplitN(out[i:], "\n", 2)[0] + ": the miss check needs a quiet machine)"
		}
		t.Errorf("the slower twin's throughput was not called worse within %d rounds%s", rounds, busy)
	}
}

// burstLoad starts a shell that keeps both CPUs busy in bursts until
// stop is called; it is killed on every exit path of the test.
func burstLoad(t *testing.T) (stop func()) {
	t.Helper()
	script := `burn() { while :; do end=$(( $(date +%s%N) + 200000000 )); while [ $(date +%s%N) -lt $end ]; do :; done; sleep 0.3; done; }; burn & burn & wait`
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := false
	stop = func() {
		if done {
			return
		}
		done = true
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	}
	t.Cleanup(stop)
	return stop
}

// readComparisons reads the comparisons table of the one calibration run
// under results, and returns it with the run directory; any other count
// of runs fails the test.
func readComparisons(t *testing.T, results string) ([]datasets.Comparison, string) {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(results, "calibration", pipeline.RunIDPrefix+"*", "comparisons.parquet"))
	if len(m) != 1 {
		t.Fatalf("want one comparisons.parquet, found %v", m)
	}
	rows, _, err := datasets.Comparisons.Read(m[0])
	if err != nil {
		t.Fatal(err)
	}
	return rows, filepath.Dir(m[0])
}
