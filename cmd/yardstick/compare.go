package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"yardstick/pipeline"
	"yardstick/pipeline/safetext"
	"yardstick/stages/fairness"
	"yardstick/stages/report"
)

func init() {
	register(verb{
		name:    "compare",
		summary: "join two runs by cell id: per-metric ratios with noise-aware verdicts, what changed around them first",
		usage:   "RUN_A RUN_B [--format text|markdown] [--results DIR] | --against-history N RUN",
		run:     runCompare,
	})
}

func runCompare(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "compare")
	format := fs.String("format", "text", "output format: text or markdown")
	results := fs.String("results", "results", "where run ids are looked up (yardstick runs lists them)")
	against := fs.Int("against-history", 0, "decide RUN against the last N earlier runs of its plan under --results, their spread between runs the uncertainty")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *against != 0 {
		return compareAgainstHistory(ctx, env, args, *against, *results, *format)
	}
	if len(args) != 2 {
		return usagef("want RUN_A and RUN_B, got %d argument(s)", len(args))
	}
	if *format != "text" && *format != "markdown" {
		return usagef("--format %q: want text or markdown", *format)
	}
	a, err := resolveRun(env, args[0], *results)
	if err != nil {
		return err
	}
	b, err := resolveRun(env, args[1], *results)
	if err != nil {
		return err
	}
	c, err := report.CompareContext(ctx, a, b)
	if err != nil {
		return err
	}
	if err := writeCrossNode(ctx, env.stdout, a, b, *format); err != nil {
		return err
	}
	return c.Write(env.stdout, *format)
}

// writeCrossNode prints, before the comparison, the cross_node check of
// the batches both runs ran on cluster nodes (nodes/<batch>.json): each
// must have run on nodes with one fingerprint in both. Nothing when
// either run ran on one machine (compare's drift section covers that).
func writeCrossNode(ctx context.Context, w io.Writer, a, b, format string) error {
	na, err := batchNodes(ctx, a)
	if err != nil {
		return err
	}
	nb, err := batchNodes(ctx, b)
	if err != nil {
		return err
	}
	rows := fairness.CompareNodes(na, nb)
	if len(rows) == 0 {
		return nil
	}
	for _, r := range rows {
		outcome := "ok"
		if !r.Pass {
			outcome = "UNFAIR"
		}
		line := fmt.Sprintf("cross_node [batch %s]: %s: %s", r.Batch, outcome, *r.Detail)
		if format == "markdown" {
			line = "- " + safetext.MarkdownCell(line)
		}
		fmt.Fprintln(w, line)
	}
	_, err = fmt.Fprintln(w)
	return err
}

// batchNodes reads the node records of a run directory; none for a
// directory without plan.json or node records.
func batchNodes(ctx context.Context, dir string) ([]fairness.BatchNode, error) {
	rd := (&pipeline.RunDir{Root: dir}).WithContext(ctx)
	p, err := rd.ReadPlan()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	nodes, err := rd.ReadAllNodes(p)
	if err != nil {
		return nil, err
	}
	return fairness.NodesOf(p, nodes), nil
}
