package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// profileEnv names a directory: when it is set, every yardstick process
// (the run and the load generators it starts, which inherit the
// environment) writes a CPU profile of its whole life there, as
// <verb>-<pid>.pprof. It is how the figures of docs/design.md#the-cost-of-measuring
// were profiled; nothing is written when it is unset.
const profileEnv = "YARDSTICK_CPUPROFILE"

// startProfile starts the CPU profile profileEnv asks for and returns the
// function that stops and writes it. A profile that cannot be started is
// reported on stderr and the verb runs unprofiled.
func startProfile(verb string) func() {
	dir := os.Getenv(profileEnv)
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", verb, os.Getpid())))
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "yardstick: %s: %v\n", profileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "yardstick: %s: %v\n", profileEnv, err)
		}
	}
}
