package procsample

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"syscall"

	"github.com/prometheus/procfs"
)

// ErrGroupGone is returned when no live process is left in the group.
var ErrGroupGone = errors.New("procsample: no live process in the process group")

// GroupPIDs lists, in ascending order, the live processes whose process
// group is pgid, read from /proc/<pid>/stat of every process. Zombies
// (exited, not yet reaped) are not live and are left out; so are processes
// that exit while being read.
func GroupPIDs(pfs procfs.FS, pgid int) ([]int, error) {
	procs, err := pfs.AllProcs()
	if err != nil {
		return nil, fmt.Errorf("procsample: list processes: %w", err)
	}
	var pids []int
	for _, p := range procs {
		st, err := p.Stat()
		if vanished(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("procsample: read stat of pid %d: %w", p.PID, err)
		}
		if st.PGRP == pgid && live(st.State) {
			pids = append(pids, p.PID)
		}
	}
	sort.Ints(pids)
	return pids, nil
}

// live reports whether a process in this /proc state still runs: not a
// zombie (Z) and not dead (X, x).
func live(state string) bool {
	return state != "Z" && state != "X" && state != "x"
}

// vanished reports whether err is what reading /proc gives for a process or
// thread that has gone: ENOENT once it is reaped, ESRCH while it exits.
func vanished(err error) bool {
	return err != nil && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH))
}
