package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"yardstick/datasets"
	"yardstick/stages/report/analysis"
)

// A limitMetric is one container-limit column: how a cell's figure is
// read and written.
type limitMetric struct {
	title  string
	get    func(*datasets.Cell) (float64, bool)
	format func(float64) string
}

func limitF64(p *float64) (float64, bool) {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return 0, false
	}
	return *p, true
}

func limitI64(p *int64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return float64(*p), true
}

// values are m's figures of the sample's measured cells.
func (m limitMetric) values(g *analysis.Sample) []float64 {
	var vs []float64
	for _, c := range g.Measured {
		if v, ok := m.get(c); ok {
			vs = append(vs, v)
		}
	}
	return vs
}

// limitMetrics are the container-limit figures shown beside p99: the
// share of CFS periods in which the target used up its quota and the time
// it waited for the next period per second of window (medians with their
// spread), then counts shown as their range over the repeats: the memory
// events of its control group and the runtime's processor count.
var limitMetrics = []limitMetric{
	{title: "throttled periods", get: func(c *datasets.Cell) (float64, bool) { return limitF64(c.CPUThrottledShare) }, format: fmtPct},
	{title: "throttled ms/s", get: throttledPerSecond, format: func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }},
	{title: "memory.max hits", get: func(c *datasets.Cell) (float64, bool) { return limitI64(c.MemoryMaxHits) }, format: fmtCount},
	{title: "OOM kills", get: func(c *datasets.Cell) (float64, bool) { return limitI64(c.OOMKills) }, format: fmtCount},
	{title: "runtime's processors", get: func(c *datasets.Cell) (float64, bool) { return limitI64(c.SeenProcessors) }, format: fmtCount},
}

func fmtCount(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// fmtRange is a count over the repeats: its one value, or "min-max".
func fmtRange(vs []float64) string {
	if len(vs) == 0 {
		return "-"
	}
	lo, hi := slices.Min(vs), slices.Max(vs)
	if lo == hi {
		return fmtCount(lo)
	}
	return fmtCount(lo) + "-" + fmtCount(hi)
}

// throttledPerSecond is the throttled time in ms per second of the kept
// window.
func throttledPerSecond(c *datasets.Cell) (float64, bool) {
	if c.CPUThrottledUS == nil || c.KeptStart == nil || c.KeptEnd == nil {
		return 0, false
	}
	s := c.KeptEnd.Sub(*c.KeptStart).Seconds()
	if s <= 0 {
		return 0, false
	}
	return float64(*c.CPUThrottledUS) / 1000 / s, true
}

// limitsSection shows, for a batch whose targets ran under container
// limits, each variant's p99 beside its throttling and memory events:
// a quota throttles a target that bursts past it for the rest of each
// period, which is where its tail latency comes from.
func limitsSection(d *doc, b *analysis.Batch) {
	if !anyLimited(b) {
		return
	}
	d.h(3, "Container limits")
	d.p("Targets under a CPU quota or memory limit (limits.cpus, limits.memory), one control group per start. Throttled periods: the share of the kept window's CFS periods in which the target used up its quota and waited for the next one; throttled ms/s: that wait, summed over threads, per second of window. Median of the measured repeats.")
	p99 := metricByKey("p99")
	for _, p := range b.Points {
		head := []string{"variant", "limits", p99.Title}
		for _, m := range limitMetrics {
			head = append(head, m.title)
		}
		var rows [][]string
		for _, v := range b.Variants {
			g := b.Sample(v, p)
			if g == nil || len(g.Measured) == 0 {
				continue
			}
			r := []string{v.Label, limitText(g.Measured[0]), fmtSample(g.Values(p99), formatOf(p99))}
			for i, m := range limitMetrics {
				if i < 2 {
					r = append(r, fmtSample(m.values(g), m.format))
				} else {
					r = append(r, fmtRange(m.values(g)))
				}
			}
			rows = append(rows, r)
		}
		d.table(preconditions(b)+" · "+caption(p), head, rows)
	}
}

// anyLimited reports whether a cell of b ran under limits.
func anyLimited(b *analysis.Batch) bool {
	for _, v := range b.Variants {
		for _, p := range b.Points {
			if g := b.Sample(v, p); g != nil {
				for _, c := range g.Cells {
					if c.LimitCPUs != nil || c.LimitMemoryBytes != nil {
						return true
					}
				}
			}
		}
	}
	return false
}

// limitText is a cell's declared limits ("0.5 CPU / 100ms, 512m").
func limitText(c *datasets.Cell) string {
	s := "-"
	if c.LimitCPUs != nil {
		s = fmt.Sprintf("%s CPU", strconv.FormatFloat(*c.LimitCPUs, 'f', -1, 64))
		if c.LimitPeriodUS != nil {
			s += fmt.Sprintf(" / %sms", strconv.FormatFloat(float64(*c.LimitPeriodUS)/1000, 'f', -1, 64))
		}
	}
	if c.LimitMemory != nil {
		if s == "-" {
			s = *c.LimitMemory
		} else {
			s += ", " + *c.LimitMemory
		}
	}
	return s
}
