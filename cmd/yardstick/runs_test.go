package main

import (
	"yardstick/pipeline"

	"github.com/rogpeppe/go-internal/testscript"
)

// runid VAR RUNDIR: set VAR to the run id of RUNDIR (its name without
// "run=").
func init() {
	scriptCmds["runid"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 || neg {
			ts.Fatalf("usage: runid VAR RUNDIR")
		}
		ts.Setenv(args[0], (&pipeline.RunDir{Root: args[1]}).ID())
	}
}
