package procsample

import (
	"fmt"
	"os"
	"regexp"
	"time"
)

// userHZ is USER_HZ, the unit of the CPU times in /proc/<pid>/stat: 100 on
// every Linux architecture, independent of the kernel's HZ. procfs divides
// by the same constant in ProcStat.CPUTime, which gives only the sum of user
// and system time.
const userHZ = 100

// Sample is one reading of a process group, summed over its live processes.
// It maps 1:1 to a row of the samples table.
type Sample struct {
	// Time is when the reading started.
	Time time.Time `json:"time"`
	// RSSBytes is the resident set size (pages from /proc/<pid>/stat times
	// the page size).
	RSSBytes int64 `json:"rss_bytes"`
	// CPUUserSeconds and CPUSysSeconds are the CPU time spent so far in user
	// and kernel mode, including that of children the group's processes
	// have waited for (cutime, cstime), so that the sum does not drop when
	// a wrapper's child exits. Only differences between samples are
	// meaningful.
	CPUUserSeconds float64 `json:"cpu_user_seconds"`
	CPUSysSeconds  float64 `json:"cpu_sys_seconds"`
	// Threads is the number of threads (those listed in /proc/<pid>/task
	// that were still there when their files were read).
	Threads int `json:"threads"`
	// MatchedThreads is the number of threads whose name (comm, at most 15
	// bytes) matches the sample's pattern, -1 when there is no pattern.
	MatchedThreads int `json:"matched_threads"`
	// VoluntaryCtxSwitches and NonvoluntaryCtxSwitches are summed over the
	// live threads of every process (see the package documentation).
	VoluntaryCtxSwitches    int64 `json:"voluntary_ctx_switches"`
	NonvoluntaryCtxSwitches int64 `json:"nonvoluntary_ctx_switches"`
	// PIDs is the number of processes the sample sums over.
	PIDs int `json:"pids"`
}

// Take reads one Sample of the process group pgid. re selects the threads
// counted in MatchedThreads; nil means no pattern (MatchedThreads is -1).
// Processes and threads that exit during the reading are left out. When no
// process of the group is left, Take returns the (empty) sample and
// ErrGroupGone.
func Take(fs FS, pgid int, re *regexp.Regexp) (Sample, error) {
	start := time.Now()
	r := newReader(fs, false)
	pids, err := r.groupPIDs(pgid)
	if err != nil {
		s := Sample{Time: start, MatchedThreads: -1}
		if re != nil {
			s.MatchedThreads = 0
		}
		return s, err
	}
	s, _, err := r.sample(pids, pgid, re)
	s.Time = start
	return s, err
}

// sample reads one Sample summed over pids, members of group pgid. It also
// returns how many of them were gone (exited, a zombie, or moved to
// another group); r.sampled lists the others.
func (r *reader) sample(pids []int, pgid int, re *regexp.Regexp) (Sample, int, error) {
	s := Sample{Time: time.Now(), MatchedThreads: -1}
	if re != nil {
		s.MatchedThreads = 0
	}
	gone := 0
	r.sampled = r.sampled[:0]
	for _, pid := range pids {
		ok, err := r.addProc(&s, pid, pgid, re)
		if err != nil {
			return s, gone, fmt.Errorf("procsample: sample pid %d of group %d: %w", pid, pgid, err)
		}
		if ok {
			s.PIDs++
			r.sampled = append(r.sampled, pid)
		} else {
			gone++
		}
	}
	if s.PIDs == 0 {
		return s, gone, fmt.Errorf("%w (pgid %d)", ErrGroupGone, pgid)
	}
	return s, gone, nil
}

// addProc adds process pid to s. It reports false, and leaves s as it was,
// when the process has gone, turned into a zombie or left group pgid.
func (r *reader) addProc(s *Sample, pid, pgid int, re *regexp.Regexp) (bool, error) {
	st, err := r.stat(pid)
	if vanished(err) || (err == nil && (!live(st.state) || st.pgrp != pgid)) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	threads, err := r.threads(pid)
	if vanished(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("list threads: %w", err)
	}
	// Threads, matched threads and context switches all count the threads
	// of this one listing that were still there when read: num_threads
	// in stat, read before the listing, can miss a thread started since,
	// and then more threads matched than there were.
	var listed, matched int
	var vol, nonvol uint64
	for _, tid := range threads {
		match := false
		if re != nil {
			comm, err := r.comm(pid, tid)
			if vanished(err) {
				continue
			}
			if err != nil {
				return false, fmt.Errorf("read comm of thread %d: %w", tid, err)
			}
			match = re.MatchString(comm)
		}
		v, n, err := r.ctxSwitches(pid, tid)
		if vanished(err) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("read status of thread %d: %w", tid, err)
		}
		listed++
		if match {
			matched++
		}
		vol += v
		nonvol += n
	}
	s.RSSBytes += st.rssPages * int64(pageSize)
	s.CPUUserSeconds += float64(st.utime+st.cutime) / userHZ
	s.CPUSysSeconds += float64(st.stime+st.cstime) / userHZ
	s.Threads += listed
	if re != nil {
		s.MatchedThreads += matched
	}
	s.VoluntaryCtxSwitches += int64(vol)
	s.NonvoluntaryCtxSwitches += int64(nonvol)
	return true, nil
}

var pageSize = os.Getpagesize()
