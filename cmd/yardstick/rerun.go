package main

import (
	"context"

	"yardstick/pipeline"
	"yardstick/runner"
)

func init() {
	register(verb{
		name:    "rerun",
		summary: "run an earlier run's lock again into a new run directory, refusing if binaries or the machine changed",
		usage:   "RUNDIR|RUN_ID [--only GLOB] [--allow-drift] [--strict] [--out DIR] [--target-host H --loadgen-host H [--target-addr IP]]",
		run:     runRerun,
	})
}

// runRerun executes the lock of an earlier run (plan.json, sources/,
// lock.json) into a new run directory beside it; see runner.Rerun.
func runRerun(ctx context.Context, env *cliEnv, args []string) error {
	fset := newFlagSet(env, "rerun")
	only := fset.String("only", "", "rerun only cells whose name matches this glob (or this cell id)")
	allowDrift := fset.Bool("allow-drift", false, "run even if binaries or the environment differ from the lock (the drift is recorded)")
	strict := fset.Bool("strict", false, "exit non-zero when a cell is unfair (as well as when one failed)")
	out := fset.String("out", "", "the results directory (default: the one holding RUNDIR)")
	hf := addHostFlags(fset)
	args, err := parseFlags(fset, args)
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return usagef("want one run directory (or run id), got %d arguments", len(args))
	}
	o, err := runnerOptions(env, *only, *strict)
	if err != nil {
		return err
	}
	if o.Hosts, err = hf.pair(); err != nil {
		return err
	}
	results := *out
	if results != "" {
		results = abs(env, results)
	}
	lookup := "results"
	if results != "" {
		lookup = results
	}
	dir, err := resolveRun(env, args[0], lookup)
	if err != nil {
		return err
	}
	old, err := pipeline.OpenRunDir(dir)
	if err != nil {
		return err
	}
	rd, p, err := runner.Rerun(ctx, old, results, *allowDrift, o)
	if err != nil {
		return runnerErr(err)
	}
	o.AllowDrift = *allowDrift
	return runnerErr(runner.Execute(ctx, rd, p, o))
}
