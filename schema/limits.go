package schema

import (
	"slices"
	"strconv"
	"time"

	"yardstick/pipeline"
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

// quotaDefault is the processor count a variant of kind with limits l
// runs with when its processor knob is not set, 0 without a CPU quota.
// Under a quota that knob is left to the runtime, which reads the quota:
// the count is the one the runtime picks.
func quotaDefault(b *Batch, kind string, l *pipeline.Limits) int {
	if l == nil || l.CPUs <= 0 {
		return 0
	}
	return l.QuotaProcessors(kind, targetCPUs(b))
}

// withViewFlag adds JVMViewFlag to a JVM argv under limits when the GC
// log (which holds the same lines) is off.
func withViewFlag(t *Target, l *pipeline.Limits, argv []string) []string {
	if l == nil || t.GCLog || len(argv) == 0 {
		return argv
	}
	return slices.Insert(argv, 1, JVMViewFlag)
}

// targetCPUs is the size of the batch's target CPU set.
func targetCPUs(b *Batch) int { return len(b.Placement.Target) }
