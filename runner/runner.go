// Package runner owns the stage sequence of a run. `run`, `run --resume`
// and `rerun` differ only in how the run directory comes to be (a new one
// from a definition, an existing one, a new one from an earlier run's
// lock); from there the sequence is the same:
//
//  1. execute: every cell without a checkpoint (stages/execute);
//  2. fairness: the measured checks over all checkpoints, into
//     fairness.json (stages/fairness);
//  3. tabulate: the checkpoints into the Parquet datasets
//     (stages/tabulate);
//  4. the summary of the cells, then the report (stages/report).
//
// The command line parses flags and calls this package; the definition is
// evaluated once per run, by the caller, and handed over with its plan so
// that the plan's source hash and sources/ come from the same bytes.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/loadgen"
	"yardstick/pipeline"
	"yardstick/pipeline/safetext"
	"yardstick/runner/scaleout"
	"yardstick/stages/execute"
	"yardstick/stages/fairness"
	"yardstick/stages/report"
	"yardstick/stages/tabulate"
)

// Options configure the stage sequence.
type Options struct {
	// Self is the yardstick binary that runs `loadgen --stdio`.
	Self string
	// Workdir is the directory relative paths in the plan resolve against.
	Workdir string
	// Only selects the cells to run (--only); other cells
	// are left for another run.
	Only pipeline.Only
	// Strict makes a failed fairness check fail the run.
	Strict bool
	// Version is yardstick's version, recorded in the environment and the
	// datasets.
	Version string
	// Stdout receives the summary, Stderr progress and warnings; Terminal
	// says Stderr is a terminal (progress redraws one line).
	Stdout, Stderr io.Writer
	Terminal       bool
	// Hosts are the hosts of the two-host batches, resolved; see
	// execute.Options.Hosts.
	Hosts *execute.Hosts
	// AllowDrift (run --resume, rerun --allow-drift) lets a build step
	// make other files than the lock records; see
	// execute.Options.AllowDrift.
	AllowDrift bool
	// Engine is the scale-out engine whose task this run of one batch,
	// or whose merge job this merge, is (runner/slurm for Slurm); nil
	// when it was started by hand.
	Engine scaleout.Engine
}

// ErrReported says the run ended badly (interrupted, a cell failed, or a
// fairness check failed under Strict) and the reason has been written to
// Options.Stderr.
var ErrReported = errors.New("run ended badly; reported")

// A Source is one definition file as it was evaluated.
type Source struct {
	Path    string
	Content []byte
}

// Create makes a new run directory under results for plan p, evaluated
// from sources: plan.json (the lock of what runs), sources/, the machine's
// environment.json and lock.json.
func Create(ctx context.Context, results string, p *pipeline.Plan, sources []Source, o Options) (*pipeline.RunDir, error) {
	if err := o.Only.Check(p.Cells); err != nil {
		return nil, err
	}
	rd, err := pipeline.CreateRunDir(results, p.Experiment, pipeline.NewRunID(now()))
	if err != nil {
		return nil, err
	}
	for _, s := range sources {
		name := s.Path
		if filepath.IsAbs(name) || strings.HasPrefix(filepath.Clean(name), "..") {
			name = filepath.Base(name)
		}
		if err := writeSource(rd, name, s.Content); err != nil {
			return nil, err
		}
	}
	if err := rd.WritePlan(p); err != nil {
		return nil, err
	}
	e := Environment(ctx, p, o)
	if err := pipeline.WriteJSONAtomic(rd.Path("environment.json"), e); err != nil {
		return nil, err
	}
	if err := rd.WriteLock(execute.Lock(p, o.Workdir, e)); err != nil {
		return nil, err
	}
	return rd, nil
}

func writeSource(rd *pipeline.RunDir, name string, content []byte) error {
	dst := rd.Path("sources", name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("write sources: %w", err)
	}
	return pipeline.WriteFileAtomic(dst, content)
}

// Environment describes this machine for a run of plan p.
func Environment(ctx context.Context, p *pipeline.Plan, o Options) pipeline.Environment {
	e := execute.Environment(ctx)
	e.Yardstick, e.SourceHash, e.PlanHash, e.Workdir = o.Version, p.SourceHash, p.Hash, o.Workdir
	return e
}

// Execute runs the plan's cells in rd that have no checkpoint, then the
// fairness checks and the datasets, prints the summary and writes the
// report. It returns ErrReported when the run was interrupted, a cell
// failed, or (with Strict) a fairness check failed.
func Execute(ctx context.Context, rd *pipeline.RunDir, p *pipeline.Plan, o Options) error {
	if err := CheckMachine(p); err != nil {
		return err
	}
	unlock, err := rd.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	fmt.Fprintf(o.Stderr, "run directory: %s\n", rd.Root)
	sum, err := runCells(ctx, rd, p, o.AllowDrift, o)
	if err != nil {
		return fmt.Errorf("run %s: %w", rd.Root, err)
	}
	failedChecks, err := finish(rd, p, sum, o)
	if err != nil {
		return err
	}
	return conclude(rd, sum, failedChecks, o)
}

// finish runs the stages after execute: fairness, tabulate, the summary
// and the report. It returns how many fairness checks failed.
func finish(rd *pipeline.RunDir, p *pipeline.Plan, sum execute.Summary, o Options) (int, error) {
	rows, err := CheckFairness(rd, p)
	if err != nil {
		return 0, err
	}
	failedChecks := printFairness(o.Stdout, rows)
	tsum, err := tabulate.Run(rd, o.Version)
	if err != nil {
		return 0, err
	}
	for _, w := range tsum.Warnings {
		fmt.Fprintf(o.Stderr, "datasets: warning: %s\n", w)
	}
	if err := execute.WriteSummary(o.Stdout, rd, p, o.Only); err != nil {
		return 0, err
	}
	printDecisions(o.Stdout, tsum.Comparisons)
	if tsum.Busy != "" {
		fmt.Fprintf(o.Stdout, "\nnote: %s\n", tsum.Busy)
	}
	fmt.Fprintf(o.Stdout, "\n%d cell(s) planned: %d done, %d failed, %d already done, %d pending%s\nrun directory: %s\n",
		sum.Planned+sum.NotNeeded, sum.Done, sum.Failed, sum.Skipped, sum.Pending, notNeeded(sum), rd.Root)
	if rres, rerr := report.Run(rd.Root, report.Options{}); rerr != nil {
		fmt.Fprintf(o.Stderr, "report: %v\n", rerr)
	} else {
		fmt.Fprintf(o.Stdout, "report: %s\n", filepath.Join(rres.Out, "report.md"))
	}
	return failedChecks, nil
}

// printDecisions says the headline decisions against each batch's
// baseline, one line per candidate and point.
func printDecisions(w io.Writer, rows []datasets.Comparison) {
	if len(rows) == 0 {
		return
	}
	level, top := "95% interval", 0.95
	for _, r := range rows {
		top = max(top, r.Confidence)
	}
	if top > 0.95+1e-9 {
		level = fmt.Sprintf("interval at the level of the sequential look that decided it, or of the last look: up to %.1f%%", 100*top)
	}
	fmt.Fprintf(w, "\ndecisions against the baseline (ratio, %s, outcome; the report has every metric and reason):\n", level)
	type group struct{ batch, point, candidate, baseline string }
	var order []group
	byGroup := map[group]map[string]datasets.Comparison{}
	for _, r := range rows {
		g := group{r.Batch, r.Point, r.Candidate, r.Baseline}
		if byGroup[g] == nil {
			byGroup[g] = map[string]datasets.Comparison{}
			order = append(order, g)
		}
		byGroup[g][r.Metric] = r
	}
	for _, g := range order {
		var parts []string
		for _, name := range slices.Concat(decide.Headline(""), decide.Headline("hold")) {
			if r, ok := byGroup[g][name]; ok {
				m, _ := decide.MetricNamed(name)
				short := m.Title
				if name == "throughput" {
					short = name
				}
				parts = append(parts, short+" "+decisionText(r))
			}
		}
		if len(parts) == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s %s %s vs %s: %s\n", g.batch, g.point, safetext.Terminal(g.candidate), safetext.Terminal(g.baseline), strings.Join(parts, ", "))
	}
}

// decisionText is one decision in a few words.
func decisionText(c datasets.Comparison) string {
	s := c.Verdict
	if c.Ratio != nil {
		s = fmt.Sprintf("%.2fx", *c.Ratio)
		if c.CILow != nil && c.CIHigh != nil {
			s += fmt.Sprintf(" [%.2f, %.2f]", *c.CILow, *c.CIHigh)
		}
		s += " " + c.Verdict
	}
	if c.Verdict == decide.Undecided {
		s += " (" + decide.ShortReason(c) + ")"
	}
	return s
}

// notNeeded is the summary's count of cells that adaptive repeats did not
// need, or "".
func notNeeded(sum execute.Summary) string {
	if sum.NotNeeded == 0 {
		return ""
	}
	return fmt.Sprintf(", %d not needed (adaptive repeats decided before their round)", sum.NotNeeded)
}

// conclude writes the run's exit message, how it ended, on Stderr, and
// returns ErrReported when it ended badly.
func conclude(rd *pipeline.RunDir, sum execute.Summary, failedChecks int, o Options) error {
	switch {
	case sum.Interrupted:
		fmt.Fprintf(o.Stderr, "interrupted; every process stopped. Resume with: yardstick run --resume %s\n", rd.Root)
	case sum.Failed > 0:
		fmt.Fprintf(o.Stderr, "%d cell(s) failed; their checkpoints say why\n", sum.Failed)
	case o.Strict && failedChecks > 0:
		fmt.Fprintf(o.Stderr, "--strict: %d fairness check(s) failed\n", failedChecks)
	default:
		return nil
	}
	return ErrReported
}

// CheckFairness runs the measured fairness checks over every checkpoint of
// the run and writes fairness.json.
func CheckFairness(rd *pipeline.RunDir, p *pipeline.Plan) ([]pipeline.FairnessRow, error) {
	cps := map[string]*pipeline.Checkpoint{}
	for _, c := range p.Cells {
		if cp, err := rd.ReadCheckpoint(c.ID); err == nil {
			cps[c.ID] = cp
		}
	}
	nodes, err := rd.ReadAllNodes(p)
	if err != nil {
		return nil, err
	}
	rows := fairness.Check(fairness.Input{Plan: p, Checkpoints: cps, Nodes: nodes})
	if rows == nil {
		rows = []pipeline.FairnessRow{}
	}
	if err := pipeline.WriteJSONAtomic(rd.Path("fairness.json"), rows); err != nil {
		return nil, err
	}
	return rows, nil
}

// printFairness lists the failed checks, before any result, and returns
// how many failed.
func printFairness(w io.Writer, rows []pipeline.FairnessRow) int {
	failed := 0
	for _, r := range rows {
		if !r.Pass {
			failed++
		}
	}
	fmt.Fprintf(w, "fairness: %d check(s), %d failed\n", len(rows), failed)
	for _, r := range rows {
		if r.Pass {
			continue
		}
		detail := ""
		if r.Detail != nil {
			detail = *r.Detail
		}
		fmt.Fprintf(w, "  UNFAIR %s [%s %s]: %s\n", r.Check, r.Scope, r.Batch, detail)
	}
	for _, r := range rows {
		if fairness.IsWarning(r) {
			fmt.Fprintf(w, "  WARNING %s [%s %s]: %s\n", r.Check, r.Scope, r.Batch, strings.TrimPrefix(*r.Detail, fairness.WarningPrefix))
		}
	}
	fmt.Fprintln(w)
	return failed
}

// limitsProblem says why batch b, whose targets declare limits, cannot
// run here; "" when it can (or declares none).
func limitsProblem(b *pipeline.Batch) string {
	var limited []string
	for _, v := range b.Variants {
		if v.Limits != nil {
			limited = append(limited, v.Label)
		}
	}
	if len(limited) == 0 {
		return ""
	}
	if err := execute.CgroupsAvailable(); err != nil {
		return fmt.Sprintf("batch %s: %s declare limits, which need a control group per target start, but %v", b.Name, strings.Join(limited, ", "), err)
	}
	return ""
}

// holdProblems are the connection-holding batches whose connections need
// more descriptors than this machine's hard RLIMIT_NOFILE allows, where
// yardstick may not raise it (validate only warns).
func holdProblems(p *pipeline.Plan) []string {
	hard, raisable := loadgen.NoFileLimit()
	if hard == 0 || raisable {
		return nil
	}
	most := map[string]int{}
	var order []string
	for _, c := range p.Cells {
		if c.Point.Hold == nil {
			continue
		}
		if _, ok := most[c.Batch]; !ok {
			order = append(order, c.Batch)
		}
		most[c.Batch] = max(most[c.Batch], c.Point.Connections)
	}
	var out []string
	for _, b := range order {
		if need := uint64(most[b] + loadgen.FDSlack); need > hard {
			out = append(out, fmt.Sprintf("batch %s: %d connections need %d file descriptors, but the hard RLIMIT_NOFILE here is %d and yardstick may not raise it: raise it where yardstick starts (ulimit -Hn %d) or hold fewer", b, most[b], need, hard, need))
		}
	}
	return out
}

// CheckMachine refuses a plan whose CPU sets this machine does not have
// (validate only warns: plans are reviewed on laptops; run cannot pin),
// one that holds more connections than it has descriptors for, and one whose targets declare limits where yardstick cannot make
// control groups (no root, no delegated subtree, no cgroup filesystem).
func CheckMachine(p *pipeline.Plan) error {
	var problems []string
	for _, b := range p.Batches {
		for _, role := range []string{pipeline.RoleTarget, pipeline.RoleServices, pipeline.RoleLoadgen} {
			if set := b.Placement.Set(role); set.Max() >= runtime.NumCPU() {
				problems = append(problems, fmt.Sprintf("batch %s: placement.%s %s names CPU %d, but this machine has %d CPUs", b.Name, role, set, set.Max(), runtime.NumCPU()))
			}
		}
		if p := limitsProblem(&b); p != "" {
			problems = append(problems, p)
		}
	}
	problems = append(problems, holdProblems(p)...)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}
