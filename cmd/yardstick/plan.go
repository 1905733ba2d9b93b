package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"yardstick/pipeline"
	"yardstick/schema"
	"yardstick/stages/plan"
	"yardstick/stages/validate"
)

func init() {
	register(verb{
		name:      "plan",
		summary:   "expand a definition into its ordered cells with exact argv and env (runs nothing)",
		usage:     "FILE|DIR [-t key=value]... [--json] [--order sequential|interleaved|random] [--seed N] [--experiment NAME]",
		run:       runPlan,
		untrusted: true,
	})
}

// defFlags are the limits every verb that evaluates a definition shares.
type defFlags struct {
	evalTimeout time.Duration
	evalMemory  int
	maxCells    int
	tags        tagFlag
}

// tagFlag collects repeated -t key=value flags.
type tagFlag []string

func (t *tagFlag) String() string     { return strings.Join(*t, " ") }
func (t *tagFlag) Set(s string) error { *t = append(*t, s); return nil }

func addDefFlags(fs *flag.FlagSet) *defFlags {
	df := &defFlags{}
	fs.Var(&df.tags, "t", "key=value: inject value into the definition's fields marked @tag(key), as cue -t does (repeatable)")
	fs.DurationVar(&df.evalTimeout, "eval-timeout", validate.DefaultTimeout, "give up evaluating a definition after this long")
	fs.IntVar(&df.evalMemory, "eval-memory", validate.DefaultMemory>>20, "give up evaluating a definition whose heap grows past this many MiB")
	fs.IntVar(&df.maxCells, "max-cells", validate.DefaultMaxCells, "refuse an experiment with more cells than this (counted before include/exclude)")
	return df
}

func (df *defFlags) options() (validate.Options, error) {
	if df.evalTimeout <= 0 {
		return validate.Options{}, usagef("--eval-timeout must be positive")
	}
	if df.maxCells <= 0 {
		return validate.Options{}, usagef("--max-cells must be positive")
	}
	if df.evalMemory <= 0 || df.evalMemory > 1<<20 {
		return validate.Options{}, usagef("--eval-memory must be between 1 and %d MiB", 1<<20)
	}
	tags, err := schema.ParseTags(df.tags)
	if err != nil {
		return validate.Options{}, usagef("%v", err)
	}
	return validate.Options{Machine: validate.ThisMachine(), MaxCells: df.maxCells, Timeout: df.evalTimeout, Tags: tags, Memory: int64(df.evalMemory) << 20}, nil
}

// planFlags are the flags plan, diff and run share.
type planFlags struct {
	*defFlags
	order      string
	seed       int64
	experiment string
	fs         *flag.FlagSet
}

func addPlanFlags(fs *flag.FlagSet) *planFlags {
	pf := &planFlags{fs: fs, defFlags: addDefFlags(fs)}
	fs.StringVar(&pf.order, "order", "", "override the order: sequential, interleaved or random")
	fs.Int64Var(&pf.seed, "seed", 0, "seed for --order random (default: the definition's)")
	fs.StringVar(&pf.experiment, "experiment", "", "the experiment to plan when a definition holds several")
	return pf
}

func (pf *planFlags) options() (plan.Options, error) {
	var o plan.Options
	if pf.order != "" && !slices.Contains(plan.Orders, pf.order) {
		return o, usagef("--order %q: want one of %s", pf.order, strings.Join(plan.Orders, ", "))
	}
	o.Order = pf.order
	seedSet := false
	pf.fs.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
	if seedSet {
		if pf.seed < 0 {
			return o, usagef("--seed must not be negative")
		}
		o.Seed = &pf.seed
	}
	return o, nil
}

// loadPlan validates the definition arg and expands it; the definition is
// evaluated once and returned with its plan, so that a run records the
// same bytes it planned from. Findings are printed on stderr; an invalid
// definition gives errPrinted.
func loadPlan(ctx context.Context, env *cliEnv, arg string, pf *planFlags) (*pipeline.Plan, *schema.Definition, error) {
	return loadPlanWith(ctx, env, arg, pf, func(ctx context.Context, vopts validate.Options) (*validate.Result, error) {
		return validate.Load(ctx, env.wd, arg, vopts)
	})
}

// loadPlanWith is loadPlan with the definition loaded by load (from
// files, or from sources read elsewhere).
func loadPlanWith(ctx context.Context, env *cliEnv, arg string, pf *planFlags, load func(context.Context, validate.Options) (*validate.Result, error)) (*pipeline.Plan, *schema.Definition, error) {
	opts, err := pf.options()
	if err != nil {
		return nil, nil, err
	}
	vopts, err := pf.defFlags.options()
	if err != nil {
		return nil, nil, err
	}
	// One deadline for the evaluation, the checks and the expansion.
	ctx, cancel := validate.Deadline(ctx, vopts)
	defer cancel()
	res, err := load(ctx, vopts)
	if err != nil {
		return nil, nil, err
	}
	validate.Print(env.stderr, res.Findings)
	if !res.Valid() {
		return nil, nil, errPrinted
	}
	e, err := res.Definition.Experiment(pf.experiment)
	if err != nil {
		return nil, nil, err
	}
	p, err := plan.Expand(ctx, res.Definition, e, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("plan %s: %w", arg, err)
	}
	return p, res.Definition, nil
}

func runPlan(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "plan")
	asJSON := fs.Bool("json", false, "print the plan as one JSON object")
	pf := addPlanFlags(fs)
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return usagef("want exactly one definition, got %d", len(args))
	}
	p, _, err := loadPlan(ctx, env, args[0], pf)
	if err != nil {
		return err
	}
	if *asJSON {
		return plan.WriteJSON(env.stdout, p)
	}
	if err := plan.WriteText(env.stdout, p); err != nil {
		return fmt.Errorf("write plan: %w", err)
	}
	return nil
}
