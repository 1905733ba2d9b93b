package cgroup

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"slices"

	"github.com/containerd/cgroups/v3/cgroup1"
	"github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

// v1Controllers are the v1 controllers a group is made in: its counters
// (cpuacct, memory), its process count (pids) and the freezer that holds
// it still while it is killed; and cpu for a group with a quota only. A
// group of the cpu controller is scheduled as one entity, weighed by its
// cpu.shares against every other task of the machine, so a group without
// a quota stays out of it and its processes are scheduled as before.
var v1Controllers = []cgroup1.Name{cgroup1.Cpuacct, cgroup1.Memory, cgroup1.Pids, cgroup1.Freezer}

// v1Hierarchy is the mounted v1 hierarchies of v1Controllers, and of cpu
// with quota.
func v1Hierarchy(quota bool) cgroup1.Hierarchy {
	return func() ([]cgroup1.Subsystem, error) {
		all, err := cgroup1.Default()
		if err != nil {
			return nil, err
		}
		var out []cgroup1.Subsystem
		for _, s := range all {
			if slices.Contains(v1Controllers, s.Name()) || quota && s.Name() == cgroup1.Cpu {
				out = append(out, s)
			}
		}
		return out, nil
	}
}

type v1Group struct {
	cg    cgroup1.Cgroup
	rel   string // yardstick/<name>, below this process's own groups
	quota bool   // the group is in the cpu controller too
}

func newV1(name string, l Limits) (*v1Group, error) {
	rel := path.Join("yardstick", name)
	res := &specs.LinuxResources{}
	q, p := l.quota()
	if q > 0 {
		res.CPU = &specs.LinuxCPU{Quota: &q, Period: &p}
	}
	if l.MemoryBytes > 0 {
		m := l.MemoryBytes
		res.Memory = &specs.LinuxMemory{Limit: &m}
	}
	cg, err := cgroup1.New(cgroup1.NestedPath(rel), res, cgroup1.WithHierarchy(v1Hierarchy(q > 0)))
	if err != nil {
		return nil, err
	}
	g := &v1Group{cg: cg, rel: rel, quota: q > 0}
	need := []cgroup1.Name{cgroup1.Cpuacct, cgroup1.Memory}
	if g.quota {
		need = append(need, cgroup1.Cpu)
	}
	for _, c := range need {
		if !g.has(c) {
			_ = cg.Delete()
			return nil, fmt.Errorf("the v1 %s controller is not mounted", c)
		}
	}
	return g, nil
}

func (g *v1Group) has(n cgroup1.Name) bool {
	return slices.ContainsFunc(g.cg.Subsystems(), func(s cgroup1.Subsystem) bool { return s.Name() == n })
}

func (g *v1Group) where() string { return "v1 " + g.rel }

// start forks cmd from the calling thread after moving that thread (only
// it, through the tasks files) into the group, and moves it back to the
// groups it came from once the child exists: the child is born in the
// group, before it runs a single instruction of its own.
func (g *v1Group) start(cmd *exec.Cmd) error {
	tid := unix.Gettid()
	home, err := cgroup1.ParseCgroupFile(fmt.Sprintf("/proc/self/task/%d/cgroup", tid))
	if err != nil {
		return fmt.Errorf("read the forking thread's cgroups: %w", err)
	}
	if err := g.cg.AddTask(cgroup1.Process{Pid: tid}); err != nil {
		_ = g.back(tid, home)
		return fmt.Errorf("move the forking thread into cgroup %s: %w", g.rel, err)
	}
	startErr := cmd.Start()
	if err := g.back(tid, home); err != nil {
		// The thread must not stay in a target's group: fail the start.
		if startErr == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		return fmt.Errorf("move the forking thread back out of cgroup %s: %w", g.rel, err)
	}
	return startErr
}

// back moves thread tid to the groups home lists (its own, per
// controller).
func (g *v1Group) back(tid int, home map[string]string) error {
	subs, err := v1Hierarchy(g.quota)()
	if err != nil {
		return err
	}
	for _, s := range subs {
		p, ok := home[string(s.Name())]
		if !ok {
			continue
		}
		pa, ok := s.(interface{ Path(string) string })
		if !ok {
			continue
		}
		f := path.Join(pa.Path(p), "tasks")
		if err := os.WriteFile(f, fmt.Appendf(nil, "%d", tid), 0); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return nil
}

func (g *v1Group) stat() (Stat, error) {
	m, err := g.cg.Stat(cgroup1.IgnoreNotExist)
	if err != nil {
		return Stat{}, err
	}
	var s Stat
	if c := m.GetCPU(); c != nil {
		t := c.GetThrottling()
		s.Periods, s.Throttled, s.ThrottledNS = t.GetPeriods(), t.GetThrottledPeriods(), t.GetThrottledTime()
		s.CPUNS = c.GetUsage().GetTotal()
	}
	if mem := m.GetMemory(); mem != nil {
		u := mem.GetUsage()
		s.MemoryBytes, s.MemoryPeakBytes, s.MemoryMaxHits = u.GetUsage(), u.GetMax(), u.GetFailcnt()
	}
	s.OOMKills = m.GetMemoryOomControl().GetOomKill()
	return s, nil
}

func (g *v1Group) pids() ([]int, error) {
	ps, err := g.cg.Processes(cgroup1.Memory, true)
	if err != nil {
		return nil, err
	}
	out := make([]int, 0, len(ps))
	for _, p := range ps {
		if !slices.Contains(out, p.Pid) {
			out = append(out, p.Pid)
		}
	}
	return out, nil
}

func (g *v1Group) freeze(on bool) error {
	if !g.has(cgroup1.Freezer) {
		return nil
	}
	if on {
		return g.cg.Freeze()
	}
	return g.cg.Thaw()
}

func (g *v1Group) remove() error { return g.cg.Delete() }
