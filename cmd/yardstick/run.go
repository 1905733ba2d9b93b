package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
	"yardstick/schema"
	"yardstick/stages/execute"
	"yardstick/stages/execute/machine"
	"yardstick/stages/fairness"
	"yardstick/stages/report"
	"yardstick/stages/tabulate"
)

func init() {
	register(verb{
		name:    "run",
		summary: "run a definition's cells into a new run directory, or resume one",
		usage:   "FILE|DIR [--out DIR] [--only GLOB] [--strict] [--experiment NAME] [--order ...] [--seed N] | --resume RUNDIR [--only GLOB]",
		run:     runRun,
	})
}

func runRun(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "run")
	out := fs.String("out", "results", "the results directory; the run goes to OUT/<experiment>/run=<id>/")
	only := fs.String("only", "", "run only cells whose name matches this glob (or this cell id)")
	resume := fs.String("resume", "", "resume this run directory: run its cells that have no checkpoint")
	strict := fs.Bool("strict", false, "exit non-zero when a cell is unfair (as well as when one failed)")
	pf := addPlanFlags(fs)
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := execute.ValidateOnly(*only); err != nil {
		return usagef("%v", err)
	}
	var rd *pipeline.RunDir
	var p *pipeline.Plan
	switch {
	case *resume != "" && len(args) > 0:
		return usagef("give a definition or --resume RUNDIR, not both")
	case *resume != "":
		rd, err = pipeline.OpenRunDir(*resume)
		if err != nil {
			return err
		}
		if p, err = rd.ReadPlan(); err != nil {
			return err
		}
	case len(args) == 1:
		p, rd, err = newRun(ctx, env, args[0], *out, pf)
		if err != nil {
			return err
		}
	default:
		return usagef("want one definition (or --resume RUNDIR), got %d arguments", len(args))
	}
	return executeRun(ctx, env, rd, p, *only, *strict)
}

// executeRun runs the plan's cells in rd (those without a checkpoint),
// then the fairness checks and the datasets, and prints the summary. It is
// the tail of run, run --resume and rerun.
func executeRun(ctx context.Context, env *cliEnv, rd *pipeline.RunDir, p *pipeline.Plan, only string, strict bool) error {
	if err := checkMachine(p); err != nil {
		return err
	}
	unlock, err := rd.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	self, err := selfPath()
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "run directory: %s\n", rd.Root)
	sum, err := execute.Run(ctx, rd, p, execute.Options{
		Self:     self,
		Workdir:  env.wd,
		Only:     only,
		Progress: env.stderr,
		Terminal: isTerminal(env.stderr),
	})
	if err != nil {
		return fmt.Errorf("run %s: %w", rd.Root, err)
	}
	rows, err := checkFairness(rd, p)
	if err != nil {
		return err
	}
	failedChecks := printFairness(env, rows)
	tsum, err := tabulate.Run(rd, Version())
	if err != nil {
		return err
	}
	for _, w := range tsum.Warnings {
		fmt.Fprintf(env.stderr, "datasets: warning: %s\n", w)
	}
	if werr := execute.WriteSummary(env.stdout, rd, p, only); werr != nil {
		return werr
	}
	fmt.Fprintf(env.stdout, "\n%d cell(s) planned: %d done, %d failed, %d already done, %d pending\nrun directory: %s\n",
		sum.Planned, sum.Done, sum.Failed, sum.Skipped, sum.Pending, rd.Root)
	if rres, rerr := report.Run(rd.Root, report.Options{}); rerr != nil {
		fmt.Fprintf(env.stderr, "report: %v\n", rerr)
	} else {
		fmt.Fprintf(env.stdout, "report: %s\n", filepath.Join(rres.Out, "report.md"))
	}
	if sum.Interrupted {
		fmt.Fprintf(env.stderr, "interrupted; every process stopped. Resume with: yardstick run --resume %s\n", rd.Root)
		return errPrinted
	}
	if sum.Failed > 0 {
		fmt.Fprintf(env.stderr, "%d cell(s) failed; their checkpoints say why\n", sum.Failed)
		return errPrinted
	}
	if strict && failedChecks > 0 {
		fmt.Fprintf(env.stderr, "--strict: %d fairness check(s) failed\n", failedChecks)
		return errPrinted
	}
	return nil
}

// checkFairness runs the measured fairness checks over every checkpoint of
// the run and writes fairness.json.
func checkFairness(rd *pipeline.RunDir, p *pipeline.Plan) ([]pipeline.FairnessRow, error) {
	cps := map[string]*pipeline.Checkpoint{}
	for _, c := range p.Cells {
		if cp, err := rd.ReadCheckpoint(c.ID); err == nil {
			cps[c.ID] = cp
		}
	}
	rows := fairness.Check(fairness.Input{Plan: p, Checkpoints: cps})
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
func printFairness(env *cliEnv, rows []pipeline.FairnessRow) int {
	failed := 0
	for _, r := range rows {
		if !r.Pass {
			failed++
		}
	}
	fmt.Fprintf(env.stdout, "fairness: %d check(s), %d failed\n", len(rows), failed)
	for _, r := range rows {
		if r.Pass {
			continue
		}
		detail := ""
		if r.Detail != nil {
			detail = *r.Detail
		}
		fmt.Fprintf(env.stdout, "  UNFAIR %s [%s %s]: %s\n", r.Check, r.Scope, r.Batch, detail)
	}
	fmt.Fprintln(env.stdout)
	return failed
}

// newRun validates and plans the definition, then creates the run
// directory with the lock (plan.json), the sources and the environment.
func newRun(ctx context.Context, env *cliEnv, arg, out string, pf *planFlags) (*pipeline.Plan, *pipeline.RunDir, error) {
	p, err := loadPlan(env, arg, pf)
	if err != nil {
		return nil, nil, err
	}
	def, err := schema.Load(env.wd, arg)
	if err != nil {
		return nil, nil, err
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(env.wd, out)
	}
	rd, err := pipeline.CreateRunDir(out, p.Experiment, pipeline.NewRunID(time.Now()))
	if err != nil {
		return nil, nil, err
	}
	for _, s := range def.Sources {
		name := s.Path
		if filepath.IsAbs(name) || strings.HasPrefix(filepath.Clean(name), "..") {
			name = filepath.Base(name)
		}
		dst := rd.Path("sources", name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, nil, err
		}
		if err := pipeline.WriteFileAtomic(dst, s.Content); err != nil {
			return nil, nil, err
		}
	}
	if err := rd.WritePlan(p); err != nil {
		return nil, nil, err
	}
	e := captureEnvironment(ctx, env, p)
	if err := pipeline.WriteJSONAtomic(rd.Path("environment.json"), e); err != nil {
		return nil, nil, err
	}
	if err := rd.WriteLock(machine.Lock(p, env.wd, e)); err != nil {
		return nil, nil, err
	}
	return p, rd, nil
}

// captureEnvironment describes this machine for a run of plan p.
func captureEnvironment(ctx context.Context, env *cliEnv, p *pipeline.Plan) pipeline.Environment {
	e := machine.Capture(ctx)
	e.Yardstick, e.SourceHash, e.PlanHash, e.Workdir = Version(), p.SourceHash, p.Hash, env.wd
	return e
}

// checkMachine refuses a plan whose CPU sets this machine does not have:
// validate only warns (plans are reviewed on laptops), run cannot pin.
func checkMachine(p *pipeline.Plan) error {
	var problems []string
	for _, b := range p.Batches {
		for role, spec := range map[string]string{"target": b.Placement.Target, "services": b.Placement.Services, "loadgen": b.Placement.Loadgen} {
			if spec == "" {
				continue
			}
			set, err := cpuset.Parse(spec)
			if err != nil {
				return err
			}
			if set.Max() >= runtime.NumCPU() {
				problems = append(problems, fmt.Sprintf("batch %s: placement.%s %s names CPU %d, but this machine has %d CPUs", b.Name, role, spec, set.Max(), runtime.NumCPU()))
			}
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// selfPath finds the yardstick binary to run `loadgen --stdio` with: the
// path this process was started as (a test harness starts it under the
// name "yardstick" from PATH).
func selfPath() (string, error) {
	arg0 := os.Args[0]
	if !strings.ContainsRune(arg0, os.PathSeparator) {
		if p, err := exec.LookPath(arg0); err == nil {
			return p, nil
		}
		return os.Executable()
	}
	return filepath.Abs(arg0)
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
