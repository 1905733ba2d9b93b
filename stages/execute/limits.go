package execute

import (
	"path/filepath"
	"time"

	"yardstick/pipeline"
	"yardstick/stages/execute/cgroup"
	"yardstick/stages/execute/gclog"
)

// cgroupFor is the control group a start of v runs in: one with v's
// limits; without limits, one that only owns and counts the start's
// processes where groups can be made here, else none (the start's
// processes are then found through /proc, procgroup.Owned).
func cgroupFor(v *pipeline.Variant) *cgroup.Limits {
	if l := v.Limits; l != nil {
		return &cgroup.Limits{CPUs: l.CPUs, Period: time.Duration(l.PeriodUS) * time.Microsecond, MemoryBytes: l.MemoryBytes}
	}
	if cgroup.Available() == nil {
		return &cgroup.Limits{}
	}
	return nil
}

// cgroupStat reads the counters of t's control group; nil without one, or
// when they cannot be read (the cell then has no cgroup figures).
func cgroupStat(t *target) *cgroup.Stat {
	if t.p == nil || t.p.Cgroup() == nil {
		return nil
	}
	s, err := t.p.Cgroup().Stat()
	if err != nil {
		return nil
	}
	return &s
}

// cgroupStats are the control group's figures of a cell: CPU and
// throttling over the kept window, memory events up to the end of the
// idle time after it.
func cgroupStats(t *target, kept, end, after offsets) *pipeline.CgroupStats {
	if kept.cg == nil || end.cg == nil || after.cg == nil {
		return nil
	}
	w, mem := end.cg.Sub(*kept.cg), after.cg.Sub(*kept.cg)
	return &pipeline.CgroupStats{
		Mode: cgroup.Mode(), Path: t.p.Cgroup().Where(),
		Periods: int64(w.Periods), ThrottledPeriods: int64(w.Throttled), ThrottledUS: int64(w.ThrottledNS / 1000),
		CPUUS: int64(w.CPUNS / 1000), MemoryMaxHits: int64(mem.MemoryMaxHits), OOMKills: int64(mem.OOMKills),
		MemoryPeakBytes: int64(after.cg.MemoryPeakBytes),
	}
}

// maxViewBytes bounds what is read of a log for the runtime's view.
const maxViewBytes = 1 << 20

// containerView is what t's runtime saw of its limits: the JVM's gc,init
// lines (in its GC log, or on stdout), or the P count of Go's gctrace
// lines on stderr up to the end of the kept window. nil for a target
// without limits or of another kind.
func containerView(t *target, end offsets) *pipeline.ContainerView {
	if t.variant.Limits == nil {
		return nil
	}
	var v gclog.View
	var src string
	switch {
	case t.variant.Kind == "jvm":
		file := filepath.Join(t.dir, "stdout.log")
		if t.gcLog != "" {
			file = t.gcLog
		}
		b, _ := readRange(file, 0, min(fileSize(file), maxViewBytes), maxViewBytes)
		v, src = gclog.ViewJVM(b), "jvm gc+init"
	case t.variant.GCLog == "gctrace":
		b, _ := readRange(t.stderr, max(end.stderr-maxViewBytes, 0), end.stderr, maxViewBytes)
		v, src = gclog.ViewGo(b), "go gctrace"
	default:
		return nil
	}
	cv := &pipeline.ContainerView{Source: src}
	if v.Processors >= 0 {
		cv.Processors = &v.Processors
	}
	if v.MemoryBytes >= 0 {
		cv.MemoryLimitBytes = &v.MemoryBytes
	}
	if v.HeapMaxBytes >= 0 {
		cv.HeapMaxBytes = &v.HeapMaxBytes
	}
	return cv
}
