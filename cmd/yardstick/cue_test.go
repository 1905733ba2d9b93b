package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// The cue command of the scripts is the cue CLI at the version go.mod pins
// (a tool of the module: go tool cue), so that what the README documents is
// tested with the cue that yardstick itself links.
func init() {
	scriptCmds["cue"] = cmdCue
	scriptCmds["samefindings"] = cmdSameFindings
	scriptSetups = append(scriptSetups, func(e *testscript.Env) error {
		e.Setenv("CUE_VERSION", cueVersion())
		return nil
	})
}

var cueBin struct {
	once sync.Once
	path string
	err  error
}

// cueVersion is the version of cuelang.org/go this test binary links.
func cueVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "cuelang.org/go" {
				return d.Version
			}
		}
	}
	return "unknown"
}

// cmdCue runs the pinned cue CLI, built once by `go tool -n cue` (into the
// Go build cache, so nothing is left behind).
func cmdCue(ts *testscript.TestScript, neg bool, args []string) {
	cueBin.once.Do(func() {
		cmd := exec.Command("go", "tool", "-n", "cue")
		cmd.Dir = ts.Getenv("REPO")
		out, err := cmd.Output()
		cueBin.path, cueBin.err = strings.TrimSpace(string(out)), err
		if ee, ok := err.(*exec.ExitError); ok {
			cueBin.err = fmt.Errorf("go tool -n cue: %v\n%s", err, ee.Stderr)
		}
	})
	if cueBin.err != nil {
		ts.Fatalf("%v", cueBin.err)
	}
	err := ts.Exec(cueBin.path, args...)
	if err != nil {
		ts.Logf("[%v]", err)
		if !neg {
			ts.Fatalf("unexpected cue failure")
		}
		return
	}
	if neg {
		ts.Fatalf("unexpected cue success")
	}
}

// finding is one line of yardstick validate: file:line:col: path: message.
var finding = regexp.MustCompile(`^([^:\s]+:\d+:\d+): ([^:]+): `)

// cmdSameFindings FILE: every finding of yardstick validate saved in FILE
// is in the last command's stderr as cue vet reports it: the same field
// path and the same file:line:col.
func cmdSameFindings(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: samefindings VALIDATE_STDERR")
	}
	vet := ts.ReadFile("stderr")
	n := 0
	for _, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		m := finding.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n++
		pos := "./" + filepath.ToSlash(m[1])
		if !strings.Contains(vet, "\n    "+pos+"\n") {
			ts.Fatalf("cue vet does not report %s (validate: %s)", pos, line)
		}
		if !strings.Contains("\n"+vet, "\n"+m[2]+":") {
			ts.Fatalf("cue vet does not report %s (validate: %s)", m[2], line)
		}
	}
	if n == 0 {
		ts.Fatalf("no file:line:col finding in %s", args[0])
	}
}
