package main

import (
	"context"

	"yardstick/stages/report"
)

func init() {
	register(verb{
		name:    "compare",
		summary: "join two runs by cell id: per-metric ratios with noise-aware verdicts, what changed around them first",
		usage:   "RUN_A RUN_B [--format text|markdown]",
		run:     runCompare,
	})
}

func runCompare(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "compare")
	format := fs.String("format", "text", "output format: text or markdown")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) != 2 {
		return usagef("want RUN_A and RUN_B, got %d argument(s)", len(args))
	}
	if *format != "text" && *format != "markdown" {
		return usagef("--format %q: want text or markdown", *format)
	}
	c, err := report.Compare(abs(env, args[0]), abs(env, args[1]))
	if err != nil {
		return err
	}
	return c.Write(env.stdout, *format)
}
