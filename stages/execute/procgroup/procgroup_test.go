package procgroup

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func cpusAllowed(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatal("no Cpus_allowed_list")
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestStartPinnedInOwnGroup: the child runs in a process group of its own,
// pinned to the CPU set, and yardstick's own threads are not pinned.
func TestStartPinnedInOwnGroup(t *testing.T) {
	p, err := Start(Spec{Argv: []string{"sleep", "30"}, CPUs: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(time.Second) })
	pgid, err := syscall.Getpgid(p.PID())
	if err != nil {
		t.Fatal(err)
	}
	if pgid != p.PID() || pgid == syscall.Getpgrp() {
		t.Errorf("child pgid %d, pid %d, ours %d: want a group of its own", pgid, p.PID(), syscall.Getpgrp())
	}
	if got := cpusAllowed(t, p.PID()); got != "0" {
		t.Errorf("child Cpus_allowed_list %q, want 0", got)
	}
	// Only the thread that forked (locked to the child until it is
	// reaped) carries the child's mask; every other thread of ours keeps
	// the process's.
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	pinned := 0
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/status")
		if err != nil {
			continue
		}
		if strings.Contains(string(b), "Cpus_allowed_list:\t0\n") {
			pinned++
		}
	}
	if pinned > 1 {
		t.Errorf("%d of our %d threads are pinned to the child's CPU set; want at most the forking thread", pinned, len(tasks))
	}
}

// TestStopKillsTheGroup: a child that ignores SIGTERM and has a child of
// its own is killed, grandchild included, after the grace period.
func TestStopKillsTheGroup(t *testing.T) {
	first := make(chan string, 1)
	p, err := Start(Spec{Argv: []string{"sh", "-c", "trap '' TERM; sleep 30 & echo $!; wait"}, Stdout: &lineWriter{ch: first}})
	if err != nil {
		t.Fatal(err)
	}
	var grandchild string
	select {
	case grandchild = <-first:
	case <-time.After(5 * time.Second):
		t.Fatal("no grandchild pid")
	}
	start := time.Now()
	p.Stop(300 * time.Millisecond)
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Errorf("stopped after %s: SIGTERM should have been ignored", el)
	}
	if st := p.ExitStatus(); st != "signal: killed" {
		t.Errorf("exit status %q, want signal: killed", st)
	}
	if GroupAlive(p.PID()) {
		t.Errorf("Stop returned with the process group still alive")
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		if _, err := os.Stat("/proc/" + strings.TrimSpace(grandchild)); os.IsNotExist(err) || zombie(strings.TrimSpace(grandchild)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %s survived Stop", grandchild)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func zombie(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] == 'Z'
}

type lineWriter struct {
	ch  chan string
	buf []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	if i := strings.IndexByte(string(l.buf), '\n'); i >= 0 && l.ch != nil {
		l.ch <- string(l.buf[:i])
		l.ch = nil
	}
	return len(p), nil
}

func TestExitStatus(t *testing.T) {
	p, err := Start(Spec{Argv: []string{"sh", "-c", "exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	if got := p.ExitStatus(); got != "exit 3" {
		t.Errorf("ExitStatus = %q", got)
	}
	if _, err := Start(Spec{Argv: []string{"/nonexistent/binary"}}); err == nil {
		t.Error("starting a missing binary gave no error")
	}
	if _, err := Start(Spec{}); err == nil {
		t.Error("empty argv gave no error")
	}
}
