//go:build calibration

package main

import (
	"path/filepath"
	"testing"

	"yardstick/datasets"
	"yardstick/pipeline"
)

// The calibration batch of the design trial (make design-trial): real
// runs of the Go sample target against differences known in advance
// (make calibration measures the decisions' rates with cmd/calibrate). Variant "same" is the baseline's binary with the baseline's
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
