package fairness

import (
	"fmt"
	"strconv"

	"yardstick/pipeline"
)

// memoryRounding is the shortfall allowed between a declared memory limit
// and the one the JVM printed: HotSpot prints sizes truncated to a whole
// unit (K, M or G).
const memoryRounding = 0.01

// containerView: a target under limits runs with the processor count its
// quota gives and, for the JVM, saw the declared memory limit, as its
// runtime reported them (the JVM's gc,init lines, Go's gctrace P count).
// A runtime told another processor count (-XX:ActiveProcessorCount,
// GOMAXPROCS) or one that does not read the quota fails, with both
// numbers. Native and process targets have no runtime view and get no
// row.
func (bc *batchCheck) containerView(ci cellInfo) {
	l, kind := ci.variant.Limits, ci.variant.Kind
	if l == nil || (kind != "go" && kind != "jvm") {
		return
	}
	set := bc.b.Placement.Target
	want := l.QuotaProcessors(kind, len(set))
	cv := ci.cp.ContainerView
	if cv == nil || cv.Processors == nil {
		how := map[string]string{"go": "no gctrace line with a P count on stderr (gcLog off, or no collection)", "jvm": "no gc,init CPUs line"}[kind]
		bc.cellRow(ci, "container_view", false, num(float64(want)), nil, nil, "processors", "the runtime's processor count was not recorded: "+how)
		return
	}
	got := *cv.Processors
	ok := got == want
	detail := fmt.Sprintf("%s: runs with %d processor(s); %s on placement.target %s (%d CPUs) gives %d", cv.Source, got, quotaText(l), bc.b.Placement.Target, len(set), want)
	if kind == "jvm" && l.MemoryBytes > 0 {
		memOK, memText := jvmMemory(cv, l)
		ok = ok && memOK
		detail += "; " + memText
	}
	bc.cellRow(ci, "container_view", ok, num(float64(want)), num(float64(got)), nil, "processors", detail)
}

// jvmMemory compares the memory the JVM saw with the declared limit.
func jvmMemory(cv *pipeline.ContainerView, l *pipeline.Limits) (bool, string) {
	if cv.MemoryLimitBytes == nil {
		return false, fmt.Sprintf("memory limit %s declared, the JVM's view of it not recorded (no gc,init Memory line)", l.Memory)
	}
	seen := *cv.MemoryLimitBytes
	ok := seen <= l.MemoryBytes && float64(seen) >= float64(l.MemoryBytes)*(1-memoryRounding)
	text := fmt.Sprintf("saw %d MiB of memory, limit %s (%d MiB)", seen>>20, l.Memory, l.MemoryBytes>>20)
	if cv.HeapMaxBytes != nil {
		text += fmt.Sprintf(", maximum heap %d MiB", *cv.HeapMaxBytes>>20)
	}
	return ok, text
}

func quotaText(l *pipeline.Limits) string {
	if l.CPUs <= 0 {
		return "no CPU quota"
	}
	return "a quota of " + strconv.FormatFloat(l.CPUs, 'f', -1, 64) + " CPUs"
}
