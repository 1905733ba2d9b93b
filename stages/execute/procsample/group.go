package procsample

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"syscall"
)

// ErrGroupGone is returned when no live process is left in the group.
var ErrGroupGone = errors.New("procsample: no live process in the process group")

// GroupPIDs lists, in ascending order, the live processes whose process
// group is pgid, read from /proc/<pid>/stat of every process. Zombies
// (exited, not yet reaped) are not live and are left out; so are processes
// that exit while being read.
func GroupPIDs(fs FS, pgid int) ([]int, error) {
	return newReader(fs).groupPIDs(pgid)
}

func (r *reader) groupPIDs(pgid int) ([]int, error) {
	d, err := os.Open(r.fs.root)
	if err != nil {
		return nil, fmt.Errorf("procsample: list processes: %w", err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("procsample: list processes: %w", err)
	}
	var pids []int
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		st, err := r.stat(pid)
		if vanished(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("procsample: read stat of pid %d: %w", pid, err)
		}
		if st.pgrp == pgid && live(st.state) {
			pids = append(pids, pid)
		}
	}
	sort.Ints(pids)
	return pids, nil
}

// live reports whether a process in this /proc state still runs: not a
// zombie (Z) and not dead (X, x).
func live(state byte) bool {
	return state != 'Z' && state != 'X' && state != 'x'
}

// vanished reports whether err is what reading /proc gives for a process or
// thread that has gone: ENOENT once it is reaped, ESRCH while it exits.
func vanished(err error) bool {
	return err != nil && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH))
}
