package datasets

import "strconv"

// An Interval is one row of the timeseries table: one reporting interval
// (100 ms by default) of one cell's load, counted from the load
// generator's start (warm-up included).
type Interval struct {
	CellID string
	// Interval is the interval's index from 0; StartUS when it starts,
	// from the load's start; DurationUS its length (the last one may be
	// shorter).
	Interval   int64
	StartUS    int64
	DurationUS int64
	InWindow   bool
	// Segment is the index of the throughput segment (between
	// changepoints) the interval is in; null without an analysis.
	Segment  *int64
	Requests int64
	Errors   int64
	// The latencies are null in an interval without a completed request.
	P50US *int64
	P99US *int64
	MaxUS *int64
	// RSSBytes and CPUUS are null in an interval without a /proc sample.
	RSSBytes *int64
	CPUUS    *int64
	// Hist is the interval's latency histogram, HdrHistogram V2
	// compressed (base64); null without a completed request. Merging the
	// in_window ones gives the cell's histogram.
	Hist *string
}

// Timeseries is the timeseries table: cell x interval, cells in plan
// order, then by interval.
var Timeseries = newTable("timeseries",
	dictCol("cell_id", func(r *Interval) *string { return &r.CellID }),
	int64Col("interval", func(r *Interval) *int64 { return &r.Interval }),
	int64Col("start_us", func(r *Interval) *int64 { return &r.StartUS }),
	int64Col("duration_us", func(r *Interval) *int64 { return &r.DurationUS }),
	boolCol("in_window", func(r *Interval) *bool { return &r.InWindow }),
	optInt64Col("segment", func(r *Interval) **int64 { return &r.Segment }),
	int64Col("requests", func(r *Interval) *int64 { return &r.Requests }),
	int64Col("errors", func(r *Interval) *int64 { return &r.Errors }),
	optInt64Col("p50_us", func(r *Interval) **int64 { return &r.P50US }),
	optInt64Col("p99_us", func(r *Interval) **int64 { return &r.P99US }),
	optInt64Col("max_us", func(r *Interval) **int64 { return &r.MaxUS }),
	optInt64Col("rss_bytes", func(r *Interval) **int64 { return &r.RSSBytes }),
	optInt64Col("cpu_us", func(r *Interval) **int64 { return &r.CPUUS }),
	optTextCol("hist", func(r *Interval) **string { return &r.Hist }),
)

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
