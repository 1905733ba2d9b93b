package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"yardstick/pipeline"
	"yardstick/stages/execute"
	"yardstick/stages/execute/machine"
)

func init() {
	register(verb{
		name:    "rerun",
		summary: "run an earlier run's lock again into a new run directory, refusing if binaries or the machine changed",
		usage:   "RUNDIR [--only GLOB] [--allow-drift] [--strict] [--out DIR]",
		run:     runRerun,
	})
}

// runRerun executes the lock of an earlier run (plan.json, sources/,
// lock.json) into a new run directory beside it. The experiment files are
// not read: the plan is taken as it was, so the cells and their ids are the
// same months later even if the definition was edited or deleted. Before
// anything runs, the binaries and the machine's fingerprint are compared
// with the lock; any difference is listed and refused unless --allow-drift,
// which records it in the new run's lock.json.
func runRerun(ctx context.Context, env *cliEnv, args []string) error {
	fset := newFlagSet(env, "rerun")
	only := fset.String("only", "", "rerun only cells whose name matches this glob (or this cell id)")
	allowDrift := fset.Bool("allow-drift", false, "run even if binaries or the environment differ from the lock (the drift is recorded)")
	strict := fset.Bool("strict", false, "exit non-zero when a cell is unfair (as well as when one failed)")
	out := fset.String("out", "", "the results directory (default: the one holding RUNDIR)")
	args, err := parseFlags(fset, args)
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return usagef("want one run directory, got %d arguments", len(args))
	}
	if err := execute.ValidateOnly(*only); err != nil {
		return usagef("%v", err)
	}
	old, err := pipeline.OpenRunDir(abs(env, args[0]))
	if err != nil {
		return err
	}
	p, err := old.ReadPlan()
	if err != nil {
		return err
	}
	lock, err := old.ReadLock()
	if err != nil {
		return fmt.Errorf("%s has no usable lock: %w", old.Root, err)
	}
	e := captureEnvironment(ctx, env, p)
	now := machine.Lock(p, env.wd, e)
	drift := lock.Diff(now)
	if len(drift) > 0 {
		if !*allowDrift {
			fmt.Fprintf(env.stderr, "rerun refused: %d difference(s) from the lock of %s:\n", len(drift), old.Root)
			for _, d := range drift {
				fmt.Fprintf(env.stderr, "  %s\n", d)
			}
			fmt.Fprintln(env.stderr, "rerun with --allow-drift to run anyway (the drift is recorded in the new run)")
			return errPrinted
		}
		fmt.Fprintf(env.stderr, "drift from the lock (allowed, recorded in lock.json):\n")
		for _, d := range drift {
			fmt.Fprintf(env.stderr, "  %s\n", d)
		}
	}
	results := *out
	if results == "" {
		// old is results/<experiment>/run=<id>
		results = filepath.Dir(filepath.Dir(old.Root))
	} else {
		results = abs(env, results)
	}
	rd, err := pipeline.CreateRunDir(results, p.Experiment, pipeline.NewRunID(time.Now()))
	if err != nil {
		return err
	}
	if err := copySources(old, rd); err != nil {
		return err
	}
	if err := rd.WritePlan(p); err != nil {
		return err
	}
	if err := pipeline.WriteJSONAtomic(rd.Path("environment.json"), e); err != nil {
		return err
	}
	now.RerunOf, now.Drift = old.ID(), drift
	if err := rd.WriteLock(now); err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "rerun of %s\n", old.Root)
	return executeRun(ctx, env, rd, p, *only, *strict)
}

func abs(env *cliEnv, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(env.wd, p)
}

// copySources copies the definition files as evaluated.
func copySources(from, to *pipeline.RunDir) error {
	src := from.Path("sources")
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("copy sources: %w", err)
		}
		dst := to.Path("sources", rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return pipeline.WriteFileAtomic(dst, b)
	})
}
