// Command yardstick declares, validates, plans and runs runtime benchmark
// experiments written in CUE.
//
// Each verb lives in a file of its own (validate.go, plan.go, diff.go, ...)
// and registers itself with [register]. Main dispatches on the first argument
// and maps errors to exit codes: 0 success, 1 invalid input or a failed run,
// 2 a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"yardstick/pipeline/safetext"
)

func main() { os.Exit(Main()) }

// A verb is one subcommand of the CLI.
type verb struct {
	name    string
	summary string
	usage   string // the argument synopsis, without the verb
	run     func(ctx context.Context, env *cliEnv, args []string) error
	// raw verbs write a protocol, not text for a person: their streams
	// are not escaped (loadgen --stdio, reap).
	raw bool
	// untrusted verbs (validate, plan, diff) run on definitions from pull
	// requests, whose text their errors quote: an error is printed on
	// one line (safetext.Line).
	untrusted bool
}

var verbs = map[string]verb{}

func register(v verb) {
	if _, dup := verbs[v.name]; dup {
		panic("yardstick: verb registered twice: " + v.name)
	}
	verbs[v.name] = v
}

// cliEnv is what a verb may touch: its streams and working directory. Tests
// run verbs in-process through testscript, so no verb reads os.Stdout directly.
type cliEnv struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	wd     string
	// rawStdout and rawStderr are the streams before escaping: isTerminal
	// asks rawStderr, and validate --format github writes its workflow
	// commands, escaped by GitHub's rules, to rawStdout.
	rawStdout, rawStderr io.Writer
}

// usageError is returned by a verb for bad arguments; Main exits 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// errPrinted says the verb already reported its problems on stderr; Main
// exits 1 without printing anything more.
var errPrinted = errors.New("errors already printed")

// Main runs the CLI and returns the process exit status.
func Main() int {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "yardstick:", err)
		return 1
	}
	env := &cliEnv{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, wd: wd, rawStdout: os.Stdout, rawStderr: os.Stderr}
	// The first Ctrl-C or SIGTERM cancels ctx: every verb stops at its
	// next read or step and cleans up. Then the signals get their default
	// action back, so a second one ends the process at once, whatever
	// stage it is in (its children die with it: PR_SET_PDEATHSIG).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	return runMain(ctx, env, os.Args[1:])
}

func runMain(ctx context.Context, env *cliEnv, args []string) int {
	if len(args) > 1 && args[0] == "help" {
		// help NAME is NAME -h: the verb's usage and flags.
		if _, ok := verbs[args[1]]; !ok || len(args) > 2 {
			fmt.Fprintf(env.stderr, "yardstick help: unknown command %q\n", safetext.Line(strings.Join(args[1:], " ")))
			printUsage(env.stderr)
			return 2
		}
		args = []string{args[1], "-h"}
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(env.stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "version" || args[0] == "--version" {
		fmt.Fprintln(env.stdout, "yardstick", Version())
		return 0
	}
	v, ok := verbs[args[0]]
	if !ok {
		fmt.Fprintf(env.stderr, "yardstick: unknown command %q\n", args[0])
		printUsage(env.stderr)
		return 2
	}
	if !v.raw {
		// Definitions and run directories are untrusted: whatever a verb
		// prints of them cannot drive the terminal (safetext.Terminal).
		// Each line is kept from being a GitHub Actions workflow command
		// too (safetext.TerminalWriter).
		env = &cliEnv{stdin: env.stdin, stdout: safetext.NewTerminalWriter(env.stdout), stderr: safetext.NewTerminalWriter(env.stderr), wd: env.wd, rawStdout: env.stdout, rawStderr: env.stderr}
	}
	stopProfile := startProfile(v.name)
	err := v.run(ctx, env, args[1:])
	stopProfile()
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(env.stderr, "yardstick %s: %s\nusage: yardstick %s %s\n", v.name, ue.msg, v.name, v.usage)
		return 2
	case errors.Is(err, errPrinted):
		return 1
	case v.untrusted:
		fmt.Fprintf(env.stderr, "yardstick %s: %s\n", v.name, safetext.Line(err.Error()))
		return 1
	default:
		fmt.Fprintf(env.stderr, "yardstick %s: %v\n", v.name, err)
		return 1
	}
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: yardstick <command> [arguments]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(verbs))
	for n := range verbs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, verbs[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'yardstick <command> -h' for the arguments of one command.")
}

// newFlagSet returns a flag set for verb v that reports errors as usage
// errors instead of exiting.
func newFlagSet(env *cliEnv, v string) *flag.FlagSet {
	fs := flag.NewFlagSet("yardstick "+v, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "usage: yardstick %s %s\n", v, verbs[v].usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args with flags allowed anywhere among the positional
// arguments (Go's flag package stops at the first positional one): it
// parses, takes one positional argument, and parses the rest again. "--"
// ends the flags: every argument after it is positional, even one that
// starts with a dash (a file named "-x.cue").
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
