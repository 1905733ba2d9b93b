package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/pipeline"
	"yardstick/stats"
)

// twins are the calibration batch's candidates: the identical twin and
// the twins doing more work per request, with the work factor each runs
// (the baseline runs 10). A request of the sample costs about 10 + w
// units of CPU (measured: w 12, 14 and 16 cost 1.10x, 1.23x and 1.33x of
// w 10), so 12, 13 and 15 are the +10%, +15% and +25% of the
// simulation's effect sizes; the run prints the CPU per request each
// twin measured.
var twins = []struct {
	name string
	work int
}{{"same", 10}, {"w12", 12}, {"w13", 13}, {"w15", 15}}

const definition = `calibration: {
	description: "decisions against known differences: an A/A pair and twins doing more work per request"
	batches: main: {
		processors: 1
		placement: {target: "0", loadgen: "1"}
		windows: {serviceWarmup: "1s", warmup: "auto", warmupMax: "10s", steadyFor: "2s", measure: "auto", measureMin: "2s", measureMax: "6s", discardHead: "0s", readyTimeout: "20s"}
		sampling: {interval: "100ms", idleAfter: "200ms"}
		repeats: {min: MIN, max: MAX, until: ["throughput"]}
		workload: {request: path: "/api/generated/{payload}", payload: [128], concurrency: [8]}
		targets: {
TARGETS		}
		baseline: "base"
		fairness: margin: {throughput: 0.05, latency_p99: 0.15}
	}
}
`

// A twinResult is what one real run decided of one twin, under each
// rule of a claimed difference.
type twinResult struct {
	name string
	// ratio is the measured throughput ratio over every start; cpu the
	// ratio of CPU per request (what the extra work cost).
	ratio, cpu float64
	// by is the adaptive decision under each rule (rules).
	by [2]ruleResult
}

// A ruleResult is the throughput decision the adaptive rounds reach
// under one rule on a run's starts: the verdict and round of the first
// look that decided it (round 0: undecided after every look), and for the
// A/A pair the other metrics called better or worse at the look the
// rounds would stop at (every one is wrong).
type ruleResult struct {
	verdict string
	round   int
	wrong   []string
}

// rules are the rules of a claimed difference the real runs are decided
// by, on the same starts.
var rules = [2]string{pipeline.RuleDifference, pipeline.RuleBeyondMargin}

// A runResult is one real run.
type runResult struct {
	twins []twinResult
	cells []datasets.Cell
	// roundSeconds is the wall time of a round of two variants: the
	// batch's elapsed time per round, scaled from its five variants.
	roundSeconds float64
	ran          int
}

// realRuns runs the quiet runs, then the loaded ones.
func realRuns(ctx context.Context, o options, dir string) (quiet, loaded []runResult, err error) {
	for i := range o.quiet + o.loaded {
		busy := i >= o.quiet
		fmt.Fprintf(os.Stderr, "calibrate: real run %d of %d (%s)\n", i+1, o.quiet+o.loaded, map[bool]string{false: "quiet", true: "loaded in bursts"}[busy])
		r, err := realRun(ctx, o, filepath.Join(dir, fmt.Sprintf("run%d", i+1)), busy)
		if err != nil {
			return nil, nil, err
		}
		if busy {
			loaded = append(loaded, r)
		} else {
			quiet = append(quiet, r)
		}
	}
	return quiet, loaded, nil
}

// realRun runs the calibration batch once into dir and reads what it
// decided.
func realRun(ctx context.Context, o options, dir string, busy bool) (runResult, error) {
	if o.reuse {
		return readRun(filepath.Join(dir, "results"), o)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return runResult{}, err
	}
	sample, err := filepath.Abs(o.sample)
	if err != nil {
		return runResult{}, err
	}
	yardstick, err := filepath.Abs(o.yardstick)
	if err != nil {
		return runResult{}, err
	}
	targets := fmt.Sprintf("\t\t\tbase: {kind: \"go\", cmd: [%q, \"-port\", \"{port}\"], port: %d, ready: \"/ready\", gomemlimit: \"off\"}\n", sample, freePort())
	for _, t := range twins {
		targets += fmt.Sprintf("\t\t\t%s: {kind: \"go\", cmd: [%q, \"-port\", \"{port}\", \"-work-factor\", \"%d\"], port: %d, ready: \"/ready\", gomemlimit: \"off\"}\n", t.name, sample, t.work, freePort())
	}
	def := strings.NewReplacer("MIN", fmt.Sprint(o.min), "MAX", fmt.Sprint(o.max), "TARGETS", targets).Replace(definition)
	file := filepath.Join(dir, "calibration.cue")
	if err := os.WriteFile(file, []byte(def), 0o644); err != nil {
		return runResult{}, err
	}
	if busy {
		stop, err := burstLoad()
		if err != nil {
			return runResult{}, err
		}
		defer stop()
	}
	results := filepath.Join(dir, "results")
	rctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(rctx, yardstick, "run", file, "--out", results)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = nil, nil
	if out, err := cmd.CombinedOutput(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) { // exit 1: a failed cell; the tables say which
			return runResult{}, fmt.Errorf("yardstick run: %w\n%s", err, out)
		}
	}
	return readRun(results, o)
}

// readRun reads the one calibration run under results.
func readRun(results string, o options) (runResult, error) {
	m, _ := filepath.Glob(filepath.Join(results, "calibration", pipeline.RunIDPrefix+"*"))
	if len(m) != 1 {
		return runResult{}, fmt.Errorf("want one run under %s, found %v", results, m)
	}
	rd, err := pipeline.OpenRunDir(m[0])
	if err != nil {
		return runResult{}, err
	}
	p, err := rd.ReadPlan()
	if err != nil {
		return runResult{}, err
	}
	rounds, err := rd.ReadRounds(p)
	if err != nil {
		return runResult{}, err
	}
	cells, _, err := datasets.Cells.Read(filepath.Join(m[0], "cells.parquet"))
	if err != nil {
		return runResult{}, err
	}
	rows, _, err := datasets.Comparisons.Read(filepath.Join(m[0], "comparisons.parquet"))
	if err != nil {
		return runResult{}, err
	}
	st := rounds["main"]
	r := runResult{cells: cells, ran: st.Ran}
	if st.Ran > 0 {
		r.roundSeconds = st.Elapsed.D().Seconds() / float64(st.Ran) * 2 / float64(len(twins)+1)
	}
	b := p.Batch("main")
	for _, t := range twins {
		r.twins = append(r.twins, twinOf(t.name, b, cells, rows, min(st.Ran, max(o.max, 1)), o.min))
	}
	return r, nil
}

// twinOf is what the run's starts decide of twin name: the ratios over
// every start (the comparisons table, all rounds), and under each rule
// the decision of adaptive rounds from min to the rounds that ran,
// looked at after each round as the rounds look (decide.Looks with the
// batch's repeats made adaptive): each look on the starts of the rounds
// so far, the first look that decides throughput the one the rounds
// would stop at.
func twinOf(name string, b *pipeline.Batch, cells []datasets.Cell, rows []datasets.Comparison, ran, minRounds int) twinResult {
	t := twinResult{name: name, ratio: math.NaN(), cpu: math.NaN()}
	for _, c := range rows {
		switch {
		case c.Candidate != name || c.Ratio == nil:
		case c.Metric == "throughput":
			t.ratio = *c.Ratio
		case c.Metric == "cpu_per_request":
			t.cpu = *c.Ratio
		}
	}
	ptrs := make([]*datasets.Cell, 0, len(cells))
	for i := range cells {
		if cells[i].Variant == name || cells[i].Variant == "base" {
			ptrs = append(ptrs, &cells[i])
		}
	}
	for k, rule := range rules {
		ab := *b
		ab.RepeatsMin, ab.Repeats, ab.RepeatsUntil = minRounds, ran, []string{"throughput"}
		ab.Fairness.Rule = rule
		res := ruleResult{verdict: decide.Undecided}
		var last []datasets.Comparison
		for look := minRounds; look <= ran; look++ {
			var in []*datasets.Cell
			for _, c := range ptrs {
				if c.Repeat <= int64(look) {
					in = append(in, c)
				}
			}
			last = decide.Looks(&ab, in, "base", pipeline.BatchRounds{Ran: look})
			if i := slices.IndexFunc(last, func(c datasets.Comparison) bool { return c.Metric == "throughput" }); i >= 0 && last[i].Verdict != decide.Undecided {
				res.verdict, res.round = last[i].Verdict, look
				break
			}
		}
		for _, c := range last {
			if name == "same" && (c.Verdict == decide.Better || c.Verdict == decide.Worse) {
				res.wrong = append(res.wrong, c.Metric+" "+c.Verdict)
			}
		}
		t.by[k] = res
	}
	return t
}

// burstLoad starts a shell that keeps both CPUs busy in bursts until
// stop is called; it dies with this process (PDEATHSIG) on any other
// exit path.
func burstLoad() (stop func(), err error) {
	script := `burn() { while :; do end=$(( $(date +%s%N) + 200000000 )); while [ $(date +%s%N) -lt $end ]; do :; done; sleep 0.3; done; }; burn & burn & wait`
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("burst load: %w", err)
	}
	return func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	}, nil
}

// freePort is a loopback port free now.
func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 18090
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// printReal prints the real runs of one condition, decided by each rule
// on the same starts.
func printReal(o options, condition string, runs []runResult) {
	if len(runs) == 0 {
		return
	}
	fmt.Printf("\nreal runs, %s (%d): throughput decisions against the baseline, adaptive rounds %d to %d looked at on each run's starts\n", condition, len(runs), o.min, o.max)
	for k, rule := range rules {
		fmt.Printf(" rule %s:\n", rule)
		fmt.Printf("  %-5s %-9s %-44s %-14s %-24s %s\n", "twin", "work", "verdicts (round decided)", "median rounds", "throughput ratio", "CPU/request ratio")
		for i, t := range twins {
			var vs []string
			var ratios, cpus, rounds []float64
			var wrong []string
			for _, r := range runs {
				tr := r.twins[i]
				res := tr.by[k]
				v := res.verdict
				n := r.ran
				if res.round > 0 {
					v += fmt.Sprintf("(%d)", res.round)
					n = res.round
				}
				vs = append(vs, v)
				rounds = append(rounds, float64(n))
				ratios, cpus = append(ratios, tr.ratio), append(cpus, tr.cpu)
				wrong = append(wrong, res.wrong...)
			}
			fmt.Printf("  %-5s %-9s %-44s %-14.1f %-24s %s\n", t.name, fmt.Sprintf("x%d/10", t.work), strings.Join(vs, " "), stats.Median(rounds), spread(ratios), spread(cpus))
			if t.name == "same" {
				slices.Sort(wrong)
				fmt.Printf("        A/A better or worse on any metric: %d of %d run(s) x 8 metrics %v\n", len(wrong), len(runs), wrong)
			}
		}
	}
	var secs []float64
	for _, r := range runs {
		secs = append(secs, r.roundSeconds)
	}
	fmt.Printf("  a round of two variants took %.1f s (median); minutes to a decision are rounds x that\n", stats.Median(secs))
}

// spread is values as "median [min, max]".
func spread(xs []float64) string {
	xs = slices.DeleteFunc(slices.Clone(xs), math.IsNaN)
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", stats.Median(xs), slices.Min(xs), slices.Max(xs))
}
