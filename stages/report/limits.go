package report

import (
	"fmt"
	"slices"
	"strconv"

	"yardstick/datasets"
	"yardstick/stages/report/analysis"
)

// limitFormats are how the container-limit figures (analysis.LimitColumns)
// are written: the throttling as medians with their spread, the counts as
// their range over the repeats (fmtRange).
var limitFormats = map[string]func(float64) string{
	"throttled":      fmtPct,
	"throttled_time": func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) },
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
	p99 := columnByKey("latency_p99")
	for _, p := range b.Points {
		head := []string{"variant", "limits", p99.Title}
		for _, m := range analysis.LimitColumns {
			head = append(head, m.Title)
		}
		var rows [][]string
		for _, v := range b.Variants {
			g := b.RepeatSet(v, p)
			if g == nil || len(g.Measured) == 0 {
				continue
			}
			r := []string{v.Label, limitText(g.Measured[0]), fmtRepeats(g.Summary(p99), formatOf(p99))}
			for _, m := range analysis.LimitColumns {
				if f := limitFormats[m.Key]; f != nil {
					r = append(r, fmtRepeats(g.Summary(m), f))
				} else {
					r = append(r, fmtRange(g.Values(m)))
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
			if g := b.RepeatSet(v, p); g != nil {
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
