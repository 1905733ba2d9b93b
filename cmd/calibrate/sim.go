package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/runner"
	"yardstick/stats"
)

// components are the variance components the simulation draws from.
type components struct {
	throughput, p99 runner.Components
}

// parseComponents reads -components: "tb,tw,pb,pw"; nil for "".
func parseComponents(s string) (*components, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return nil, fmt.Errorf("-components %q: want four numbers, throughput between,within and p99 between,within", s)
	}
	var v [4]float64
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || f < 0 || f > 2 {
			return nil, fmt.Errorf("-components %q: %q is no fraction between 0 and 2", s, p)
		}
		v[i] = f
	}
	return &components{runner.Components{Between: v[0], Within: v[1]}, runner.Components{Between: v[2], Within: v[3]}}, nil
}

// measuredComponents estimates the components from the quiet runs'
// starts (runner.SpreadOf, each run's batch a batch of its own).
func measuredComponents(runs []runResult) components {
	var cells []datasets.Cell
	for i, r := range runs {
		for _, c := range r.cells {
			c.Batch = fmt.Sprintf("run %d", i+1)
			cells = append(cells, c)
		}
	}
	of := func(f runner.Figure) runner.Components {
		s := runner.SpreadOf(cells, f)
		return runner.Components{Between: math.Sqrt(s.Between), Within: s.HalfWidth}
	}
	return components{throughput: of(runner.Throughput), p99: of(runner.P99)}
}

// secondsPerRound is the median wall time of a round of two variants in
// the real runs; 0 without any.
func secondsPerRound(runs []runResult) float64 {
	var xs []float64
	for _, r := range runs {
		if r.roundSeconds > 0 {
			xs = append(xs, r.roundSeconds)
		}
	}
	if len(xs) == 0 {
		return 0
	}
	return stats.Median(xs)
}

// simulate prints the simulated rounds at each effect size, and the
// coverage of fixed designs.
func simulate(o options, c components, roundSeconds float64) {
	margins := map[string]float64{"latency_p99": 0.15}
	fmt.Printf("\nsimulation: %d adaptive batches per effect size, rounds %d to %d until throughput is decided, margin 5%% (p99 15%%), components throughput between %.3f within ±%.3f, p99 between %.3f within ±%.3f\n",
		o.trials, o.min, o.max, c.throughput.Between, c.throughput.Within, c.p99.Between, c.p99.Within)
	fmt.Printf("  %-12s %-10s %-10s %-10s %-10s %-12s %-10s %s\n", "extra cost", "worse", "better", "equiv.", "undecided", "false alarm", "rounds", "minutes")
	for i, extra := range []float64{0, 0.10, 0.15, 0.25} {
		m := runner.SimModel{Min: o.min, Max: o.max, Until: []string{"throughput"}, Margin: 0.05, Margins: margins, Ratio: 1 / (1 + extra), Throughput: c.throughput, P99: c.p99}
		r := runner.Simulate(m, o.trials, uint64(i+1))
		t := r.Outcomes["throughput"]
		minutes := "-"
		if roundSeconds > 0 {
			minutes = fmt.Sprintf("%.1f", r.MedianRounds()*roundSeconds/60)
		}
		fmt.Printf("  %-12s %-10.3f %-10.3f %-10.3f %-10.3f %-12.3f %-10.1f %s\n", fmt.Sprintf("+%.0f%%", 100*extra),
			r.Rate(t[decide.Worse]), r.Rate(t[decide.Better]), r.Rate(t[decide.Equivalent]), r.Rate(t[decide.Undecided]), r.Rate(r.FalseAlarms), r.MedianRounds(), minutes)
	}
	fmt.Printf("  (false alarm: a run with a verdict on the wrong side of the truth, on throughput or p99; at +0%% any better or worse)\n")
	fmt.Printf("\ncoverage of the 95%% interval, every start counted, a fixed number of starts (+15%%):\n")
	for _, n := range []int{3, 5, 8} {
		m := runner.SimModel{Min: n, Max: n, Margin: 0.05, Ratio: 1 / 1.15, Throughput: c.throughput, P99: c.p99}
		r := runner.Simulate(m, o.trials, uint64(100+n))
		fmt.Printf("  %d starts a side: throughput %.3f, p99 %.3f\n", n, r.Rate(r.Covered["throughput"]), r.Rate(r.Covered["latency_p99"]))
	}
}
