package loadgen

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"yardstick/loadgen/threadpin"
)

// Pin restricts every thread of the calling process to cpus with
// sched_setaffinity (package threadpin). Threads the Go runtime starts
// later inherit the mask from the thread that creates them, so after Pin
// the whole process stays on cpus. It fails when some thread could not be
// pinned or the thread list did not settle.
func Pin(cpus []int) error {
	if err := threadpin.All(cpus); err != nil {
		return fmt.Errorf("pin: %w", err)
	}
	return nil
}

func threadIDs() ([]int, error) { return threadpin.ThreadIDs() }

// dedicated is set by Dedicate.
var dedicated atomic.Bool

// Dedicate says that this process exists to run the load generator, pinned
// to cpus (after Pin): the `yardstick loadgen` verb. It sets GOMAXPROCS to
// one P per CPU plus one, unless the environment sets GOMAXPROCS: a P for
// each event loop and one for the aggregator and the protocol, which then
// run beside the loops rather than between them. From then on the event
// loops wait in epoll with a raw system call, holding their Ps, so that the
// runtime does not retake a waiting loop's P (which woke threads on the
// loops' CPUs). A process that runs other work beside the load, such as a
// test with its own server, must not call it: with no P to spare, the loops
// would starve that work.
func Dedicate(cpus []int) {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(len(cpus) + 1)
	}
	dedicated.Store(true)
}

// CPUTime is the CPU time a process has used, from getrusage.
type CPUTime struct {
	User, System time.Duration
}

// Total is user plus system time.
func (c CPUTime) Total() time.Duration { return c.User + c.System }

// Sub returns c minus earlier.
func (c CPUTime) Sub(earlier CPUTime) CPUTime {
	return CPUTime{User: c.User - earlier.User, System: c.System - earlier.System}
}

// SelfCPU returns the CPU time the calling process has used so far
// (getrusage RUSAGE_SELF: all its threads).
func SelfCPU() (CPUTime, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return CPUTime{}, fmt.Errorf("getrusage: %w", err)
	}
	return CPUTime{
		User:   time.Duration(ru.Utime.Nano()),
		System: time.Duration(ru.Stime.Nano()),
	}, nil
}
