//go:build calibration

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/decide"
	"yardstick/loadgen"
	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
	"yardstick/stages/execute/procgroup"
	"yardstick/stats/hdrstat"
)

// The design trial (make design-trial, docs/methodology.md#design-trial):
// the two questions of the calibration batch, an A/A pair ("same") and a
// twin doing more work per request ("slow"), each asked on throughput and
// on p99, answered by two designs in alternation while another process
// loads both CPUs in bursts:
//
//   - restarts: the product's design, `yardstick run` of the calibration
//     batch with adaptive repeats (a new start of every variant per round,
//     decided by decide.Between), its rounds bounded by a budget;
//   - slices: every variant started once and warmed, all three on CPU 0,
//     then the load (on CPU 1) alternated between them in short slices,
//     each comparison a pair of adjacent slices of its two variants in a
//     random order, decided by decide.Paired after each round, with
//     the same margin, the same stopping rule and the same budget.
//
// It counts per design the decisions that are correct (equivalent for
// the A/A pair; worse for the slower twin, on both metrics), wrong (better
// or worse for the A/A pair; better or equivalent for the slower twin)
// and undecided, and the wall time. It is a measurement, not a check: it
// fails only when a design cannot run (a target not ready, a load
// generator that fails, a slice without a response, a run without its
// comparisons); on a machine too noisy for either, both stay undecided,
// and that is its finding.

// trialBudget bounds each design's run (YARDSTICK_TRIAL_BUDGET).
var trialBudget = 2 * time.Minute

const (
	trialMargin   = 0.05                    // fairness.noise of the calibration batch
	sliceLength   = 1200 * time.Millisecond // one slice of load
	sliceDiscard  = 2                       // its first 100 ms intervals left out
	sliceWarm     = 3 * time.Second         // each target's warm-up before the slices
	sliceMinRound = 5                       // rounds before the first decision
)

// trialQuestions are the comparisons both designs answer.
var trialQuestions = []struct{ candidate, metric string }{
	{"same", "throughput"}, {"same", "latency_p99"}, {"slow", "throughput"}, {"slow", "latency_p99"},
}

// A trialRun is one design's answers to the questions, and its wall time.
type trialRun struct {
	decisions map[string]decide.Decision // by candidate + " " + metric
	wall      time.Duration
	rounds    int
}

// TestDesignTrial runs YARDSTICK_TRIALS (default 3) trials of each
// design, alternating which goes first, and logs what each decided.
func TestDesignTrial(t *testing.T) {
	trials := 3
	if s := os.Getenv("YARDSTICK_TRIALS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 20 {
			t.Fatalf("YARDSTICK_TRIALS=%q: want 1..20", s)
		}
		trials = n
	}
	if s := os.Getenv("YARDSTICK_TRIAL_BUDGET"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 10*time.Second || d > 10*time.Minute {
			t.Fatalf("YARDSTICK_TRIAL_BUDGET=%q: want 10s..10m", s)
		}
		trialBudget = d
	}
	dir := t.TempDir()
	yardstick, sample := buildBinaries(t, dir)
	stop := randomBursts(t, 20*time.Duration(trials)*time.Minute)
	defer stop()
	designs := []struct {
		name string
		run  func(t *testing.T, trial int) trialRun
	}{
		{"restarts", func(t *testing.T, trial int) trialRun { return restartTrial(t, dir, yardstick, sample, trial) }},
		{"slices", func(t *testing.T, trial int) trialRun { return sliceTrial(t, yardstick, sample, trial) }},
	}
	runs := map[string][]trialRun{}
	for i := range trials {
		for j := range designs {
			d := designs[(i+j)%len(designs)]
			load := loadAverage()
			r := d.run(t, i)
			logTrial(t, d.name, i, r, load+" to "+loadAverage())
			runs[d.name] = append(runs[d.name], r)
		}
	}
	for _, d := range designs {
		summarise(t, d.name, runs[d.name])
	}
}

// judge says whether a verdict on a question is correct, wrong or
// undecided.
func judge(candidate, verdict string) string {
	switch {
	case verdict == decide.Undecided || verdict == "":
		return "undecided"
	case candidate == "same" && verdict == decide.Equivalent, candidate == "slow" && verdict == decide.Worse:
		return "correct"
	}
	return "wrong"
}

func logTrial(t *testing.T, design string, trial int, r trialRun, load string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "trial %d, %s: %d rounds, %.1f s, load average %s", trial+1, design, r.rounds, r.wall.Seconds(), load)
	for _, q := range trialQuestions {
		d := r.decisions[q.candidate+" "+q.metric]
		fmt.Fprintf(&b, "\n  %s %s: %s (%s) %.3fx [%.3f, %.3f]", q.candidate, q.metric, d.Verdict, judge(q.candidate, d.Verdict), d.Ratio, d.Low, d.High)
	}
	t.Log(b.String())
}

// summarise logs a design's counts over its trials, and the geometric
// mean of its intervals' relative half-width (sqrt(high/low) - 1): how
// near to a decision it came, decided or not.
func summarise(t *testing.T, design string, runs []trialRun) {
	t.Helper()
	count := map[string]int{}
	var wall time.Duration
	var logHW float64
	n := 0
	for _, r := range runs {
		wall += r.wall
		for _, q := range trialQuestions {
			d := r.decisions[q.candidate+" "+q.metric]
			count[judge(q.candidate, d.Verdict)]++
			if q.candidate == "same" {
				count["A/A "+judge(q.candidate, d.Verdict)]++
			}
			if d.Low > 0 && d.High > 0 {
				logHW += math.Log(d.High/d.Low) / 2
				n++
			}
		}
	}
	t.Logf("%s: %d trials, %d decisions: %d correct (A/A %d), %d wrong (A/A %d), %d undecided (A/A %d); %.1f min in all: %.2f correct decisions per minute; intervals ±%.1f%% (geometric mean of %d)",
		design, len(runs), len(runs)*len(trialQuestions), count["correct"], count["A/A correct"], count["wrong"], count["A/A wrong"],
		count["undecided"], count["A/A undecided"], wall.Minutes(), float64(count["correct"])/wall.Minutes(), 100*(math.Exp(logHW/float64(max(n, 1)))-1), n)
}

// restartTrial runs the calibration batch with adaptive repeats bounded
// by the trial's budget and reads its decisions.
func restartTrial(t *testing.T, dir, yardstick, sample string, trial int) trialRun {
	t.Helper()
	name := fmt.Sprintf("restarts-%d.cue", trial)
	def := strings.NewReplacer("SAMPLE", sample, "MAXROUNDS", fmt.Sprintf("16, budget: %q", trialBudget.String()),
		"PORT1", fmt.Sprint(freeLoopbackPort(t)), "PORT2", fmt.Sprint(freeLoopbackPort(t)), "PORT3", fmt.Sprint(freeLoopbackPort(t))).Replace(calibrationCUE)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, fmt.Sprintf("results-%d", trial))
	began := time.Now()
	out, err := runFor(t, 10*time.Minute, dir, yardstick, "run", name, "--out", results)
	r := trialRun{wall: time.Since(began), decisions: map[string]decide.Decision{}}
	if err != nil {
		t.Fatalf("yardstick run: %v\n%s", err, out)
	}
	rows, rd := readComparisons(t, results)
	for _, row := range rows {
		d := decide.Decision{Verdict: row.Verdict, Ratio: valueOr0(row.Ratio), Low: valueOr0(row.CILow), High: valueOr0(row.CIHigh)}
		r.decisions[row.Candidate+" "+row.Metric] = d
	}
	var st pipeline.BatchRounds
	b, err := os.ReadFile(filepath.Join(rd, "rounds", "main.json"))
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil {
		t.Fatalf("rounds of batch main: %v", err)
	}
	r.rounds = st.Ran
	return r
}

func valueOr0(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// sliceFigures are what one slice of load measured on one target.
type sliceFigures struct{ rps, p99 float64 }

// sliceTarget is one variant of the slices design: its port and flags.
type sliceTarget struct {
	name string
	args []string
	port int
}

// sliceTrial runs the slices design on the three variants of the
// calibration batch and decides its comparisons.
func sliceTrial(t *testing.T, yardstick, sample string, trial int) trialRun {
	t.Helper()
	began := time.Now()
	targets := []*sliceTarget{{name: "base"}, {name: "same"}, {name: "slow", args: []string{"-work-factor", "14"}}}
	for _, tg := range targets {
		tg.port = freeLoopbackPort(t)
		p, err := procgroup.Start(procgroup.Spec{
			Argv: append([]string{sample, "-port", fmt.Sprint(tg.port)}, tg.args...),
			Env:  []string{"GOMAXPROCS=1", "GOMEMLIMIT=off"},
			CPUs: []int{0},
		})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Stop(5 * time.Second)
		waitReady(t, tg.port)
	}
	for _, tg := range targets {
		runSlice(t, yardstick, tg.port, sliceWarm)
	}
	rng := rand.New(rand.NewPCG(uint64(trial), 0x5eed))
	pairs := map[string][]decide.Pair{}
	r := trialRun{decisions: map[string]decide.Decision{}}
	for r.rounds = 1; ; r.rounds++ {
		sliceRound(t, yardstick, rng, targets, pairs)
		if r.rounds < sliceMinRound {
			continue
		}
		undecided := 0
		for _, q := range trialQuestions {
			d := decide.Paired(pairs[q.candidate+" "+q.metric], decide.Options{Margin: trialMargin, LowerIsBetter: q.metric == "latency_p99"})
			r.decisions[q.candidate+" "+q.metric] = d
			if d.Verdict == decide.Undecided {
				undecided++
			}
		}
		if undecided == 0 || time.Since(began) >= trialBudget {
			break
		}
	}
	r.wall = time.Since(began)
	return r
}

// sliceRound runs one round: for each candidate, in a random order, a
// pair of adjacent slices of the baseline and the candidate, in a random
// order, giving one pair per metric.
func sliceRound(t *testing.T, yardstick string, rng *rand.Rand, targets []*sliceTarget, pairs map[string][]decide.Pair) {
	t.Helper()
	cands := targets[1:]
	for _, i := range rng.Perm(len(cands)) {
		c := cands[i]
		first, second := targets[0], c
		swapped := rng.IntN(2) == 1
		if swapped {
			first, second = second, first
		}
		a, b := runSlice(t, yardstick, first.port, sliceLength), runSlice(t, yardstick, second.port, sliceLength)
		if swapped {
			a, b = b, a
		}
		pairs[c.name+" throughput"] = append(pairs[c.name+" throughput"], decide.Pair{Baseline: a.rps, Candidate: b.rps})
		pairs[c.name+" latency_p99"] = append(pairs[c.name+" latency_p99"], decide.Pair{Baseline: a.p99, Candidate: b.p99})
	}
}

// runSlice drives the target on port for d with `yardstick loadgen
// --stdio` pinned to CPU 1, the calibration batch's workload (8
// connections, closed loop), and returns the throughput and p99 of the
// intervals after the first sliceDiscard.
func runSlice(t *testing.T, yardstick string, port int, d time.Duration) sliceFigures {
	t.Helper()
	// Pipes of its own: exec's StdoutPipe is closed by the Wait that
	// procgroup starts at once, which can lose the result line when the
	// load generator exits before it is read.
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	p, err := procgroup.Start(procgroup.Spec{
		Argv: []string{yardstick, "loadgen", "--stdio", "--cpus", "1"},
		CPUs: []int{1},
		Setup: func(cmd *exec.Cmd) error {
			cmd.Stdin, cmd.Stdout = inR, outW
			return nil
		},
	})
	inR.Close()
	outW.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(5 * time.Second)
	spec := loadgen.Spec{URL: fmt.Sprintf("http://127.0.0.1:%d/api/generated/128", port), Connections: 8,
		Duration: loadgen.Duration(d), Interval: loadgen.Duration(100 * time.Millisecond), Timeout: loadgen.Duration(10 * time.Second), CPUs: cpuset.Set{1}}
	var kept []loadgen.Interval
	ctx, cancel := context.WithTimeout(context.Background(), d+30*time.Second)
	defer cancel()
	_, err = loadgen.Drive(ctx, outR, inW, spec, func(iv loadgen.Interval) {
		if iv.Index >= sliceDiscard {
			kept = append(kept, iv)
		}
	})
	if err != nil {
		t.Fatalf("slice on port %d: %v", port, err)
	}
	return figuresOf(t, kept)
}

// figuresOf is the throughput and p99 of the kept intervals.
func figuresOf(t *testing.T, kept []loadgen.Interval) sliceFigures {
	t.Helper()
	var req int64
	var secs float64
	h := hdrhistogram.New(1, 60_000_000, 3)
	for _, iv := range kept {
		req += iv.Requests
		secs += iv.DurationS
		ih, err := hdrstat.Decode(iv.Hist)
		if err != nil {
			t.Fatal(err)
		}
		h.Merge(ih)
	}
	if req == 0 || secs == 0 {
		t.Fatalf("a slice completed no request in %.2f s", secs)
	}
	return sliceFigures{rps: float64(req) / secs, p99: float64(hdrstat.NewDist(h).Percentile(99))}
}

// waitReady polls the target's ready path until it answers 200, for at
// most 20 s.
func waitReady(t *testing.T, port int) {
	t.Helper()
	c := http.Client{Timeout: time.Second}
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d/ready", port))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
	}
	t.Fatalf("the target on port %d was not ready within 20 s", port)
}

// randomBursts starts, on each of CPU 0 and CPU 1, a shell that is busy
// for 0.5-2 s and then idle for 0.5-2 s (each drawn anew), for at most
// limit; both are stopped when the test ends, or by stop.
func randomBursts(t *testing.T, limit time.Duration) (stop func()) {
	t.Helper()
	script := `end=$(( $(date +%s) + ` + strconv.Itoa(int(limit.Seconds())) + ` )); seed=$(( $1 * 100000 )); i=0
while [ $(date +%s) -lt $end ]; do
  set -- $(awk -v s=$((seed + i)) 'BEGIN { srand(s); printf "%d %.3f", 500 + rand() * 1500, 0.5 + rand() * 1.5 }')
  stop=$(( $(date +%s%N) + $1 * 1000000 )); while [ $(date +%s%N) -lt $stop ]; do j=0; while [ $j -lt 2000 ]; do j=$((j + 1)); done; done
  sleep $2; i=$((i + 1))
done`
	var procs []*procgroup.Process
	for cpu := range 2 {
		p, err := procgroup.Start(procgroup.Spec{Argv: []string{"sh", "-c", script, "bursts", fmt.Sprint(cpu + 1)}, CPUs: []int{cpu}})
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
	}
	done := false
	stop = func() {
		if done {
			return
		}
		done = true
		for _, p := range procs {
			p.Stop(time.Second)
		}
	}
	t.Cleanup(stop)
	return stop
}

// loadAverage is the machine's one-minute load average, as /proc says.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}
