package loadgen

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"yardstick/pipeline/cpuset"
)

// Pin restricts every thread of the calling process to cpus with
// sched_setaffinity. Threads the Go runtime starts later inherit the mask
// from the thread that creates them, so after Pin the whole process stays on
// cpus. The thread list is walked until a pass finds no thread it has not
// already pinned, which closes the race with threads being created meanwhile.
func Pin(cpus []int) error {
	if len(cpus) == 0 {
		return fmt.Errorf("pin: no CPUs given")
	}
	var set unix.CPUSet
	set.Zero()
	for _, c := range cpus {
		if c < 0 || c >= len(set)*64 {
			return fmt.Errorf("pin: CPU %d out of range", c)
		}
		set.Set(c)
	}
	done := map[int]bool{}
	for pass := 0; pass < 10; pass++ {
		tids, err := threadIDs()
		if err != nil {
			return fmt.Errorf("pin: %w", err)
		}
		fresh := 0
		for _, tid := range tids {
			if done[tid] {
				continue
			}
			if err := unix.SchedSetaffinity(tid, &set); err != nil {
				if err == unix.ESRCH { // the thread exited meanwhile
					continue
				}
				return fmt.Errorf("pin thread %d to CPUs %s: %w", tid, cpuset.Of(cpus).String(), err)
			}
			done[tid] = true
			fresh++
		}
		if fresh == 0 {
			return nil
		}
	}
	return nil
}

func threadIDs() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
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
