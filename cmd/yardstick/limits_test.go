package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["maxrss"] = cmdMaxRSS
}

// cmdMaxRSS runs a program of the script's PATH, as exec does, and fails
// when its peak resident memory (getrusage's maxrss) passes MiB; with !,
// the program must exit non-zero. Its output becomes the script's stdout
// and stderr.
//
//	[!] maxrss MiB PROGRAM [ARG]...
func cmdMaxRSS(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: [!] maxrss MiB PROGRAM [ARG]...")
	}
	limit, err := strconv.Atoi(args[0])
	if err != nil || limit <= 0 {
		ts.Fatalf("maxrss: %q is not a positive number of MiB", args[0])
	}
	prog, err := lookPath(ts.Getenv("PATH"), args[1])
	if err != nil {
		ts.Fatalf("maxrss: %v", err)
	}
	cmd := exec.Command(prog, args[2:]...)
	cmd.Args[0] = args[1] // the test binary dispatches on its name
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = append(os.Environ(), "PATH="+ts.Getenv("PATH"), "HOME="+ts.Getenv("HOME"))
	cmd.Stdout, cmd.Stderr = ts.Stdout(), ts.Stderr()
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		ts.Fatalf("maxrss: %v", err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	peak := ru.Maxrss >> 10 // KiB on Linux
	ts.Logf("%s: peak RSS %d MiB", args[1], peak)
	if peak > int64(limit) {
		ts.Fatalf("%s used %d MiB at its peak, more than %d MiB", args[1], peak, limit)
	}
	if (err != nil) != neg {
		ts.Fatalf("%s: exit status %d", args[1], cmd.ProcessState.ExitCode())
	}
}

// lookPath finds name in the directories of path.
func lookPath(path, name string) (string, error) {
	for _, dir := range strings.Split(path, string(os.PathListSeparator)) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New(name + " not found in PATH")
}
