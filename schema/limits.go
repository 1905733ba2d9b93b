package schema

import (
	"strconv"
	"time"

	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
)

// JVMViewFlag logs the JVM's processor count, memory and heap at start
// (its gc+init lines) to stdout; a JVM target under limits without a GC
// log gets it (with a GC log, the lines are in the GC log).
const JVMViewFlag = "-Xlog:gc+init:stdout"

// canonicalCPUs writes a CPU quota as the shortest decimal ("1.0" and "1"
// are one value, "1").
func canonicalCPUs(s string) string {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// resolveLimits is a variant's container limits from its cpus and memory
// knob values; nil when the target declares none.
func resolveLimits(t *Target, cpus, memory string) *pipeline.Limits {
	if t.Limits == nil || (cpus == "" && memory == "") {
		return nil
	}
	l := &pipeline.Limits{Memory: memory, PeriodUS: 100_000}
	l.CPUs, _ = strconv.ParseFloat(cpus, 64)
	if memory != "" {
		l.MemoryBytes, _ = pipeline.JVMBytes(memory)
	}
	if d, err := time.ParseDuration(t.Limits.Period); err == nil && t.Limits.Period != "" {
		l.PeriodUS = d.Microseconds()
	}
	return l
}

// QuotaProcessors is pipeline.Limits.QuotaProcessors for a quota of cpus.
func QuotaProcessors(kind string, cpus float64, setSize int) int {
	return (&pipeline.Limits{CPUs: cpus}).QuotaProcessors(kind, setSize)
}

// targetCPUs is the size of the batch's target CPU set, 0 if it does not
// parse.
func targetCPUs(b *Batch) int {
	set, err := cpuset.Parse(b.Placement.Target)
	if err != nil {
		return 0
	}
	return len(set)
}
