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
	return newReader(fs, false).groupPIDs(pgid)
}

func (r *reader) groupPIDs(pgid int) ([]int, error) { return r.groupPIDsInto(pgid, nil) }

// groupPIDsInto is groupPIDs that also records, in known, every process
// it read as a member (true) or not (false).
func (r *reader) groupPIDsInto(pgid int, known map[int]bool) ([]int, error) {
	all, err := r.list()
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, pid := range all {
		member, err := r.isMember(pid, pgid)
		if err != nil {
			return nil, err
		}
		if member {
			pids = append(pids, pid)
		}
		if known != nil {
			known[pid] = member
		}
	}
	sort.Ints(pids)
	return pids, nil
}

// list lists the processes of the tree.
func (r *reader) list() ([]int, error) {
	d, err := os.Open(r.fs.root)
	if err != nil {
		return nil, fmt.Errorf("procsample: list processes: %w", err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("procsample: list processes: %w", err)
	}
	pids := make([]int, 0, len(names))
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// isMember reports whether process pid is a live member of group pgid; a
// process that has gone is not.
func (r *reader) isMember(pid, pgid int) (bool, error) {
	keep := r.keep
	r.keep = false // only the files of members are kept open
	st, err := r.stat(pid)
	r.keep = keep
	if vanished(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("procsample: read stat of pid %d: %w", pid, err)
	}
	return st.pgrp == pgid && live(st.state), nil
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
