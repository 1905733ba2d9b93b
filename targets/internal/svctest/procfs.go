package svctest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Threads returns the names (comm) of the process's threads, from
// /proc/PID/task/*/comm.
func Threads(t testing.TB, pid int) []string {
	t.Helper()
	dirs, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/comm", pid))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("threads of %d: %v (no /proc/%d/task)", pid, err, pid)
	}
	var names []string
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue // the thread ended meanwhile
		}
		names = append(names, strings.TrimSpace(string(b)))
	}
	return names
}

// CheckNoLogOpen fails the test when the process has a file ending in .log
// open (from /proc/PID/fd): a target whose access log is off.
func CheckNoLogOpen(t testing.TB, pid int) {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasSuffix(target, ".log") {
			t.Errorf("fd %s open on %s with the access log off", fd.Name(), target)
		}
	}
}

// CountMatching returns how many of names match re.
func CountMatching(names []string, re *regexp.Regexp) int {
	n := 0
	for _, s := range names {
		if re.MatchString(s) {
			n++
		}
	}
	return n
}

// CheckThreads fails the test unless exactly want of the process's
// threads have a name (comm) that matches re; why says what set the count.
func CheckThreads(t testing.TB, pid int, re *regexp.Regexp, want int, why string) {
	t.Helper()
	names := Threads(t, pid)
	if n := CountMatching(names, re); n != want {
		slices.Sort(names)
		t.Errorf("%d threads named %s, want %d (%s): %q", n, re, want, why, names)
	}
}
