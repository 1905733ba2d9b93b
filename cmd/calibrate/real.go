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

// A twinResult is what one real run decided of one twin.
type twinResult struct {
	name string
	// verdict is the throughput decision the comparisons table has, and
	// round the round of the look that decided it (0: undecided).
	verdict string
	round   int
	// ratio is the measured throughput ratio; cpu the ratio of CPU per
	// request (what the extra work cost); others p99, p50, ... verdicts
	// that were better or worse (for the A/A pair, every one is wrong).
	ratio, cpu float64
	wrong      []string
}

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
	return readRun(results)
}

// readRun reads the one calibration run under results.
func readRun(results string) (runResult, error) {
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
		r.twins = append(r.twins, twinOf(t.name, b, cells, rows, st))
	}
	return r, nil
}

// twinOf is what the run decided of twin name.
func twinOf(name string, b *pipeline.Batch, cells []datasets.Cell, rows []datasets.Comparison, st pipeline.BatchRounds) twinResult {
	t := twinResult{name: name, verdict: decide.Undecided, ratio: math.NaN(), cpu: math.NaN()}
	for _, c := range rows {
		if c.Candidate != name {
			continue
		}
		switch {
		case c.Metric == "throughput":
			t.verdict = c.Verdict
			if c.Ratio != nil {
				t.ratio = *c.Ratio
			}
		case c.Metric == "cpu_per_request" && c.Ratio != nil:
			t.cpu = *c.Ratio
		}
		if name == "same" && (c.Verdict == decide.Better || c.Verdict == decide.Worse) {
			t.wrong = append(t.wrong, c.Metric+" "+c.Verdict)
		}
	}
	// the round of the look that decided throughput: the first look
	// whose rows (as the comparisons table keeps them) are decided
	ptrs := make([]*datasets.Cell, len(cells))
	for i := range cells {
		ptrs[i] = &cells[i]
	}
	for look := b.RepeatsMin; look <= st.Ran && t.verdict != decide.Undecided; look++ {
		var in []*datasets.Cell
		for _, c := range ptrs {
			if c.Repeat <= int64(look) {
				in = append(in, c)
			}
		}
		for _, c := range decide.Looks(b, in, "base", pipeline.BatchRounds{Ran: look}) {
			if c.Candidate == name && c.Metric == "throughput" && c.Verdict != decide.Undecided && t.round == 0 {
				t.round = look
			}
		}
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

// printReal prints the real runs of one condition.
func printReal(o options, condition string, runs []runResult) {
	if len(runs) == 0 {
		return
	}
	fmt.Printf("\nreal runs, %s (%d): throughput decisions against the baseline, repeats %d to %d\n", condition, len(runs), o.min, o.max)
	fmt.Printf("  %-5s %-9s %-28s %-24s %s\n", "twin", "work", "verdicts (round decided)", "throughput ratio", "CPU/request ratio")
	for i, t := range twins {
		var vs []string
		var ratios, cpus []float64
		var wrong []string
		for _, r := range runs {
			tr := r.twins[i]
			v := tr.verdict
			if tr.round > 0 {
				v += fmt.Sprintf("(%d)", tr.round)
			}
			vs = append(vs, v)
			ratios, cpus = append(ratios, tr.ratio), append(cpus, tr.cpu)
			wrong = append(wrong, tr.wrong...)
		}
		fmt.Printf("  %-5s %-9s %-28s %-24s %s\n", t.name, fmt.Sprintf("x%d/10", t.work), strings.Join(vs, " "), spread(ratios), spread(cpus))
		if t.name == "same" {
			slices.Sort(wrong)
			fmt.Printf("        A/A better or worse on any metric: %d of %d run(s) x 8 metrics %v\n", len(wrong), len(runs), wrong)
		}
	}
}

// spread is values as "median [min, max]".
func spread(xs []float64) string {
	xs = slices.DeleteFunc(slices.Clone(xs), math.IsNaN)
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", stats.Median(xs), slices.Min(xs), slices.Max(xs))
}
