package main

import (
	"context"
	"errors"
	"fmt"

	"yardstick/pipeline/safetext"
	"yardstick/stages/validate"
)

func init() {
	register(verb{
		name:      "validate",
		summary:   "check definitions against the schema and the static fairness rules (runs nothing)",
		usage:     "FILE|DIR... [-t key=value]... [--format text|github] [-q]",
		run:       runValidate,
		untrusted: true,
	})
}

// runValidate checks each argument as one definition (a file, or a
// directory loaded as one package) and prints every finding as
// file:line:col: message. It exits 1 when any definition is invalid.
func runValidate(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "validate")
	quiet := fs.Bool("q", false, "print nothing for valid definitions")
	format := fs.String("format", "text", "text (file:line:col: message on stderr), or github: GitHub Actions ::error and ::warning annotations on stdout")
	df := addDefFlags(fs)
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *format != "text" && *format != "github" {
		return usagef("--format %q: want text or github", *format)
	}
	github := *format == "github"
	opts, err := df.options()
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return usagef("no definition given")
	}
	invalid := false
	for _, a := range args {
		res, err := validate.Load(ctx, env.wd, a, opts)
		if err != nil {
			fmt.Fprintln(env.stderr, safetext.Line(err.Error()))
			if github {
				writeGitHubError(env.rawStdout, a, err)
			}
			if ctx.Err() != nil || errors.Is(err, validate.ErrMemory) {
				// interrupted, or an evaluation that cannot be stopped
				// still runs: check no further definition
				return errPrinted
			}
			invalid = true
			continue
		}
		validate.Print(env.stderr, res.Findings)
		if github {
			writeGitHubFindings(env.rawStdout, res.Findings)
		}
		if !res.Valid() {
			invalid = true
			continue
		}
		if !*quiet {
			for _, e := range res.Definition.Experiments {
				fmt.Fprintf(env.stdout, "%s: experiment %s: valid (%d batch(es))\n", safetext.Line(a), e.Name, len(e.Batches))
			}
		}
	}
	if invalid {
		return errPrinted
	}
	return nil
}
