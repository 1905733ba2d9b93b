package tabulate

import (
	"yardstick/datasets"
	"yardstick/pipeline"
)

// limitColumns are the variant's container limits, from the plan.
func limitColumns(r *datasets.Cell, l *pipeline.Limits) {
	if l == nil {
		return
	}
	if l.CPUs > 0 {
		r.LimitCPUs = ptr(l.CPUs)
		r.LimitPeriodUS = ptr(l.PeriodUS)
	}
	if l.MemoryBytes > 0 {
		r.LimitMemory = nonEmpty(l.Memory)
		r.LimitMemoryBytes = ptr(l.MemoryBytes)
	}
}

// cgroupColumns are the start's control group's figures over the kept
// window.
func cgroupColumns(r *datasets.Cell, g *pipeline.CgroupStats) {
	r.Cgroup = nonEmpty(g.Mode)
	r.CPUPeriods = ptr(g.Periods)
	r.CPUThrottledPeriods = ptr(g.ThrottledPeriods)
	r.CPUThrottledUS = ptr(g.ThrottledUS)
	if g.Periods > 0 {
		r.CPUThrottledShare = ptr(float64(g.ThrottledPeriods) / float64(g.Periods))
	}
	r.CgroupCPUUS = ptr(g.CPUUS)
	r.MemoryMaxHits = ptr(g.MemoryMaxHits)
	r.OOMKills = ptr(g.OOMKills)
	if g.MemoryPeakBytes > 0 {
		r.CgroupMemoryPeakBytes = ptr(g.MemoryPeakBytes)
	}
}

// viewColumns are what the runtime saw of its limits.
func viewColumns(r *datasets.Cell, v *pipeline.ContainerView) {
	if v.Processors != nil {
		r.SeenProcessors = ptr(int64(*v.Processors))
	}
	r.SeenMemoryBytes = v.MemoryLimitBytes
	r.SeenHeapMaxBytes = v.HeapMaxBytes
}
