package execute

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"yardstick/pipeline"
	"yardstick/stages/execute/cgroup"
)

// TestStartUnderLimits: a target with limits starts in a control group
// of its own that carries its quota and memory limit, as the kernel
// reads them back, and the group is gone once the start stops. Skipped
// only where control groups cannot be made (not root, no cgroup
// filesystem).
func TestStartUnderLimits(t *testing.T) {
	if os.Geteuid() != 0 || cgroup.Mode() == "none" {
		t.Skipf("control groups cannot be made here (euid %d, hierarchy %s)", os.Geteuid(), cgroup.Mode())
	}
	r, b, v, c, _ := startFake(t, "serve", 0)
	v.Limits = &pipeline.Limits{CPUs: 0.25, PeriodUS: 50_000, Memory: "64m", MemoryBytes: 64 << 20}
	tg, err := r.startTarget(context.Background(), b, v, c, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	g := tg.p.Cgroup()
	if g == nil {
		r.stopTarget(tg, nil)
		t.Fatal("a target with limits started without a control group")
	}
	pids, err := g.PIDs()
	if err != nil || !slices.Contains(pids, tg.p.PID()) {
		t.Errorf("group %s holds %v (%v), want the target %d", g.Where(), pids, err, tg.p.PID())
	}
	quota, mem := readLimits(t, tg.p.PID())
	r.stopTarget(tg, nil)
	if quota != "12500 50000" {
		t.Errorf("CPU quota read back %q, want 12500us per 50000us", quota)
	}
	if mem != "67108864" {
		t.Errorf("memory limit read back %q, want 67108864", mem)
	}
	if err := g.Delete(); err != nil {
		t.Errorf("delete after stop: %v", err)
	}
}

// readLimits reads the quota ("quota period") and memory limit of pid's
// control group from the kernel's files.
func readLimits(t *testing.T, pid int) (quota, mem string) {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	read := func(p string) string {
		v, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(v))
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		switch {
		case cgroup.Mode() == "v2" && f[0] == "0":
			dir := filepath.Join("/sys/fs/cgroup", f[2])
			return read(filepath.Join(dir, "cpu.max")), read(filepath.Join(dir, "memory.max"))
		case f[1] == "cpu":
			dir := filepath.Join("/sys/fs/cgroup/cpu", f[2])
			quota = read(filepath.Join(dir, "cpu.cfs_quota_us")) + " " + read(filepath.Join(dir, "cpu.cfs_period_us"))
		case f[1] == "memory":
			mem = read(filepath.Join("/sys/fs/cgroup/memory", f[2], "memory.limit_in_bytes"))
		}
	}
	return quota, mem
}
