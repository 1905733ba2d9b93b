package datasets

import "strconv"

// A Second is one row of the timeseries table: one second of one cell's
// load, counted from the load generator's start (warm-up included).
type Second struct {
	CellID   string
	Second   int64
	InWindow bool
	Requests int64
	Errors   int64
	// The latencies are null in a second without a completed request.
	P50US    *int64
	P99US    *int64
	MaxUS    *int64
	RSSBytes int64
	CPUUS    int64
}

// Timeseries is the timeseries table: cell x second, cells in plan order,
// then by second.
var Timeseries = newTable("timeseries",
	dictCol("cell_id", func(r *Second) *string { return &r.CellID }),
	int64Col("second", func(r *Second) *int64 { return &r.Second }),
	boolCol("in_window", func(r *Second) *bool { return &r.InWindow }),
	int64Col("requests", func(r *Second) *int64 { return &r.Requests }),
	int64Col("errors", func(r *Second) *int64 { return &r.Errors }),
	optInt64Col("p50_us", func(r *Second) **int64 { return &r.P50US }),
	optInt64Col("p99_us", func(r *Second) **int64 { return &r.P99US }),
	optInt64Col("max_us", func(r *Second) **int64 { return &r.MaxUS }),
	int64Col("rss_bytes", func(r *Second) *int64 { return &r.RSSBytes }),
	int64Col("cpu_us", func(r *Second) *int64 { return &r.CPUUS }),
)

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
