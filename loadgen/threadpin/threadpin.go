// Package threadpin restricts every thread of the calling process to a set
// of CPUs. It is the one thread-pinning walk of the project: the load
// generator pins itself with it ([yardstick/loadgen.Pin]) and the Go sample
// target's affinity fault re-pins itself with it.
//
// sched_setaffinity applies to one thread. Threads created later inherit
// the mask of the thread that creates them, so pinning the threads that
// exist is enough once no new one appears meanwhile: [All] walks
// /proc/self/task until a pass finds no thread it has not pinned, and
// reports failure when that does not happen within [MaxPasses] passes.
//
// The package is Linux-only (sched_setaffinity, /proc).
package threadpin

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// MaxPasses bounds the walk of [All]: a process whose threads keep
// appearing for this many passes is not reported as pinned.
const MaxPasses = 100

// ErrUnsettled is returned, wrapped, by [All] when new threads were still
// appearing after MaxPasses passes: some thread may run outside the set.
var ErrUnsettled = errors.New("threadpin: new threads kept appearing")

// All restricts every thread of the calling process to cpus. It fails on
// an empty or out-of-range set, on a thread that cannot be pinned (a
// thread that exits meanwhile is skipped), and with [ErrUnsettled] when
// the thread list does not settle.
func All(cpus []int) error {
	set, err := maskOf(cpus)
	if err != nil {
		return err
	}
	return walk(ThreadIDs, func(tid int) error {
		if err := unix.SchedSetaffinity(tid, &set); err != nil {
			return fmt.Errorf("threadpin: pin thread %d to CPUs %s: %w", tid, list(cpus), err)
		}
		return nil
	})
}

// walk pins, with pin, every thread that threads lists, pass after pass,
// until a pass finds no thread it has not pinned. A thread that has exited
// (ESRCH) is skipped.
func walk(threads func() ([]int, error), pin func(tid int) error) error {
	done := map[int]bool{}
	for range MaxPasses {
		tids, err := threads()
		if err != nil {
			return fmt.Errorf("threadpin: %w", err)
		}
		fresh := 0
		for _, tid := range tids {
			if done[tid] {
				continue
			}
			if err := pin(tid); err != nil {
				if errors.Is(err, unix.ESRCH) { // the thread exited meanwhile
					continue
				}
				return err
			}
			done[tid] = true
			fresh++
		}
		if fresh == 0 {
			return nil
		}
	}
	return fmt.Errorf("%w after %d passes (%d threads pinned)", ErrUnsettled, MaxPasses, len(done))
}

// list writes cpus as "0,1,3" for messages.
func list(cpus []int) string {
	b := make([]byte, 0, 4*len(cpus))
	for i, c := range cpus {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(c), 10)
	}
	return string(b)
}

func maskOf(cpus []int) (unix.CPUSet, error) {
	var set unix.CPUSet
	set.Zero()
	if len(cpus) == 0 {
		return set, errors.New("threadpin: no CPUs given")
	}
	for _, c := range cpus {
		if c < 0 || c >= len(set)*64 {
			return set, fmt.Errorf("threadpin: CPU %d out of range", c)
		}
		set.Set(c)
	}
	return set, nil
}

// ThreadIDs lists the thread ids of the calling process, from
// /proc/self/task.
func ThreadIDs() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}
