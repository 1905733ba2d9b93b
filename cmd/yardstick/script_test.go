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

// jvmKey, in a script's Env.Values, says that the scripts of its suite
// run the JVM sample target (bin/sample-jvm.jar, built with the JDK).
type jvmKey struct{}

func TestMain(m *testing.M) {
	testscript.Main(m, scriptCommands)
}

// TestScripts runs testdata/script/*.txtar, the scripts that need Go
// alone and take seconds each (make test). YARDSTICK_UPDATE=1 rewrites
// the golden sections of the scripts from the actual output.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/script", false))
}

// scriptParams are the parameters of the scripts in dir; jvm says whether
// they get bin/sample-jvm.jar besides bin/sample-go.
func scriptParams(dir string, jvm bool) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
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
			e.Values[jvmKey{}] = jvm
			for _, f := range scriptSetups {
				if err := f(e); err != nil {
					return err
				}
			}
			return nil
		},
	}
}
