// Command calibrate measures the decisions against differences known in
// advance (make calibration; docs/methodology.md#calibration). It is a
// benchmark, not a test: it prints rates, and fails only when it cannot
// run.
//
//  1. Real runs of the Go sample target on this machine, each one batch
//     of adaptive rounds (-min 3 to -max 8, until every twin's
//     throughput is decided by the default rule) holding the baseline,
//     an identical twin (an A/A pair) and twins doing more work per
//     request (-work-factor 12, 13 and 15 against 10: +10%, +15% and
//     +25% CPU per request), with the automatic windows; quiet, then
//     with another process loading both CPUs in bursts (200 ms busy,
//     300 ms idle, two threads). The identical twin is seldom decided,
//     so a run mostly goes to -max. Each twin's starts are then decided
//     as adaptive rounds of the baseline and that twin alone would have
//     decided them (decide.Looks after each round, the first look that
//     decides throughput the one they stop at), under both rules of a
//     claimed difference (fairness.rule: difference, beyond-margin): the
//     two rules judged on the same starts. For every twin it reports the
//     verdict on throughput, at which round, and the measured ratios of
//     throughput and of CPU per request (what the extra work cost); for
//     the identical twin, every metric called better or worse.
//  2. The variance components of this machine, from the quiet runs'
//     starts: the spread of a start's throughput and p99 between starts,
//     and the noise a start's window measures of itself.
//  3. A simulation of the rounds from those components, through the
//     rounds' own decision (runner.Look), under both rules: for 0%, 3%
//     (inside the 5% margin), 10%, 15% and 25% more cost per request,
//     the rate of right decisions, the false-alarm rate, the rounds and
//     minutes to a decision; and the coverage of the 95% interval with
//     every start counted.
//
// It needs bin/yardstick and bin/sample-go (make build targets).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

type options struct {
	yardstick, sample, out string
	quiet, loaded, trials  int
	min, max               int
	simOnly, reuse         bool
	components             string
}

func main() {
	var o options
	flag.StringVar(&o.yardstick, "yardstick", "bin/yardstick", "the yardstick binary")
	flag.StringVar(&o.sample, "sample", "bin/sample-go", "the Go sample target")
	flag.StringVar(&o.out, "out", "", "keep the real runs' results here (default: a temporary directory, removed)")
	flag.IntVar(&o.quiet, "quiet", 5, "real runs on the machine as it is")
	flag.IntVar(&o.loaded, "loaded", 2, "real runs with both CPUs loaded in bursts")
	flag.IntVar(&o.trials, "trials", 2000, "simulated adaptive batches per effect size")
	flag.IntVar(&o.min, "min", 3, "adaptive repeats: the fewest rounds")
	flag.IntVar(&o.max, "max", 8, "adaptive repeats: the most rounds")
	flag.BoolVar(&o.simOnly, "sim-only", false, "no real runs: simulate from -components")
	flag.BoolVar(&o.reuse, "reuse", false, "decide the real runs kept under -out (run1 ... runN, the first -quiet of them quiet) again, without running them")
	flag.StringVar(&o.components, "components", "", "throughput between,within and p99 between,within (e.g. 0.10,0.03,0.17,0.08); default: measured by the quiet runs")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "calibrate:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	if o.min < 2 || o.max < o.min {
		return fmt.Errorf("rounds %d to %d: want 2 <= min <= max", o.min, o.max)
	}
	comp, err := parseComponents(o.components)
	if err != nil {
		return err
	}
	var quiet []runResult
	if o.reuse && o.out == "" {
		return fmt.Errorf("-reuse needs -out, the directory of the kept runs")
	}
	if !o.simOnly {
		dir := o.out
		if dir == "" {
			if dir, err = os.MkdirTemp("", "calibrate-"); err != nil {
				return err
			}
			defer os.RemoveAll(dir)
		}
		var loaded []runResult
		if quiet, loaded, err = realRuns(ctx, o, dir); err != nil {
			return err
		}
		printReal(o, "quiet", quiet)
		printReal(o, "loaded in bursts", loaded)
		if comp == nil {
			c := measuredComponents(quiet)
			comp = &c
		}
	}
	if comp == nil {
		return fmt.Errorf("-sim-only needs -components")
	}
	simulate(o, *comp, secondsPerRound(quiet))
	return nil
}
