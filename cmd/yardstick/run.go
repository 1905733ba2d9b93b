package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"yardstick/pipeline"
	"yardstick/runner"
	"yardstick/runner/scaleout"
)

func init() {
	register(verb{
		name:    "run",
		summary: "run a definition's cells into a new run directory, or resume one",
		usage:   "FILE|DIR [-t key=value]... [--out DIR] [--only GLOB | --prepare] [--strict] [--experiment NAME] [--order ...] [--seed N] | --resume RUNDIR [--batch NAME] [--only GLOB] [--allow-drift]; two-host batches: --target-host H --loadgen-host H [--target-addr IP]",
		run:     runRun,
	})
}

func runRun(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "run")
	out := fs.String("out", "results", "the results directory; the run goes to OUT/<experiment>/run=<id>/")
	only := fs.String("only", "", "run only cells whose name matches this glob (or this cell id)")
	resume := fs.String("resume", "", "resume this run directory: run its cells that have no checkpoint")
	strict := fs.Bool("strict", false, "exit non-zero when a cell is unfair (as well as when one failed)")
	batch := fs.String("batch", "", "with --resume: run only this batch's cells, record the node, and leave datasets and report to yardstick slurm --merge")
	prepare := fs.Bool("prepare", false, "with a definition: create the run directory (plan, sources, lock) and run nothing; run it later with --resume, or one batch with --resume --batch as a Slurm array task does")
	allowDrift := fs.Bool("allow-drift", false, "with --resume: run on even if binaries or the machine differ from the run's lock (the drift is recorded)")
	pf := addPlanFlags(fs)
	hf := addHostFlags(fs)
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	o, err := runnerOptions(env, *only, *strict)
	if err != nil {
		return err
	}
	if o.Hosts, err = hf.pair(); err != nil {
		return err
	}
	var rd *pipeline.RunDir
	var p *pipeline.Plan
	switch {
	case *prepare && (*resume != "" || *only != ""):
		return usagef("--prepare goes with a definition alone: it runs no cell")
	case *resume != "" && len(args) > 0:
		return usagef("give a definition or --resume RUNDIR, not both")
	case *resume != "" && len(pf.tags) > 0:
		return usagef("-t goes with a definition; --resume runs the plan as it was made, with the tags plan.json records")
	case *resume != "" && *batch != "":
		if rd, err = pipeline.OpenRunDir(*resume); err != nil {
			return err
		}
		if p, err = runner.ResumeBatch(ctx, rd, *batch, *allowDrift, o); err != nil {
			return runnerErr(err)
		}
		o.Engine, _ = scaleout.Detect(engines, os.Getenv)
		return runnerErr(runner.ExecuteBatch(ctx, rd, p, *batch, *allowDrift, o))
	case *batch != "":
		return usagef("--batch goes with --resume RUNDIR")
	case *resume != "":
		if rd, err = pipeline.OpenRunDir(*resume); err != nil {
			return err
		}
		if p, err = runner.Resume(ctx, rd, *allowDrift, o); err != nil {
			return runnerErr(err)
		}
		o.AllowDrift = *allowDrift
	case *allowDrift:
		return usagef("--allow-drift goes with --resume (rerun has its own)")
	case len(args) == 1:
		if p, rd, err = newRun(ctx, env, args[0], abs(env, *out), pf, o, *prepare); err != nil {
			return err
		}
		if *prepare {
			fmt.Fprintf(env.stdout, "run directory: %s\nprepared: %d cell(s) planned, none run; run them with: yardstick run --resume %s\n", rd.Root, len(p.Cells), rd.Root)
			return nil
		}
	default:
		return usagef("want one definition (or --resume RUNDIR), got %d arguments", len(args))
	}
	return runnerErr(runner.Execute(ctx, rd, p, o))
}

// newRun validates and plans the definition (evaluated once), then creates
// the run directory with the lock (plan.json), the sources and the
// environment. A run directory only prepared (--prepare) is not checked
// for hosts: those come with the --resume that runs it.
func newRun(ctx context.Context, env *cliEnv, arg, results string, pf *planFlags, o runner.Options, prepared bool) (*pipeline.Plan, *pipeline.RunDir, error) {
	p, def, err := loadPlan(ctx, env, arg, pf)
	if err != nil {
		return nil, nil, err
	}
	if !prepared {
		if err := checkHosts(p, o); err != nil {
			return nil, nil, err
		}
	}
	srcs := make([]runner.Source, len(def.Sources))
	for i, s := range def.Sources {
		srcs[i] = runner.Source{Path: s.Path, Content: s.Content}
	}
	rd, err := runner.Create(ctx, results, p, srcs, o)
	return p, rd, err
}

// runnerOptions are the options every verb that runs cells shares; it
// parses --only (the one place that does).
func runnerOptions(env *cliEnv, only string, strict bool) (runner.Options, error) {
	sel, err := pipeline.ParseOnly(only)
	if err != nil {
		return runner.Options{}, usagef("%v", err)
	}
	self, err := selfPath()
	if err != nil {
		return runner.Options{}, err
	}
	return runner.Options{
		Self: self, Workdir: env.wd, Only: sel, Strict: strict, Version: Version(),
		Stdout: env.stdout, Stderr: env.stderr, Terminal: isTerminal(env.rawStderr),
	}, nil
}

// runnerErr maps the runner's "already reported" to the CLI's.
func runnerErr(err error) error {
	if errors.Is(err, runner.ErrReported) {
		return errPrinted
	}
	return err
}

func abs(env *cliEnv, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(env.wd, p)
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
