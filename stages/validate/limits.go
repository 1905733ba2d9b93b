package validate

import (
	"math"
	"strconv"
	"time"

	"yardstick/pipeline"
	"yardstick/schema"
)

// The kernel's bounds on the CFS period, and its smallest quota.
const (
	minPeriod = time.Millisecond
	maxPeriod = time.Second
	minQuota  = time.Millisecond
)

// checkLimits: container limits fit the batch. A quota is at most the
// target CPU set's size (a quota beyond it cannot be used); its period is
// one the kernel accepts; the processor count a variant runs with is the
// one its quota gives (a runtime that is told 2 processors under a 1-CPU
// quota runs twice the threads the quota pays for); a JVM heap fits the
// memory limit; and the target runs on this host, where its control
// group is.
func checkLimits(c *checker) {
	set := c.b.Placement.Target
	if len(set) == 0 {
		return // reported by checkPlacement
	}
	for _, t := range c.b.Targets {
		if t.Limits == nil {
			continue
		}
		at := c.pos("targets", t.Name, "limits")
		if c.b.Placement.TwoHost() {
			c.add(Error, "limits", at, "target %s: limits need the target on this host, where its control group is made; this batch runs targets on another host", t.Name)
			continue
		}
		period, err := time.ParseDuration(t.Limits.Period)
		if err != nil || period < minPeriod || period > maxPeriod {
			c.add(Error, "limits", c.pos("targets", t.Name, "limits", "period"), "target %s: limits.period %q: the kernel takes a CFS period from %s to %s", t.Name, t.Limits.Period, minPeriod, maxPeriod)
			continue
		}
		for _, v := range schema.Variants(c.b, t) {
			if v.Limits != nil {
				checkVariantLimits(c, t, &v, len(set), period)
			}
		}
	}
}

// checkVariantLimits checks one variant's limits.
func checkVariantLimits(c *checker, t *schema.Target, v *pipeline.Variant, setSize int, period time.Duration) {
	l := v.Limits
	if l.CPUs > 0 {
		if l.CPUs > float64(setSize) {
			c.add(Error, "limits", c.pos("targets", t.Name, "limits", "cpus"), "%s: a quota of %s CPU(s) on placement.target %s, %d CPU(s): the quota can be at most the CPU set's size", v.Label, fmtCPUs(l.CPUs), c.b.Placement.Target, setSize)
		}
		if q := time.Duration(l.CPUs * float64(period)); q < minQuota {
			c.add(Error, "limits", c.pos("targets", t.Name, "limits", "cpus"), "%s: a quota of %s CPUs per %s period is %s, below the kernel's smallest quota of %s", v.Label, fmtCPUs(l.CPUs), period, q, minQuota)
		}
		if want := int(math.Ceil(l.CPUs)); v.Processors > want && want <= setSize && processorKnob(t) != "" {
			c.add(Error, "limits", c.pos("targets", t.Name, processorKnob(t)), "%s: runs with %d processors under a quota of %s CPU(s), which pays for %d CPU(s); leave the processor knob unset (the runtime reads the quota) or set it to %d",
				v.Label, v.Processors, fmtCPUs(l.CPUs), want, want)
		}
	}
	if l.MemoryBytes > 0 {
		if h, ok := pipeline.JVMBytes(v.Knob(schema.KnobHeap)); ok && h >= l.MemoryBytes {
			c.add(Error, "limits", c.pos("targets", t.Name, "limits", "memory"), "%s: heap %s does not fit the memory limit %s (the JVM needs memory beyond its heap)", v.Label, v.Knob(schema.KnobHeap), l.Memory)
		}
	}
}

// processorKnob names t's processor knob when t sets it, else "".
func processorKnob(t *schema.Target) string {
	switch {
	case t.Kind == "go" && t.GoMaxProcs.Set():
		return schema.KnobGoMaxProcs
	case t.Kind == "jvm" && t.Processors.Set():
		return schema.KnobProcessors
	}
	return ""
}

func fmtCPUs(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// quotaProcessors is the processor count variant v should see: under a
// CPU quota the one the quota gives its runtime, else the CPU set's.
func quotaProcessors(kind string, v *pipeline.Variant, setSize int) int {
	if v.Limits != nil && v.Limits.CPUs > 0 {
		return v.Limits.QuotaProcessors(kind, setSize)
	}
	return setSize
}
