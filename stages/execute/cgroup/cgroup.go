// Package cgroup gives one target start a control group of its own: the
// CPU quota and memory limit the start runs under (cgroup v2 cpu.max and
// memory.max, or v1 cpu.cfs_quota_us and memory.limit_in_bytes), the
// owner of every process of the start (a process that leaves its process
// group with setsid is still in the group, and killed with it), and the
// counters read in the kept window: throttled periods and time from
// cpu.stat, memory.max hits and OOM kills.
//
// The control files are written by github.com/containerd/cgroups/v3,
// which knows both hierarchies. On v1 the group is made below yardstick's
// own group of each controller (cpu, cpuacct, memory, pids, freezer); on
// v2 below /yardstick at the root of the unified hierarchy, where the
// controllers can be delegated. A child is born in the group: on v2 by
// clone3 with CLONE_INTO_CGROUP, on v1 by forking from a thread that was
// moved into the group just before the fork (and back just after), so no
// process of the start ever runs outside it.
package cgroup

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/cgroups/v3"
)

// Limits are the limits of one group; a zero field is no limit.
type Limits struct {
	// CPUs is the quota in CPUs: quota = CPUs x period.
	CPUs float64
	// Period is the CFS period; 0 means the kernel's 100ms.
	Period time.Duration
	// MemoryBytes is memory.max (memory.limit_in_bytes on v1).
	MemoryBytes int64
}

// DefaultPeriod is the CFS period the kernel uses unless told otherwise.
const DefaultPeriod = 100 * time.Millisecond

// quota returns the CFS quota and period in microseconds; quota is -1
// without a CPU limit.
func (l Limits) quota() (quota int64, period uint64) {
	p := l.Period
	if p <= 0 {
		p = DefaultPeriod
	}
	period = uint64(p.Microseconds())
	if l.CPUs <= 0 {
		return -1, period
	}
	return int64(math.Round(l.CPUs * float64(period))), period
}

// A Stat is a reading of a group's counters; each only grows while the
// group lives, so a window is the difference of two readings.
type Stat struct {
	// Periods is the CFS periods in which the group could run, Throttled
	// those in which it used up its quota and waited.
	Periods, Throttled uint64
	// ThrottledNS is the time the group's threads waited for the next
	// period.
	ThrottledNS uint64
	// CPUNS is the CPU time used by the group.
	CPUNS uint64
	// MemoryBytes is the group's memory use now, MemoryPeakBytes the
	// highest (v1 max_usage_in_bytes; v2 memory.peak, 0 where the kernel
	// has none).
	MemoryBytes, MemoryPeakBytes uint64
	// MemoryMaxHits counts the times the group's memory reached its limit
	// (v1 memory.failcnt, v2 memory.events max).
	MemoryMaxHits uint64
	// OOMKills counts the processes the kernel killed for the limit.
	OOMKills uint64
}

// Sub is s less the earlier reading o (0 where a counter went back, as
// when the group was made again).
func (s Stat) Sub(o Stat) Stat {
	d := func(a, b uint64) uint64 {
		if a < b {
			return 0
		}
		return a - b
	}
	return Stat{
		Periods: d(s.Periods, o.Periods), Throttled: d(s.Throttled, o.Throttled),
		ThrottledNS: d(s.ThrottledNS, o.ThrottledNS), CPUNS: d(s.CPUNS, o.CPUNS),
		MemoryBytes: s.MemoryBytes, MemoryPeakBytes: s.MemoryPeakBytes,
		MemoryMaxHits: d(s.MemoryMaxHits, o.MemoryMaxHits), OOMKills: d(s.OOMKills, o.OOMKills),
	}
}

// A Group is one start's control group.
type Group struct {
	name string
	impl impl
	mu   sync.Mutex
	gone bool
}

// impl is one hierarchy's way of doing what a Group does.
type impl interface {
	start(cmd *exec.Cmd) error
	stat() (Stat, error)
	pids() ([]int, error)
	freeze(on bool) error
	remove() error
	where() string
}

// ErrUnavailable is wrapped by the errors of Available and New when this
// process cannot make control groups here.
var ErrUnavailable = errors.New("control groups unavailable")

var (
	availOnce sync.Once
	availErr  error
)

// Available says whether New can work here: nil, or an error wrapping
// ErrUnavailable that names what is missing (the hierarchy, root or a
// delegated subtree). The answer is probed once, by making and removing
// a group; the empty groups of yardsticks that are gone are removed then
// too (sweep.go).
func Available() error {
	availOnce.Do(func() {
		sweep()
		g, err := New(fmt.Sprintf("probe-%d", os.Getpid()), Limits{})
		if err == nil {
			err = g.Delete()
		}
		availErr = err
	})
	return availErr
}

// Mode names the hierarchy in use: "v1", "v2" or "none".
func Mode() string {
	switch cgroups.Mode() {
	case cgroups.Unified:
		return "v2"
	case cgroups.Legacy, cgroups.Hybrid:
		return "v1"
	}
	return "none"
}

// New makes the group yardstick/<name> with limits l.
func New(name string, l Limits) (*Group, error) {
	var (
		im  impl
		err error
	)
	switch Mode() {
	case "v2":
		im, err = newV2(name, l)
	case "v1":
		im, err = newV1(name, l)
	default:
		return nil, fmt.Errorf("%w: no cgroup hierarchy is mounted at /sys/fs/cgroup", ErrUnavailable)
	}
	if err != nil {
		if os.Geteuid() != 0 && (errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EROFS)) {
			return nil, fmt.Errorf("%w: cgroup %s: %v (yardstick is not root and no cgroup subtree is delegated to it)", ErrUnavailable, Mode(), err)
		}
		return nil, fmt.Errorf("%w: cgroup %s: make group yardstick/%s: %v", ErrUnavailable, Mode(), name, err)
	}
	return &Group{name: name, impl: im}, nil
}

// Start starts cmd with its process born in the group. On v1 the caller
// must hold its OS thread locked (runtime.LockOSThread): the thread joins
// the group for the fork.
func (g *Group) Start(cmd *exec.Cmd) error { return g.impl.start(cmd) }

// Stat reads the group's counters.
func (g *Group) Stat() (Stat, error) {
	s, err := g.impl.stat()
	if err != nil {
		return Stat{}, fmt.Errorf("cgroup %s: stat: %w", g.impl.where(), err)
	}
	return s, nil
}

// PIDs lists the processes in the group.
func (g *Group) PIDs() ([]int, error) { return g.impl.pids() }

// Where is the group's path in its hierarchy, for messages.
func (g *Group) Where() string { return g.impl.where() }

// killWait bounds how long Kill tries to empty the group.
const killWait = 5 * time.Second

// Kill sends SIGKILL to every process of the group, the group frozen
// meanwhile so that none forks past it, and returns once the group is
// empty (the processes reaped by their parents) or killWait has passed.
// It returns the processes it found, and an error if some outlived it.
func (g *Group) Kill() ([]int, error) {
	var killed []int
	seen := map[int]bool{}
	deadline := time.Now().Add(killWait)
	for {
		_ = g.impl.freeze(true)
		pids, err := g.impl.pids()
		for _, pid := range pids {
			if pid != os.Getpid() {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			if !seen[pid] {
				seen[pid] = true
				killed = append(killed, pid)
			}
		}
		_ = g.impl.freeze(false)
		if err != nil {
			return killed, fmt.Errorf("cgroup %s: list processes: %w", g.impl.where(), err)
		}
		if len(pids) == 0 {
			return killed, nil
		}
		if time.Now().After(deadline) {
			return killed, fmt.Errorf("cgroup %s: %d process(es) still there %s after SIGKILL", g.impl.where(), len(pids), killWait)
		}
		reapChildren(pids)
		time.Sleep(5 * time.Millisecond)
	}
}

// reapChildren reaps those of pids that are this process's zombie
// children (orphans reparented to yardstick, its subreaper): until reaped
// they stay in the group.
func reapChildren(pids []int) {
	for _, pid := range pids {
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	}
}

// Delete removes the group, which must be empty (see Kill). Deleting a
// group twice is not an error.
func (g *Group) Delete() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gone {
		return nil
	}
	if err := g.impl.remove(); err != nil {
		return fmt.Errorf("cgroup %s: remove: %w", g.impl.where(), err)
	}
	g.gone = true
	return nil
}
