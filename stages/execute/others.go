package execute

import (
	"github.com/prometheus/procfs"

	"yardstick/pipeline"
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

// othersOf is what other work took of the target's CPUs between the kept
// window's two readings, from and to; nil when the target's CPUs are
// not its own (unpinned, shared with the load generator or the services,
// or on another host) or a reading is missing.
func (c *cellRun) othersOf(from, to cpuTimes, targetS float64) *pipeline.Others {
	pl := c.b.Placement
	host := c.r.targetHost(c.b)
	if len(pl.Target) == 0 || len(pl.Target.Intersect(pl.Loadgen)) > 0 || len(pl.Target.Intersect(pl.Services)) > 0 ||
		!(host.IsLocal() || host.Kind == "netns") || from == nil || to == nil || c.kept == nil {
		return nil
	}
	o := &pipeline.Others{CPUs: pl.Target, TargetS: targetS, WindowS: c.end.at.Sub(c.kept.at).Seconds()}
	for _, cpu := range pl.Target {
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
