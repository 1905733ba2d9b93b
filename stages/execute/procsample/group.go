package procsample

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"syscall"

	"golang.org/x/sys/unix"
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

// list lists the processes of the tree, parsing the directory entries in
// place (raw.go). The slice is reused by the next listing.
func (r *reader) list() ([]int, error) {
	fd, path, err := rawOpen(r.path, r.fs.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
	r.path = path
	if err != nil {
		return nil, fmt.Errorf("procsample: list processes: %w", &os.PathError{Op: "open", Path: r.fs.root, Err: err})
	}
	defer rawClose(fd)
	r.pids = r.pids[:0]
	for {
		n, err := rawGetdents(fd, r.dents)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("procsample: list processes: %w", &os.PathError{Op: "getdents", Path: r.fs.root, Err: err})
		}
		if n <= 0 {
			return r.pids, nil
		}
		r.pids = appendDirentIDs(r.pids, r.dents[:n])
	}
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
