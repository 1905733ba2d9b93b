package sample

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// pinAllThreads is the affinity fault: it restricts every thread of this
// process to cpus with sched_setaffinity, whatever placement the process
// was started with. Threads created later inherit the mask of the thread
// that creates them, so it walks /proc/self/task until a pass finds no
// thread it has not pinned yet.
func pinAllThreads(cpus []int) error {
	var set unix.CPUSet
	set.Zero()
	for _, c := range cpus {
		set.Set(c)
	}
	done := map[int]bool{}
	for pass := 0; ; pass++ {
		if pass == 1000 {
			return errors.New("pin threads: new threads keep appearing")
		}
		ents, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return fmt.Errorf("pin threads: %w", err)
		}
		fresh := 0
		for _, e := range ents {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || done[tid] {
				continue
			}
			if err := unix.SchedSetaffinity(tid, &set); err != nil && !errors.Is(err, unix.ESRCH) { // ESRCH: it has exited
				return fmt.Errorf("pin thread %d: %w", tid, err)
			}
			done[tid] = true
			fresh++
		}
		if fresh == 0 {
			return nil
		}
	}
}
