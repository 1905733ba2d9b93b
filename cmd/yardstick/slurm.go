package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"yardstick/pipeline"
	"yardstick/runner"
	"yardstick/runner/scaleout"
	"yardstick/runner/slurm"
)

func init() {
	register(verb{
		name:    "slurm",
		summary: "run a definition's batches as a Slurm job array, one batch per node, merged into one run",
		usage: "FILE|DIR [--out DIR] [--only GLOB] [--sbatch-arg ARG]... [--wait] [--experiment NAME] [--order ...] [--seed N]" +
			" | --resume RUNDIR [--sbatch-arg ARG]... [--wait] | --status RUNDIR | --merge RUNDIR",
		run: runSlurm,
	})
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// slurmFlags are the flags of the slurm verb.
type slurmFlags struct {
	out, only, resume, status, merge *string
	sbatchArgs                       stringList
	wait                             *bool
	plan                             *planFlags
}

func runSlurm(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "slurm")
	var f slurmFlags
	f.out = fs.String("out", "results", "the results directory, on a filesystem every node shares; the run goes to OUT/<experiment>/run=<id>/")
	f.only = fs.String("only", "", "run only cells whose name matches this glob (or this cell id)")
	fs.Var(&f.sbatchArgs, "sbatch-arg", "an argument for every sbatch command line, such as --partition=NAME (repeatable)")
	f.wait = fs.Bool("wait", false, "block until the merge job has ended, then print its summary; exit 1 if the run did not end well")
	f.resume = fs.String("resume", "", "submit again the batches of this run directory that have cells left, and a new merge job")
	f.status = fs.String("status", "", "print cells done per batch and the Slurm jobs' states of this run directory")
	f.merge = fs.String("merge", "", "what the merge job runs: fairness checks, datasets and report of this run directory")
	f.plan = addPlanFlags(fs)
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := checkSlurmArgs(&f, args); err != nil {
		return err
	}
	o, err := runnerOptions(env, *f.only, false)
	if err != nil {
		return err
	}
	switch {
	case *f.merge != "":
		return slurmMerge(env, abs(env, *f.merge), o)
	case *f.status != "":
		rd, err := pipeline.OpenRunDir(abs(env, *f.status))
		if err != nil {
			return err
		}
		p, err := rd.ReadPlan()
		if err != nil {
			return err
		}
		return slurm.WriteStatus(ctx, env.stdout, rd, p)
	}
	return slurmSubmit(ctx, env, &f, args, o)
}

// checkSlurmArgs refuses flags that do not go together.
func checkSlurmArgs(f *slurmFlags, args []string) error {
	modes := 0
	for _, m := range []string{*f.resume, *f.status, *f.merge} {
		if m != "" {
			modes++
		}
	}
	switch {
	case modes > 1:
		return usagef("give one of --resume, --status and --merge")
	case modes == 1 && len(args) > 0:
		return usagef("give a definition or a run directory, not both")
	case modes == 0 && len(args) != 1:
		return usagef("want one definition (or --resume, --status or --merge RUNDIR), got %d arguments", len(args))
	case modes == 1 && *f.only != "":
		return usagef("--only goes with a definition: a resubmission keeps the first submission's")
	case (*f.status != "" || *f.merge != "") && (*f.wait || len(f.sbatchArgs) > 0):
		return usagef("--wait and --sbatch-arg go with a definition or --resume")
	}
	return nil
}

// engines are the scale-out engines a batch's task may run under.
var engines = []scaleout.Engine{slurm.Engine{}}

// slurmMerge is the merge job: runner.Merge with the submission's --only,
// then how each task of the latest submission ended.
func slurmMerge(env *cliEnv, dir string, o runner.Options) error {
	rd, p, err := openVerified(dir)
	if err != nil {
		return err
	}
	if prep, err := slurm.ReadPrepared(rd); err == nil {
		o.Only = prep.Only
	}
	o.Engine = slurm.Engine{}
	merr := runner.Merge(rd, p, o)
	subs, err := slurm.ReadSubmissions(rd)
	if err != nil {
		return err
	}
	if len(subs) > 0 {
		if err := slurm.WriteTasks(env.stderr, rd, &subs[len(subs)-1]); err != nil {
			return err
		}
	}
	return runnerErr(merr)
}

// slurmSubmit creates the run directory (or opens it, with --resume),
// submits the array and the merge job, and with --wait waits for the
// merge job.
func slurmSubmit(ctx context.Context, env *cliEnv, f *slurmFlags, args []string, o runner.Options) error {
	if err := slurm.Check(); err != nil {
		return err
	}
	so := slurm.Options{Self: o.Self, Workdir: env.wd, Only: o.Only, SbatchArgs: f.sbatchArgs, Stdout: env.stdout, Stderr: env.stderr}
	var rd *pipeline.RunDir
	var p *pipeline.Plan
	var sub *slurm.Submission
	var err error
	if *f.resume != "" {
		if rd, p, err = openVerified(abs(env, *f.resume)); err != nil {
			return err
		}
		if sub, err = slurm.Resume(ctx, rd, p, so); err != nil {
			return err
		}
	} else {
		if p, rd, err = newRun(ctx, env, args[0], abs(env, *f.out), f.plan, o, false); err != nil {
			return err
		}
		if sub, err = slurm.Submit(ctx, rd, p, so); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.stdout, "run directory: %s\nsubmitted: array job %s (batches %s), merge job %s\n",
		rd.Root, sub.ArrayJob, strings.Join(sub.Batches, ", "), sub.MergeJob)
	if !*f.wait {
		fmt.Fprintf(env.stdout, "follow it with: yardstick slurm --status %s\n", rd.Root)
		return nil
	}
	code, err := slurm.Wait(ctx, rd, p, sub, so, 2*time.Second)
	if err != nil {
		return err
	}
	if code != 0 {
		fmt.Fprintf(env.stderr, "merge job %s exited %d; yardstick slurm --status %s says which task failed\n", sub.MergeJob, code, rd.Root)
		return errPrinted
	}
	return nil
}

// openVerified opens a run directory and its plan, checked as run
// --resume checks it (runner.Verify).
func openVerified(dir string) (*pipeline.RunDir, *pipeline.Plan, error) {
	rd, err := pipeline.OpenRunDir(dir)
	if err != nil {
		return nil, nil, err
	}
	p, err := rd.ReadPlan()
	if err != nil {
		return nil, nil, err
	}
	if err := runner.Verify(rd, p); err != nil {
		return nil, nil, err
	}
	return rd, p, nil
}
