package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCommands are the programs test scripts may exec besides yardstick
// itself; other _test files add to it from init functions.
var scriptCommands = map[string]func(){
	"yardstick": func() { os.Exit(Main()) },
}

// scriptCmds are extra script commands (Go functions, not programs); other
// _test files add to it from init functions.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){}

// scriptSetups run for every script, after the built-in set-up; other _test
// files add to it from init functions.
var scriptSetups []func(*testscript.Env) error

func TestMain(m *testing.M) {
	testscript.Main(m, scriptCommands)
}

// TestScripts runs testdata/script/*.txtar. YARDSTICK_UPDATE=1 rewrites the
// golden sections of the scripts from the actual output.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("YARDSTICK_UPDATE") == "1",
		Cmds:                scriptCmds,
		Condition:           scriptCondition, // cgroups_test.go
		Setup: func(e *testscript.Env) error {
			root, err := filepath.Abs("../..")
			if err != nil {
				return err
			}
			e.Setenv("REPO", root)
			for _, f := range scriptSetups {
				if err := f(e); err != nil {
					return err
				}
			}
			return nil
		},
	})
}
