package cgroup

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"syscall"

	"github.com/containerd/cgroups/v3/cgroup2"
)

// v2Root is the unified hierarchy's mount point.
const v2Root = "/sys/fs/cgroup"

type v2Group struct {
	m   *cgroup2.Manager
	rel string // /yardstick/<name>
}

func newV2(name string, l Limits) (*v2Group, error) {
	rel := path.Join("/yardstick", name)
	mem := &cgroup2.Memory{}
	if l.MemoryBytes > 0 {
		m := l.MemoryBytes
		mem.Max = &m
	}
	// Memory is always given, so that its controller is enabled down to
	// the group and memory.events counts; the cpu controller only with a
	// quota (cpu.stat counts usage without it), so that a group without
	// one is not weighed as one entity against the rest of the machine.
	res := &cgroup2.Resources{Memory: mem}
	if q, p := l.quota(); q > 0 {
		res.CPU = &cgroup2.CPU{Max: cgroup2.NewCPUMax(&q, &p)}
	}
	m, err := cgroup2.NewManager(v2Root, rel, res)
	if err != nil {
		return nil, err
	}
	return &v2Group{m: m, rel: rel}, nil
}

func (g *v2Group) where() string { return "v2 " + g.rel }

// start clones cmd's process straight into the group (CLONE_INTO_CGROUP).
func (g *v2Group) start(cmd *exec.Cmd) error {
	dir, err := os.Open(path.Join(v2Root, g.rel))
	if err != nil {
		return err
	}
	defer dir.Close()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, int(dir.Fd())
	return cmd.Start()
}

func (g *v2Group) stat() (Stat, error) {
	m, err := g.m.StatFiltered(cgroup2.StatCPU | cgroup2.StatMemory | cgroup2.StatMemoryEvents)
	if err != nil {
		return Stat{}, err
	}
	var s Stat
	if c := m.GetCPU(); c != nil {
		s.Periods, s.Throttled, s.ThrottledNS = c.GetNrPeriods(), c.GetNrThrottled(), c.GetThrottledUsec()*1000
		s.CPUNS = c.GetUsageUsec() * 1000
	}
	if mem := m.GetMemory(); mem != nil {
		s.MemoryBytes, s.MemoryPeakBytes = mem.GetUsage(), mem.GetMaxUsage()
	}
	if ev := m.GetMemoryEvents(); ev != nil {
		s.MemoryMaxHits, s.OOMKills = ev.GetMax(), ev.GetOomKill()
	}
	return s, nil
}

func (g *v2Group) pids() ([]int, error) {
	ps, err := g.m.Procs(true)
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	out := make([]int, 0, len(ps))
	for _, p := range ps {
		out = append(out, int(p))
	}
	return out, nil
}

func (g *v2Group) freeze(on bool) error {
	if on {
		return g.m.Freeze()
	}
	return g.m.Thaw()
}

func (g *v2Group) remove() error { return g.m.Delete() }
