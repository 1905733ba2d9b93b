package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/pipeline"
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

// simulate prints the simulated rounds at each effect size under both
// rules of a claimed difference, and the coverage of fixed designs.
func simulate(o options, c components, roundSeconds float64) {
	margins := map[string]float64{"latency_p99": 0.15}
	fmt.Printf("\nsimulation: %d adaptive batches per effect size (%d of the A/A pair), rounds %d to %d until throughput is decided, margin 5%% (p99 15%%), components throughput between %.3f within ±%.3f, p99 between %.3f within ±%.3f\n",
		o.trials, aaTimes*o.trials, o.min, o.max, c.throughput.Between, c.throughput.Within, c.p99.Between, c.p99.Within)
	for _, rule := range []string{pipeline.RuleDifference, pipeline.RuleBeyondMargin} {
		fmt.Printf("rule %s:\n", rule)
		fmt.Printf("  %-12s %-10s %-10s %-10s %-10s %-12s %-12s %-10s %s\n", "extra cost", "worse", "better", "equiv.", "undecided", "wrong", "p99 wrong", "rounds", "minutes")
		for i, extra := range simEffects {
			m := runner.SimModel{Min: o.min, Max: o.max, Until: []string{"throughput"}, Margin: 0.05, Margins: margins, Rule: rule, Ratio: 1 / (1 + extra), Throughput: c.throughput, P99: c.p99}
			trials := o.trials
			if extra == 0 {
				// the A/A row is there for its false-alarm rate: ten
				// times the trials give it to about ±0.15%
				trials *= aaTimes
			}
			r := runner.Simulate(m, trials, uint64(i+1))
			t := r.Outcomes["throughput"]
			minutes := "-"
			if roundSeconds > 0 {
				minutes = fmt.Sprintf("%.1f", r.MedianRounds()*roundSeconds/60)
			}
			fmt.Printf("  %-12s %-10.3f %-10.3f %-10.3f %-10.3f %-12.3f %-12.3f %-10.1f %s\n", fmt.Sprintf("+%.0f%%", 100*extra),
				r.Rate(t[decide.Worse]), r.Rate(t[decide.Better]), r.Rate(t[decide.Equivalent]), r.Rate(t[decide.Undecided]),
				r.Rate(r.FalseAlarms["throughput"]), r.Rate(r.FalseAlarms["latency_p99"]), r.MedianRounds(), minutes)
		}
	}
	fmt.Printf("  (wrong: throughput's verdict on the wrong side of the truth: at +0%% and +3%%, inside the margin, any better or worse; p99 wrong: the same of p99, which is outside the batch's headline (repeats.until: throughput) and claimed only beyond its margin)\n")
	fmt.Printf("\ncoverage of the 95%% interval, every start counted, a fixed number of starts (+15%%):\n")
	for _, n := range []int{3, 5, 8} {
		m := runner.SimModel{Min: n, Max: n, Margin: 0.05, Ratio: 1 / 1.15, Throughput: c.throughput, P99: c.p99}
		r := runner.Simulate(m, o.trials, uint64(100+n))
		fmt.Printf("  %d starts a side: throughput %.3f, p99 %.3f\n", n, r.Rate(r.Covered["throughput"]), r.Rate(r.Covered["latency_p99"]))
	}
}

// aaTimes is how many times the trials the A/A pair is simulated.
const aaTimes = 10

// simEffects are the simulated effect sizes: more cost per request, the
// candidate's throughput 1/(1+extra) of the baseline's. +3% lies inside
// the 5% margin: a difference that does not matter, whose better or
// worse counts as wrong.
var simEffects = []float64{0, 0.03, 0.10, 0.15, 0.25}
