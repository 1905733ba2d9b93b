package execute

import (
	"github.com/prometheus/procfs"

	"yardstick/loadgen"
	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
)

// cpuTimes is one reading of every CPU's times from /proc/stat, by CPU;
// nil when it cannot be read.
type cpuTimes map[int64]procfs.CPUStat

// readCPUTimes reads /proc/stat.
func readCPUTimes() cpuTimes {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil
	}
	st, err := fs.Stat()
	if err != nil {
		return nil
	}
	return st.CPU
}

// mark reads the offsets at one moment of the cell, with the CPU time so
// far of the load generator (0 before it started) and of this process.
func (c *cellRun) mark() offsets {
	o := c.r.offsetsOf(c.t)
	if self, err := loadgen.SelfCPU(); err == nil {
		o.own = (self.User + self.System).Seconds()
	}
	if c.loadgenPID > 0 {
		if fs, err := procfs.NewDefaultFS(); err == nil {
			if p, err := fs.Proc(c.loadgenPID); err == nil {
				if st, err := p.Stat(); err == nil {
					o.own += st.CPUTime()
				}
			}
		}
	}
	return o
}

// othersOf is what other work took of the CPU set cpus (the target's, or
// the load generator's) between the kept window's two readings, from and
// to, where ownS is the CPU time of what runs there by design (the
// target; or the load generator and this process); nil when the set is
// not theirs alone (unpinned, shared between roles), either role is on
// another host, or a reading is missing.
func (c *cellRun) othersOf(cpus cpuset.Set, from, to cpuTimes, ownS float64) *pipeline.Others {
	pl := c.b.Placement
	local := func(kind string) bool { return kind == "" || kind == "local" || kind == "netns" }
	if len(cpus) == 0 || len(pl.Target.Intersect(pl.Loadgen)) > 0 || len(cpus.Intersect(pl.Services)) > 0 ||
		!local(c.r.targetHost(c.b).Kind) || !local(c.r.loadgenHost(c.b).Kind) || from == nil || to == nil || c.kept == nil {
		return nil
	}
	o := &pipeline.Others{CPUs: cpus, OwnS: max(ownS, 0), WindowS: c.end.at.Sub(c.kept.at).Seconds()}
	for _, cpu := range cpus {
		a, okA := from[int64(cpu)]
		b, okB := to[int64(cpu)]
		if !okA || !okB {
			return nil
		}
		o.BusyS += (b.User + b.Nice + b.System) - (a.User + a.Nice + a.System)
		o.StealS += b.Steal - a.Steal
	}
	return o
}
