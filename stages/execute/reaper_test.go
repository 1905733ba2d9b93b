package execute

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Reap kills the groups still registered when its input ends, and leaves
// those removed before alone.
func TestReap(t *testing.T) {
	start := func() *exec.Cmd {
		c := exec.Command("sleep", "30")
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL); _ = c.Wait() })
		return c
	}
	live, gone := start(), start()
	in := "+" + strconv.Itoa(live.Process.Pid) + "\n+" + strconv.Itoa(gone.Process.Pid) + "\n-" + strconv.Itoa(gone.Process.Pid) + "\n+0\n+1\n+x\n"
	killed := Reap(strings.NewReader(in))
	if len(killed) != 1 || killed[0] != live.Process.Pid {
		t.Fatalf("killed %v, want [%d]", killed, live.Process.Pid)
	}
	done := make(chan error, 1)
	go func() { done <- live.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the registered group was not killed")
	}
	if err := syscall.Kill(gone.Process.Pid, 0); err != nil {
		t.Errorf("the removed group was killed too: %v", err)
	}
}
