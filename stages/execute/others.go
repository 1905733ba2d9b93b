package execute

import (
	"github.com/prometheus/procfs"

	"yardstick/loadgen"
	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
	"yardstick/stages/execute/hosts"
	"yardstick/stages/execute/procsample"
)

// cpuTimes is one reading of every CPU's times from /proc/stat, by CPU;
// nil when it cannot be read.
type cpuTimes map[int64]procfs.CPUStat

// readCPUTimes reads fs's /proc/stat.
func readCPUTimes(fs procsample.FS) cpuTimes {
	st, err := fs.Stat()
	if err != nil {
		return nil
	}
	return st.CPU
}

// mark reads the offsets at one moment of the cell, with the machine's
// CPU times and the CPU time so far of this process and of the load
// generator (0 before it started).
func (c *cellRun) mark() offsets {
	o := c.r.offsetsOf(c.t)
	o.cpu = readCPUTimes(c.fs)
	if self, err := loadgen.SelfCPU(); err == nil {
		o.self = (self.User + self.System).Seconds()
	}
	o.loadgenOK = c.loadgenPID == 0 // not started yet: none so far
	if c.loadgenPID > 0 {
		if p, err := c.fs.Proc(c.loadgenPID); err == nil {
			if st, err := p.Stat(); err == nil {
				o.loadgen, o.loadgenOK = st.CPUTime(), true
			}
		}
	}
	return o
}

// loadgenOwn is the CPU time in the kept window of what runs on the load
// generator's CPUs by design: this process and the load generator. A load
// generator already gone at the window's end (a fixed window ends with
// the load) is taken at its whole run's CPU time, from its result.
func (c *cellRun) loadgenOwn() float64 {
	end := c.end.loadgen
	if !c.end.loadgenOK {
		if c.res == nil {
			return -1
		}
		end = c.res.CPUS
	}
	if !c.kept.loadgenOK {
		return -1
	}
	return (c.end.self - c.kept.self) + (end - c.kept.loadgen)
}

// othersOf is what other work took of the CPU set cpus (the target's, or
// the load generator's) between the kept window's two readings, from and
// to, where ownS is the CPU time of what runs there by design (the
// target; or the load generator and this process; below 0: unknown); nil
// when the set is not theirs alone (unpinned, shared between roles),
// either role is on another host, or a reading is missing.
func (c *cellRun) othersOf(cpus cpuset.Set, from, to cpuTimes, ownS float64) *pipeline.Others {
	pl := c.b.Placement
	here := func(h hosts.Host) bool { return h.IsLocal() || h.Kind == "netns" } // netns: this machine's CPUs
	if len(cpus) == 0 || len(pl.Target.Intersect(pl.Loadgen)) > 0 || len(cpus.Intersect(pl.Services)) > 0 ||
		!here(c.r.targetHost(c.b)) || !here(c.r.loadgenHost(c.b)) || from == nil || to == nil || c.kept == nil || ownS < 0 {
		return nil
	}
	o := &pipeline.Others{CPUs: cpus, OwnS: ownS, WindowS: c.end.at.Sub(c.kept.at).Seconds()}
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
