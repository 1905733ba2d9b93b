package datasets

// A HoldStep is one row of the holds table: one step of a
// connection-holding cell (workload.hold). What became of the step's
// connections and heartbeats is the load generator's account; the
// target's memory, threads and CPU are read from /proc while it held
// them.
type HoldStep struct {
	CellID  string
	Batch   string
	Variant string
	Repeat  int64
	// Step is the step's index, Connections the count it opens to and holds.
	Step        int64
	Connections int64
	// StartS, OpenedS and EndS are seconds from the load's start: the
	// step's first connection due, its last one due, the end of its hold.
	StartS, OpenedS, EndS float64
	// Complete is false for a step the load's end cut short.
	Complete                                 bool
	Requested, Established, Refused, Dropped int64
	// Held is how many connections were open at the step's end.
	Held       int64
	Heartbeats int64
	Missed     int64
	// The heartbeats' delay past their expected time, coordinated-omission
	// corrected, in microseconds; DelayHist is its HdrHistogram.
	DelayP50US, DelayP99US, DelayP999US, DelayMaxUS int64
	// LatencyP99US is the 99th percentile of the push's receive time less
	// the server's stamp.
	LatencyP99US int64
	DelayHist    string
	// ErrorsByKind is "kind=count" pairs, comma-separated, sorted.
	ErrorsByKind string
	// Failure is how the target failed this step ("refused", "dropped",
	// "missed_heartbeats"); nil if it did not.
	Failure *string
	// Breaking marks the cell's first failed step: its breaking point.
	Breaking bool
	// The target's resident memory and threads at the step's end and its
	// CPU time during the step (nil without the samples); its memory
	// growth since the load began per 1,000 connections held, and its CPU
	// seconds per second per 1,000 connections held.
	TargetRSSBytes  *int64
	TargetThreads   *int64
	TargetCPUS      *float64
	RSSPer1kBytes   *float64
	CPUPer1k        *float64
	LoadgenRSSBytes int64
	LoadgenCPUS     float64
}

// Holds is the holds table: one row per step of every measured hold
// cell, cells in plan order. A run without hold cells has an empty one.
var Holds = newTable("holds",
	dictCol("cell_id", func(r *HoldStep) *string { return &r.CellID }),
	dictCol("batch", func(r *HoldStep) *string { return &r.Batch }),
	dictCol("variant", func(r *HoldStep) *string { return &r.Variant }),
	int64Col("repeat", func(r *HoldStep) *int64 { return &r.Repeat }),
	int64Col("step", func(r *HoldStep) *int64 { return &r.Step }),
	int64Col("connections", func(r *HoldStep) *int64 { return &r.Connections }),
	float64Col("start_s", func(r *HoldStep) *float64 { return &r.StartS }),
	float64Col("opened_s", func(r *HoldStep) *float64 { return &r.OpenedS }),
	float64Col("end_s", func(r *HoldStep) *float64 { return &r.EndS }),
	boolCol("complete", func(r *HoldStep) *bool { return &r.Complete }),
	int64Col("requested", func(r *HoldStep) *int64 { return &r.Requested }),
	int64Col("established", func(r *HoldStep) *int64 { return &r.Established }),
	int64Col("refused", func(r *HoldStep) *int64 { return &r.Refused }),
	int64Col("dropped", func(r *HoldStep) *int64 { return &r.Dropped }),
	int64Col("held", func(r *HoldStep) *int64 { return &r.Held }),
	int64Col("heartbeats", func(r *HoldStep) *int64 { return &r.Heartbeats }),
	int64Col("missed", func(r *HoldStep) *int64 { return &r.Missed }),
	int64Col("delay_p50_us", func(r *HoldStep) *int64 { return &r.DelayP50US }),
	int64Col("delay_p99_us", func(r *HoldStep) *int64 { return &r.DelayP99US }),
	int64Col("delay_p999_us", func(r *HoldStep) *int64 { return &r.DelayP999US }),
	int64Col("delay_max_us", func(r *HoldStep) *int64 { return &r.DelayMaxUS }),
	int64Col("latency_p99_us", func(r *HoldStep) *int64 { return &r.LatencyP99US }),
	textCol("delay_hist", func(r *HoldStep) *string { return &r.DelayHist }),
	textCol("errors_by_kind", func(r *HoldStep) *string { return &r.ErrorsByKind }),
	optDictCol("failure", func(r *HoldStep) **string { return &r.Failure }),
	boolCol("breaking", func(r *HoldStep) *bool { return &r.Breaking }),
	optInt64Col("target_rss_bytes", func(r *HoldStep) **int64 { return &r.TargetRSSBytes }),
	optInt64Col("target_threads", func(r *HoldStep) **int64 { return &r.TargetThreads }),
	optFloat64Col("target_cpu_s", func(r *HoldStep) **float64 { return &r.TargetCPUS }),
	optFloat64Col("rss_per_1k_bytes", func(r *HoldStep) **float64 { return &r.RSSPer1kBytes }),
	optFloat64Col("cpu_per_1k", func(r *HoldStep) **float64 { return &r.CPUPer1k }),
	int64Col("loadgen_rss_bytes", func(r *HoldStep) *int64 { return &r.LoadgenRSSBytes }),
	float64Col("loadgen_cpu_s", func(r *HoldStep) *float64 { return &r.LoadgenCPUS }),
)
