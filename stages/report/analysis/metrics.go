package analysis

import (
	"math"
	"strconv"

	"yardstick/datasets"
	"yardstick/decide"
)

// A Column is one column of the report's main table.
type Column struct {
	// Key names the column: a compared metric's name (decide.Metrics),
	// or the report's own for a column without decisions.
	Key   string
	Title string
	// Unit is the unit of the column's values, as SCHEMA.md writes it.
	Unit string
	// Lower says lower is better.
	Lower bool
	// Cmp names the metric in the comparisons table (decide.Metrics);
	// "" for a column without decisions (tails, RSS after, max: max
	// varies 106-385% between identical runs).
	Cmp string
	Get func(*datasets.Cell) (float64, bool)
	// Count is the tail count shown beside a share; nil for the others.
	Count func(*datasets.Cell) (float64, bool)
}

// Ranked says the metric gets decisions, wins and radar scores.
func (m Column) Ranked() bool { return m.Cmp != "" }

func i64(p *int64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return float64(*p), true
}

func f64(p *float64) (float64, bool) {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return 0, false
	}
	return *p, true
}

// ranked is the column of a compared metric.
func ranked(m decide.Metric) Column {
	return Column{Key: m.Name, Title: m.Title, Unit: m.Unit, Lower: m.LowerIsBetter, Cmp: m.Name, Get: m.Value}
}

// Metrics are the main table's columns, in order: every compared metric
// of decide.Metrics in the registry's order, and the report's own columns
// without decisions beside the metric they belong to (the tail shares and
// the maximum after p99.9, RSS after the load after RSS under load).
func Columns() []Column {
	var ms []Column
	for _, m := range decide.Metrics {
		if !m.Applies("closed") {
			continue // a connection-holding cell's: HoldColumns
		}
		ms = append(ms, ranked(m))
		switch m.Name {
		case "latency_p999":
			ms = append(ms, tailColumns()...)
			ms = append(ms, Column{Key: "max", Title: "max (not ranked)", Unit: "us", Lower: true,
				Get: func(c *datasets.Cell) (float64, bool) { return i64(c.LatencyMaxUS) }})
		case "rss":
			ms = append(ms, Column{Key: "rss_after", Title: "RSS after", Unit: "bytes", Lower: true,
				Get: func(c *datasets.Cell) (float64, bool) { return i64(c.RSSAfterBytes) }})
		}
	}
	return ms
}

// HoldColumns are the columns of a batch of connection-holding cells
// (workload.hold): the compared metrics taken of them, in the
// registry's order, with the threads and the breaking point beside.
func HoldColumns() []Column {
	var ms []Column
	for _, m := range decide.Metrics {
		if m.Applies("hold") {
			ms = append(ms, ranked(m))
		}
	}
	return append(ms,
		Column{Key: "threads", Title: "threads", Unit: "threads", Lower: true, Get: func(c *datasets.Cell) (float64, bool) { return i64(c.Threads) }},
		Column{Key: "breaking", Title: "breaking point", Unit: "connections", Get: func(c *datasets.Cell) (float64, bool) { return i64(c.HoldBreakingConnections) }})
}

// Headline are the columns of the metrics that lead point p's answer
// (decide.Headline): throughput and p99, or a hold point's own.
func Headline(p Point) []Column {
	var out []Column
	for _, k := range decide.Headline(p.Mode) {
		out = append(out, ColumnByKey(k))
	}
	return out
}

// Holds says the batch's cells hold connections (workload.hold) rather
// than send requests.
func (b *Batch) Holds() bool {
	return len(b.Points) > 0 && b.Points[0].Mode == "hold"
}

// Columns are the batch's table columns: HoldColumns for a batch that
// holds connections, else the package's Columns.
func (b *Batch) Columns() []Column {
	if b.Holds() {
		return HoldColumns()
	}
	return Columns()
}

// tailColumns are the shares of requests above each tail threshold.
func tailColumns() []Column {
	var ms []Column
	for i, us := range datasets.TailThresholdsUS {
		ms = append(ms, Column{
			Key: "tail" + strconv.Itoa(int(us/1000)) + "ms", Title: ">" + strconv.Itoa(int(us/1000)) + " ms", Unit: "fraction", Lower: true,
			Get:   func(c *datasets.Cell) (float64, bool) { return f64(c.Tails[i].Share) },
			Count: func(c *datasets.Cell) (float64, bool) { return i64(c.Tails[i].Count) },
		})
	}
	return ms
}

// LimitColumns are the container-limit figures of a batch whose targets
// ran under limits, shown beside p99: the share of the kept window's CFS
// periods in which the target used up its quota, the time it waited for
// the next period per second of window, its control group's memory
// events and the processor count its runtime saw.
var LimitColumns = []Column{
	{Key: "throttled", Title: "throttled periods", Lower: true, Get: func(c *datasets.Cell) (float64, bool) { return f64(c.CPUThrottledShare) }},
	{Key: "throttled_time", Title: "throttled ms/s", Lower: true, Get: throttledPerSecond},
	{Key: "memory_max_hits", Title: "memory.max hits", Lower: true, Get: func(c *datasets.Cell) (float64, bool) { return i64(c.MemoryMaxHits) }},
	{Key: "oom_kills", Title: "OOM kills", Lower: true, Get: func(c *datasets.Cell) (float64, bool) { return i64(c.OOMKills) }},
	{Key: "seen_processors", Title: "runtime's processors", Get: func(c *datasets.Cell) (float64, bool) { return i64(c.SeenProcessors) }},
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

// ColumnByKey is the metric with key k; it panics on a key that is not
// one of Metrics' (a programming error).
func ColumnByKey(k string) Column {
	for _, m := range append(Columns(), HoldColumns()...) {
		if m.Key == k {
			return m
		}
	}
	panic("analysis: no metric " + k)
}
