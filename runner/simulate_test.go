package runner

import "testing"

// This machine's components as the calibration measured them, in round
// figures: starts of one binary 10% apart in throughput and 17% in p99,
// a window's own noise ±3% and ±8%.
var simThroughput, simP99 = Components{Between: 0.10, Within: 0.03}, Components{Between: 0.17, Within: 0.08}

// TestSimulateFalseAlarms: the adaptive rounds, simulated through Look,
// call an A/A pair better or worse on each metric of their question
// about as often as their 5% says (at most 8% of these 200 seeded runs;
// looking at a 95% interval after every round from 3 to 8 would call
// about 13%), although they look after every round; a 25% difference is
// called worse on throughput, never better.
func TestSimulateFalseAlarms(t *testing.T) {
	const trials = 200
	aa := Simulate(SimModel{Min: 3, Max: 8, Margin: 0.05, Margins: map[string]float64{"latency_p99": 0.15}, Ratio: 1, Throughput: simThroughput, P99: simP99}, trials, 1)
	t.Logf("A/A: %s", aa)
	for _, m := range []string{"throughput", "latency_p99"} {
		if r := aa.Rate(aa.FalseAlarms[m]); r > 0.08 {
			t.Errorf("A/A %s: false alarms %.3f of %d runs, want at most 0.08", m, r, trials)
		}
	}
	slow := Simulate(SimModel{Min: 3, Max: 8, Margin: 0.05, Margins: map[string]float64{"latency_p99": 0.15}, Ratio: 0.75, Throughput: simThroughput, P99: simP99}, trials, 2)
	t.Logf("25%% slower: %s", slow)
	if o := slow.Outcomes["throughput"]; slow.Rate(o["worse"]) < 0.8 || o["better"]+o["equivalent"] > 0 {
		t.Errorf("25%% slower: throughput %v of %d", o, trials)
	}
}

// TestSimulateCoverage: with a fixed number of starts, every start
// counted, the 95% interval covers the true ratio in 92% to 98% of runs.
func TestSimulateCoverage(t *testing.T) {
	const trials = 600
	for _, n := range []int{3, 8} {
		r := Simulate(SimModel{Min: n, Max: n, Margin: 0.05, Ratio: 0.85, Throughput: simThroughput, P99: simP99}, trials, uint64(n))
		t.Logf("%d starts a side: %s", n, r)
		for _, m := range []string{"throughput", "latency_p99"} {
			if c := r.Rate(r.Covered[m]); c < 0.92 || c > 0.98 {
				t.Errorf("%d starts a side, %s: coverage %.3f, want 0.92 to 0.98", n, m, c)
			}
		}
	}
}
