package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"yardstick/targets/go/sample"
)

// Scripts start the Go sample target in the background with
// `exec sample-go -port $SAMPLE_PORT &srv&`, then `exec waitport $SAMPLE_PORT`.
func init() {
	scriptCommands["sample-go"] = func() { os.Exit(sample.Main(os.Args[1:], os.Stdout, os.Stderr)) }
	scriptCommands["waitport"] = waitPort
	scriptCmds["waitgrow"] = cmdWaitGrow
	scriptSetups = append(scriptSetups, func(e *testscript.Env) error {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("find a free port: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		e.Setenv("SAMPLE_PORT", strconv.Itoa(port))
		return nil
	})
}

// waitPort waits up to 10 s for something to listen on 127.0.0.1:PORT.
func waitPort() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: waitport PORT")
		os.Exit(2)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+os.Args[1]); err == nil {
			c.Close()
			os.Exit(0)
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Fprintln(os.Stderr, "waitport: nothing listens on port", os.Args[1])
	os.Exit(1)
}

// cmdWaitGrow is the script command waitgrow FILE N: wait (at most 30 s)
// until FILE has N lines more than it has now (a target's access log: the
// requests it has answered since).
func cmdWaitGrow(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: waitgrow FILE N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	lines := func() int {
		b, _ := os.ReadFile(ts.MkAbs(args[0]))
		return bytes.Count(b, []byte("\n"))
	}
	want := lines() + n
	for deadline := time.Now().Add(30 * time.Second); lines() < want; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			ts.Fatalf("%s has %d lines after 30 s, want %d", args[0], lines(), want)
		}
	}
}
