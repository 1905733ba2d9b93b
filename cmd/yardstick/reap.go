package main

import (
	"context"
	"os/signal"
	"syscall"

	"yardstick/stages/execute"
)

func init() {
	register(verb{
		name:    "reap",
		summary: "(internal) kill a run's process groups when the run's yardstick dies",
		usage:   "(reads +PGID / -PGID lines on stdin)",
		run:     runReap,
		raw:     true,
	})
}

// runReap is started by run with its stdin on a pipe; see execute's
// reaper. It ignores SIGINT and SIGTERM: its job is to outlive its parent
// until the pipe closes.
func runReap(_ context.Context, env *cliEnv, args []string) error {
	if len(args) > 0 {
		return usagef("reap takes no arguments")
	}
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	execute.Reap(env.stdin)
	return nil
}
