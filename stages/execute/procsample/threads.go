package procsample

import (
	"fmt"
	"regexp"
	"sort"

	"yardstick/pipeline/cpuset"
)

// ThreadNames returns the names (comm) of the threads of process pid, in
// ascending thread id order. The kernel truncates names to 15 bytes; Go
// threads all carry the binary's name, JVM threads their Java names.
// Threads that exit while being read are left out.
func ThreadNames(pfs FS, pid int) ([]string, error) {
	threads, err := pfs.AllThreads(pid)
	if err != nil {
		return nil, fmt.Errorf("procsample: list threads of pid %d: %w", pid, err)
	}
	sort.Sort(threads)
	names := make([]string, 0, len(threads))
	for _, t := range threads {
		comm, err := t.Comm()
		if vanished(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("procsample: read comm of thread %d of pid %d: %w", t.PID, pid, err)
		}
		names = append(names, comm)
	}
	return names, nil
}

// CountMatching returns how many of names match re, or -1 when re is nil.
func CountMatching(names []string, re *regexp.Regexp) int {
	if re == nil {
		return -1
	}
	n := 0
	for _, name := range names {
		if re.MatchString(name) {
			n++
		}
	}
	return n
}

// Affinity returns, per thread id of process pid, the CPUs the thread may
// run on, from Cpus_allowed_list in /proc/<pid>/task/<tid>/status.
// Threads that exit while being read are left out.
func Affinity(pfs FS, pid int) (map[int]cpuset.Set, error) {
	threads, err := pfs.AllThreads(pid)
	if err != nil {
		return nil, fmt.Errorf("procsample: list threads of pid %d: %w", pid, err)
	}
	aff := make(map[int]cpuset.Set, len(threads))
	for _, t := range threads {
		st, err := t.NewStatus()
		if vanished(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("procsample: read status of thread %d of pid %d: %w", t.PID, pid, err)
		}
		aff[t.PID] = cpuset.Of(st.CpusAllowedList)
	}
	return aff, nil
}
