package main

import (
	"context"
	"fmt"

	"yardstick/pipeline"
	"yardstick/stages/plan"
	"yardstick/stages/validate"
)

func init() {
	register(verb{
		name:      "diff",
		summary:   "show the cells a change to a definition adds, removes or alters (runs nothing)",
		usage:     "OLD NEW | --base REF NEW [-t key=value]... [--format text|markdown] [--experiment NAME] [--order ...] [--seed N]",
		run:       runDiff,
		untrusted: true,
	})
}

// runDiff plans OLD and NEW (files or directories), or NEW at git revision
// --base and NEW, and prints what changed.
// It exits 0 whether or not anything changed: a diff is a report, not a
// check.
func runDiff(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "diff")
	format := fs.String("format", "text", "output format: text or markdown")
	base := fs.String("base", "", "read OLD from git: NEW as it is at this revision (git ls-tree and cat-file only)")
	pf := addPlanFlags(fs)
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *base != "" && len(args) == 1 {
		args = []string{*base + ":" + args[0], args[0]}
	} else if len(args) != 2 || *base != "" {
		return usagef("want OLD and NEW, or --base REF and NEW, got %d argument(s)", len(args))
	}
	if *format != "text" && *format != "markdown" {
		return usagef("--format %q: want text or markdown", *format)
	}
	oldPlan, err := loadOld(ctx, env, args[0], *base, args[1], pf)
	if err != nil {
		return fmt.Errorf("old %s: %w", args[0], err)
	}
	newPlan, _, err := loadPlan(ctx, env, args[1], pf)
	if err != nil {
		return fmt.Errorf("new %s: %w", args[1], err)
	}
	d := plan.Compare(oldPlan, newPlan)
	if *format == "markdown" {
		return plan.WriteDiffMarkdown(env.stdout, d, args[0], args[1])
	}
	return plan.WriteDiffText(env.stdout, d)
}

// loadOld plans the old side: the definition arg, or with base the
// definition newArg as it is at git revision base (label names it).
func loadOld(ctx context.Context, env *cliEnv, label, base, newArg string, pf *planFlags) (*pipeline.Plan, error) {
	if base == "" {
		p, _, err := loadPlan(ctx, env, label, pf)
		return p, err
	}
	srcs, err := gitBase(ctx, env.wd, base, newArg)
	if err != nil {
		return nil, err
	}
	p, _, err := loadPlanWith(ctx, env, label, pf, func(ctx context.Context, vopts validate.Options) (*validate.Result, error) {
		return validate.LoadSources(ctx, label, srcs, vopts)
	})
	return p, err
}
