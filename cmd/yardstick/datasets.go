package main

import (
	"context"
	"fmt"
	"path/filepath"

	"yardstick/pipeline"
	"yardstick/stages/tabulate"
)

func init() {
	register(verb{
		name:    "datasets",
		summary: "rebuild a run's Parquet tables from its checkpoints",
		usage:   "RUNDIR",
		run:     runDatasets,
	})
}

// runDatasets rebuilds the tables of one run directory and lists the files
// written with their row counts.
func runDatasets(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "datasets")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one run directory, got %d arguments", len(pos))
	}
	dir := pos[0]
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(env.wd, dir)
	}
	rd, err := pipeline.OpenRunDir(dir)
	if err != nil {
		return err
	}
	s, err := tabulate.Run(rd.WithContext(ctx), Version())
	if err != nil {
		return err
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(env.stderr, "yardstick datasets: warning: %s\n", w)
	}
	for _, f := range s.Files {
		fmt.Fprintf(env.stdout, "%-20s %8d rows\n", filepath.Base(f.Path), f.Rows)
	}
	fmt.Fprintf(env.stdout, "%d cells: %d ok, %d failed, %d pending\n", s.Cells, s.OK, s.Failed, s.Pending)
	return nil
}
