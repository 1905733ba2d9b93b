package pipeline

import "math"

// QuotaProcessors is the processor count a runtime of kind picks by itself
// under l's CPU quota on a CPU set of setSize CPUs (0: not known): the
// JVM's container support takes the quota rounded up; Go (1.25 and later)
// too, but never below 2; both at most the CPU set. Other kinds, and a
// limit without a quota, see their CPU set.
func (l *Limits) QuotaProcessors(kind string, setSize int) int {
	if l.CPUs <= 0 {
		return setSize
	}
	n := int(math.Ceil(l.CPUs))
	switch kind {
	case "go":
		n = max(n, 2)
	case "jvm":
	default:
		return setSize
	}
	if setSize > 0 {
		n = min(n, setSize)
	}
	return n
}

// CgroupStats are a cell's figures from its start's control group over
// the kept window (OOM kills and memory.max hits also up to the end of
// the idle time after it, where a kill would show).
type CgroupStats struct {
	// Mode is the hierarchy, "v1" or "v2"; Path the group's path in it.
	Mode string `json:"mode"`
	Path string `json:"path"`
	// Periods are the CFS periods in the window in which the group ran,
	// ThrottledPeriods those in which it used up its quota and waited,
	// ThrottledUS the time its threads waited (cpu.stat).
	Periods          int64 `json:"periods"`
	ThrottledPeriods int64 `json:"throttled_periods"`
	ThrottledUS      int64 `json:"throttled_us"`
	// CPUUS is the group's CPU time in the window (cpuacct.usage, or
	// cpu.stat usage_usec).
	CPUUS int64 `json:"cpu_us"`
	// MemoryMaxHits counts the times the group's memory reached its limit
	// (v1 memory.failcnt, v2 memory.events max), OOMKills the processes
	// the kernel killed for it; both in the window and the idle time
	// after it.
	MemoryMaxHits int64 `json:"memory_max_hits"`
	OOMKills      int64 `json:"oom_kills"`
	// MemoryPeakBytes is the group's highest memory use since the start
	// (0 where the kernel does not keep it).
	MemoryPeakBytes int64 `json:"memory_peak_bytes"`
}

// A ContainerView is what a target's runtime saw of its limits: the
// processor count it runs with and the memory limit it sized itself
// from. A field the runtime did not report is left out (nil).
type ContainerView struct {
	// Source is where the figures come from: "jvm gc+init" (the JVM's
	// -Xlog:gc+init lines) or "go gctrace" (the P count of gctrace).
	Source string `json:"source"`
	// Processors is the JVM's available CPUs, or Go's GOMAXPROCS.
	Processors *int `json:"processors,omitempty"`
	// MemoryLimitBytes is the memory the JVM saw (its container's limit,
	// else the machine's); nil for Go, which does not log it.
	MemoryLimitBytes *int64 `json:"memory_limit_bytes,omitempty"`
	// HeapMaxBytes is the JVM's maximum heap; nil for Go.
	HeapMaxBytes *int64 `json:"heap_max_bytes,omitempty"`
}
