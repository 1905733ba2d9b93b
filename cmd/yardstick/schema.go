package main

import (
	"context"

	"yardstick/schema"
)

func init() {
	register(verb{
		name:    "schema",
		summary: "print the embedded CUE schema (for cue vet)",
		usage:   "",
		run:     runSchema,
	})
}

func runSchema(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "schema")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) > 0 {
		return usagef("schema takes no arguments")
	}
	_, err = env.stdout.Write(schema.Source())
	return err
}
