package cgroup

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// RequireGroups skips t where control groups cannot be made for a reason
// that is not a defect (not root, no cgroup filesystem) and fails it where
// they should work but do not.
func requireGroups(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("not root: control groups cannot be made here")
	}
	if Mode() == "none" {
		t.Skip("no cgroup filesystem at /sys/fs/cgroup")
	}
	if err := Available(); err != nil {
		t.Fatalf("root with a cgroup filesystem (%s), but: %v", Mode(), err)
	}
}

// startIn starts argv in g from a locked thread, as procgroup does.
func startIn(t *testing.T, g *Group, argv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		errc <- g.Start(cmd)
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return cmd
}

func TestQuotaThrottles(t *testing.T) {
	requireGroups(t)
	// 2ms of CPU per 100ms: a busy loop uses it up in every period even
	// on a machine busy enough to give it a tenth of a CPU.
	const quota = 0.02
	g, err := New(fmt.Sprintf("test-quota-%d", os.Getpid()), Limits{CPUs: quota, MemoryBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := g.Kill(); err != nil {
			t.Error(err)
		}
		if err := g.Delete(); err != nil {
			t.Error(err)
		}
	})
	cmd := startIn(t, g, "sh", "-c", "while :; do :; done")
	go func() { _ = cmd.Wait() }()
	began := time.Now()
	before, err := g.Stat()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	d := mustStat(t, g).Sub(before)
	span := time.Since(began) // the wall time between the two readings, at most
	if d.Throttled == 0 || d.ThrottledNS == 0 {
		t.Errorf("a busy loop under %g CPUs was never throttled: %+v", quota, d)
	}
	// The quota holds, with three periods of slack: the two readings fall
	// inside periods whose quota may be spent whole, and the kernel lets
	// a period overrun by its accounting slice.
	if max := quota*float64(span.Nanoseconds()) + 3*quota*1e8; float64(d.CPUNS) > max {
		t.Errorf("used %.3fs of CPU in %s under a %g CPU quota", float64(d.CPUNS)/1e9, span, quota)
	}
	pids, err := g.PIDs()
	if err != nil || len(pids) != 1 || pids[0] != cmd.Process.Pid {
		t.Errorf("group holds %v (%v), want [%d]", pids, err, cmd.Process.Pid)
	}
}

func mustStat(t *testing.T, g *Group) Stat {
	t.Helper()
	s, err := g.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestKillTakesEscapedChild: a child that leaves its process group with
// setsid and outlives its parent is still in the group, and Kill ends it.
func TestKillTakesEscapedChild(t *testing.T) {
	requireGroups(t)
	g, err := New(fmt.Sprintf("test-kill-%d", os.Getpid()), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Delete() })
	pidFile := t.TempDir() + "/child"
	cmd := startIn(t, g, "sh", "-c", "setsid sh -c 'echo $$ > "+pidFile+"; exec sleep 60' & sleep 0.2; exit 0")
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err := syscallKill0(child); err != nil {
		t.Fatalf("escaped child %d not running before Kill: %v", child, err)
	}
	killed, err := g.Kill()
	if err != nil {
		t.Fatal(err)
	}
	if len(killed) != 1 || killed[0] != child {
		t.Errorf("killed %v, want [%d]", killed, child)
	}
	if err := waitGone(child, 2*time.Second); err != nil {
		t.Error(err)
	}
	if err := g.Delete(); err != nil {
		t.Error(err)
	}
}

func TestMemoryLimitKills(t *testing.T) {
	requireGroups(t)
	g, err := New(fmt.Sprintf("test-mem-%d", os.Getpid()), Limits{MemoryBytes: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = g.Kill(); _ = g.Delete() })
	// A shell that grows a string past 32 MiB is killed by the kernel.
	cmd := startIn(t, g, "sh", "-c", `s=x; while :; do s="$s$s"; done`)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the shell exited cleanly")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a shell growing without bound was not killed under a 32 MiB limit in 20s")
	}
	s := mustStat(t, g)
	if s.OOMKills == 0 || s.MemoryMaxHits == 0 {
		t.Errorf("want an OOM kill and limit hits: %+v", s)
	}
}

func syscallKill0(pid int) error { return syscall.Kill(pid, 0) }

// waitGone waits until pid no longer exists (a zombie counts as gone only
// once reaped).
func waitGone(pid int, d time.Duration) error {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil {
			return nil
		}
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("pid %d still there %s after Kill", pid, d)
}

// TestSweepRemovesGroupsOfGoneYardsticks: an empty group named after a
// pid that no longer runs is removed; one of a live pid is kept.
func TestSweepRemovesGroupsOfGoneYardsticks(t *testing.T) {
	requireGroups(t)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	// With a quota, so that both are in every controller sweep looks in.
	stale, err := New(fmt.Sprintf("%d-1", gone.Process.Pid), Limits{CPUs: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	live, err := New(fmt.Sprintf("%d-99", os.Getpid()), Limits{CPUs: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = live.Delete(); _ = stale.Delete() })
	sweep()
	for _, dir := range parents() {
		if _, err := os.Stat(dir + fmt.Sprintf("/%d-1", gone.Process.Pid)); !os.IsNotExist(err) {
			t.Errorf("stale group in %s not removed (%v)", dir, err)
		}
		if _, err := os.Stat(dir + fmt.Sprintf("/%d-99", os.Getpid())); err != nil {
			t.Errorf("live group in %s removed: %v", dir, err)
		}
	}
}
