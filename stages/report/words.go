package report

import (
	"fmt"
	"slices"
	"strings"

	"yardstick/pipeline"
	"yardstick/stages/report/analysis"
)

// The analysis's values in words: the names of points, variants and
// batches' preconditions that every table and chart carries.

// formatOf is how a metric's values are written.
func formatOf(m analysis.Column) func(float64) string {
	switch {
	case m.Count != nil:
		return fmtShare
	case m.Key == "cold_start":
		return fmtColdStart
	case m.Key == "time_to_steady":
		return fmtSeconds
	}
	switch m.Unit {
	case "connections", "threads":
		return fmtConnections
	case "requests/s":
		return fmtRPS
	case "bytes":
		if m.Key == "memory_per_connection" {
			return fmtKiB
		}
		return fmtBytes
	case "us/request":
		return fmtCPU
	}
	return fmtLatency // p50, p99, p99.9, max
}

// columnByKey is analysis.ColumnByKey.
var columnByKey = analysis.ColumnByKey

// caption is the point in words for captions and chart titles: "payload
// 128 B, concurrency 8".
func caption(p analysis.Point) string {
	var parts []string
	if p.Payload >= 0 {
		parts = append(parts, fmt.Sprintf("payload %d B", p.Payload))
	}
	switch {
	case p.Mode == "hold":
		parts = append(parts, fmt.Sprintf("%s connections held", commas(p.Connections)))
	case p.Mode == "closed" && p.Concurrency >= 0:
		parts = append(parts, fmt.Sprintf("concurrency %d", p.Concurrency))
	case p.PeakFraction > 0:
		parts = append(parts, fmt.Sprintf("open loop at %s of peak", trimFloat(100*p.PeakFraction)+"%"))
	default:
		parts = append(parts, fmt.Sprintf("open loop at %s rps", trimFloat(p.Rate)))
	}
	return strings.Join(parts, ", ")
}

// configOf is a variant's knobs as read from its cell: processors, heap,
// GC.
func configOf(v *analysis.Variant) string {
	c := v.Cell
	var parts []string
	if c.Processors != nil {
		parts = append(parts, fmt.Sprintf("%d proc", *c.Processors))
	}
	if c.GoMaxProcs != nil {
		parts = append(parts, fmt.Sprintf("GOMAXPROCS %d", *c.GoMaxProcs))
	}
	if c.GoMemLimit != nil {
		parts = append(parts, "GOMEMLIMIT "+*c.GoMemLimit)
	}
	if c.GoGC != nil {
		parts = append(parts, "GOGC "+*c.GoGC)
	}
	if c.Heap != nil {
		parts = append(parts, "heap "+*c.Heap)
	}
	if c.GC != nil {
		parts = append(parts, *c.GC)
	}
	if c.Flags != nil {
		parts = append(parts, "flags "+*c.Flags)
	}
	return strings.Join(parts, ", ")
}

// heapLabel names a variant's heap: "heap 512m", "GOMEMLIMIT off".
func heapLabel(v *analysis.Variant) string {
	switch c := v.Cell; {
	case c.HeapBytes != nil:
		return "heap " + deref(c.Heap)
	case c.GoMemLimit != nil:
		return "GOMEMLIMIT " + *c.GoMemLimit
	}
	return ""
}

// baselineNote says which baseline the batch has, or why it has none.
func baselineNote(b *analysis.Batch) string {
	switch {
	case b.BaselineName == "":
		return fmt.Sprintf("No baseline declared for batch %s: no ratios, verdicts or radar (pass --baseline TARGET).", b.Name)
	case b.Baseline == nil:
		return fmt.Sprintf("Baseline %q (%s) is not in batch %s: this batch has no ratios, verdicts or radar; ranking across batches is refused.", b.BaselineName, b.BaselineFrom, b.Name)
	}
	return fmt.Sprintf("Baseline: %s (%s).", b.Baseline.Label, b.BaselineFrom)
}

// palette colours the variants in plan order; the baseline is always the
// first colour.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// color is variant v's colour in batch b's charts.
func color(b *analysis.Batch, v *analysis.Variant) string {
	return palette[b.ColorIndex(v)%len(palette)]
}

// fmtWindows describes a batch's windows, each distinct set once;
// adaptive warm-ups as "warm-up auto" with the range the cells took.
func fmtWindows(ws []analysis.Window) string {
	var out []string
	for _, w := range ws {
		rest := fmt.Sprintf("measure %s, discard head %s", fmtDurUS(w.Measure), fmtDurUS(w.DiscardHead))
		if w.Auto {
			out = append(out, fmt.Sprintf("warm-up auto (%s to %s), %s", fmtDurUS(w.Warmup), fmtDurUS(w.WarmupMax), rest))
		} else {
			out = append(out, "warm-up "+fmtDurUS(w.Warmup)+", "+rest)
		}
	}
	if len(out) == 0 {
		return "not measured"
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// cpuSets is the batch's CPU sets in words.
func cpuSets(pb *pipeline.Batch) string {
	cpu := "target " + orDash(pb.Placement.Target.String())
	if len(pb.Placement.Services) > 0 {
		cpu += ", services " + pb.Placement.Services.String()
	}
	return cpu + ", load generator " + orDash(pb.Placement.Loadgen.String())
}

// preconditions is the batch-wide precondition line every table carries.
func preconditions(b *analysis.Batch) string {
	parts := []string{"batch " + b.Name}
	if b.Plan != nil {
		parts = append(parts, "CPU sets: "+cpuSets(b.Plan), fmt.Sprintf("processors %d", b.Plan.Processors))
	}
	windows := fmtWindows(b.Windows)
	if b.Holds() {
		windows = "the whole hold kept"
	}
	parts = append(parts, windows, fmt.Sprintf("repeats %d", b.Repeats))
	if b.Plan != nil {
		parts = append(parts, "margin "+margins(b))
	} else {
		parts = append(parts, "margin unknown (0)")
	}
	return strings.Join(parts, " · ")
}

// label is a variant's name in tables other than the main one, marked
// when any of its repeats at the point was unfair.
func label(g *analysis.RepeatSet) string {
	if len(g.Unfair) > 0 {
		return g.Variant.Label + " UNFAIR"
	}
	return g.Variant.Label
}

// status is a repeat set's cells by status, unless all were ok.
func status(g *analysis.RepeatSet) string {
	var parts []string
	if g.N.Unfair > 0 {
		parts = append(parts, fmt.Sprintf("UNFAIR %d (%s)", g.N.Unfair, strings.Join(g.Unfair, ", ")))
	}
	if g.N.Failed > 0 {
		parts = append(parts, fmt.Sprintf("failed %d", g.N.Failed))
	}
	if g.N.Pending > 0 {
		parts = append(parts, fmt.Sprintf("pending %d", g.N.Pending))
	}
	if len(parts) == 0 {
		return pipeline.StatusOK
	}
	return strings.Join(parts, ", ")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
