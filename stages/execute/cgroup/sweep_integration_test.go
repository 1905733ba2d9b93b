//go:build integration

package cgroup

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestIntegrationSweepKillsWhatStaleGroupsHold: a yardstick killed with
// SIGKILL leaves its group and, in it, whatever its reaper could not
// reach (a target's child that left its process group), perhaps frozen
// mid-Kill. The next sweep thaws the group, kills what it holds and
// removes it. It needs root and a cgroup filesystem, so it runs with the
// integration tests (make test-integration), not in make test.
func TestIntegrationSweepKillsWhatStaleGroupsHold(t *testing.T) {
	requireGroups(t)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("%d-1", gone.Process.Pid)
	g, err := New(name, Limits{CPUs: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	left := startIn(t, g, "sleep", "60")
	t.Cleanup(func() { _ = left.Process.Kill(); _, _ = g.Kill(); _ = g.Delete() })
	if err := g.impl.freeze(true); err != nil {
		t.Fatal(err)
	}
	sweep()
	if err := waitGone(left.Process.Pid, 2*time.Second); err != nil {
		t.Errorf("the process left in the stale group: %v", err)
	}
	for _, dir := range parents() {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("stale group in %s not removed (%v)", dir, err)
		}
	}
}
