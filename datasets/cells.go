package datasets

import (
	"slices"
	"time"
)

// TailThresholdsUS are the latency thresholds of the cells table's tail
// columns, in microseconds: tail_over_<t>_count and tail_over_<t>_share for
// 1 ms, 10 ms, 25 ms and 100 ms.
var TailThresholdsUS = [4]int64{1_000, 10_000, 25_000, 100_000}

// Tail is the part of a cell's kept-window latency distribution above one
// threshold: how many requests, and what share of all of them.
type Tail struct {
	Count *int64
	Share *float64
}

// A Cell is a cell as a row of the cells table: one planned cell
// (pipeline.Cell), measured or not.
// Pointer fields are null where the cell did not measure them (a pending
// cell has only the plan's columns). See SCHEMA.md for units and meaning.
// Fields follow the columns in order: StartGroup is start_group, Tails[i]
// are tail_over_<TailThresholdsUS[i]>_count and _share.
type Cell struct {
	Batch      string
	CellID     string
	CellName   string
	Seq        int64
	StartGroup int64
	Target     string
	Variant    string
	Kind       string

	GoMaxProcs      *int64
	GoMemLimit      *string
	GoMemLimitBytes *int64
	GoGC            *string
	GC              *string
	Heap            *string
	HeapBytes       *int64
	Processors      *int64
	Flags           *string

	Payload      *int64
	Mode         string
	Concurrency  *int64
	Connections  *int64
	RateTarget   *float64
	PeakFraction *float64
	Repeat       int64

	Status string
	Error  *string
	// UnfairChecks lists the failed fairness checks, comma-separated.
	UnfairChecks *string
	Start        *string

	Requests       *int64
	Errors         *int64
	RPS            *float64
	KeptDurationUS *int64
	WarmupUS       *int64
	MeasureUS      *int64
	DiscardHeadUS  *int64
	LoadIntervalUS *int64
	WarmupAuto     *bool
	WarmupCapped   *bool

	SteadyClass     *string
	SteadyStartUS   *int64
	Changepoints    *int64
	KeptChange      *float64
	KeptSteady      *bool
	P99Class        *string
	P99Changepoints *int64
	P99KeptChange   *float64
	P99KeptSteady   *bool
	NoiseRPS        *float64
	NoiseP99        *float64
	SteadyError     *string

	LatencyMeanUS  *float64
	LatencyP50US   *int64
	LatencyP90US   *int64
	LatencyP99US   *int64
	LatencyP999US  *int64
	LatencyP9999US *int64
	LatencyMaxUS   *int64
	LatencyMinUS   *int64
	// Tails follow TailThresholdsUS.
	Tails [4]Tail

	RSSSteadyBytes   *int64
	RSSPeakBytes     *int64
	RSSAfterBytes    *int64
	TargetCPUUS      *int64
	CPUPerRequestUS  *float64
	ColdStartUS      *int64
	ColdStartFirstUS *int64
	Threads          *int64
	EventLoopThreads *int64

	GCSource       *string
	GCCount        *int64
	GCPauseTotalUS *int64
	GCPauseMaxUS   *int64
	GCCountBefore  *int64
	GCCountAfter   *int64

	LimitCPUs             *float64
	LimitPeriodUS         *int64
	LimitMemory           *string
	LimitMemoryBytes      *int64
	Cgroup                *string
	CPUPeriods            *int64
	CPUThrottledPeriods   *int64
	CPUThrottledUS        *int64
	CPUThrottledShare     *float64
	CgroupCPUUS           *int64
	MemoryMaxHits         *int64
	OOMKills              *int64
	CgroupMemoryPeakBytes *int64
	SeenProcessors        *int64
	SeenMemoryBytes       *int64
	SeenHeapMaxBytes      *int64

	LogBytes                *int64
	LogBytesPerRequest      *float64
	ResponseBytes           *int64
	ResponseBytesPerRequest *float64

	LoadgenCPUUS      *int64
	LoadgenDurationUS *int64
	LoadgenCPUs       *int64
	LoadgenCPUShare   *float64
	Sends             *int64
	LateSends         *int64

	OthersCPUUS           *int64
	OthersCPUShare        *float64
	LoadgenOthersCPUUS    *int64
	LoadgenOthersCPUShare *float64

	Started   *time.Time
	Ended     *time.Time
	LoadStart *time.Time
	KeptStart *time.Time
	KeptEnd   *time.Time

	// A connection-holding cell's figures at its last step (workload.hold;
	// the holds table has every step): connections held, the target's
	// memory growth per connection held, the heartbeats' delay p99, and
	// the connections of the step it first failed (nil: none failed).
	HoldHeld                *int64
	HoldMemoryPerConnection *float64
	HoldDelayP99US          *int64
	HoldBreakingConnections *int64
}

// Cells is the cells table: one row per planned cell, in plan order.
var Cells = newTable("cells", cellColumns()...)

func cellColumns() []column[Cell] {
	return slices.Concat(
		cellPlanColumns(),
		cellKnobColumns(),
		cellPointColumns(),
		cellOutcomeColumns(),
		cellLoadColumns(),
		cellSteadyColumns(),
		cellLatencyColumns(),
		cellTailColumns(),
		cellTargetColumns(),
		cellGCColumns(),
		cellLimitColumns(),
		cellBytesColumns(),
		cellLoadgenColumns(),
		cellOthersColumns(),
		cellHoldColumns(),
		cellTimeColumns(),
	)
}

// cellHoldColumns are a connection-holding cell's figures at its last
// step.
func cellHoldColumns() []column[Cell] {
	return []column[Cell]{
		optInt64Col("hold_held", func(r *Cell) **int64 { return &r.HoldHeld }),
		optFloat64Col("hold_memory_per_connection_bytes", func(r *Cell) **float64 { return &r.HoldMemoryPerConnection }),
		optInt64Col("hold_delay_p99_us", func(r *Cell) **int64 { return &r.HoldDelayP99US }),
		optInt64Col("hold_breaking_connections", func(r *Cell) **int64 { return &r.HoldBreakingConnections }),
	}
}

// cellPlanColumns say which planned cell a row is.
func cellPlanColumns() []column[Cell] {
	return []column[Cell]{
		dictCol("batch", func(r *Cell) *string { return &r.Batch }),
		textCol("cell_id", func(r *Cell) *string { return &r.CellID }),
		textCol("cell_name", func(r *Cell) *string { return &r.CellName }),
		int64Col("seq", func(r *Cell) *int64 { return &r.Seq }),
		int64Col("start_group", func(r *Cell) *int64 { return &r.StartGroup }),
		dictCol("target", func(r *Cell) *string { return &r.Target }),
		dictCol("variant", func(r *Cell) *string { return &r.Variant }),
		dictCol("kind", func(r *Cell) *string { return &r.Kind }),
	}
}

// cellKnobColumns are the variant's typed knobs.
func cellKnobColumns() []column[Cell] {
	return []column[Cell]{
		optInt64Col("gomaxprocs", func(r *Cell) **int64 { return &r.GoMaxProcs }),
		optDictCol("gomemlimit", func(r *Cell) **string { return &r.GoMemLimit }),
		optInt64Col("gomemlimit_bytes", func(r *Cell) **int64 { return &r.GoMemLimitBytes }),
		optDictCol("gogc", func(r *Cell) **string { return &r.GoGC }),
		optDictCol("gc", func(r *Cell) **string { return &r.GC }),
		optDictCol("heap", func(r *Cell) **string { return &r.Heap }),
		optInt64Col("heap_bytes", func(r *Cell) **int64 { return &r.HeapBytes }),
		optInt64Col("processors", func(r *Cell) **int64 { return &r.Processors }),
		optDictCol("flags", func(r *Cell) **string { return &r.Flags }),
	}
}

// cellPointColumns are the workload point and the repeat.
func cellPointColumns() []column[Cell] {
	return []column[Cell]{
		optInt64Col("payload", func(r *Cell) **int64 { return &r.Payload }),
		dictCol("mode", func(r *Cell) *string { return &r.Mode }),
		optInt64Col("concurrency", func(r *Cell) **int64 { return &r.Concurrency }),
		optInt64Col("connections", func(r *Cell) **int64 { return &r.Connections }),
		optFloat64Col("rate_target", func(r *Cell) **float64 { return &r.RateTarget }),
		optFloat64Col("peak_fraction", func(r *Cell) **float64 { return &r.PeakFraction }),
		int64Col("repeat", func(r *Cell) *int64 { return &r.Repeat }),
	}
}

// cellOutcomeColumns say how the cell ended and on which start.
func cellOutcomeColumns() []column[Cell] {
	return []column[Cell]{
		dictCol("status", func(r *Cell) *string { return &r.Status }),
		optTextCol("error", func(r *Cell) **string { return &r.Error }),
		optTextCol("unfair_checks", func(r *Cell) **string { return &r.UnfairChecks }),
		optTextCol("start", func(r *Cell) **string { return &r.Start }),
	}
}

// cellLoadColumns are the kept window's throughput and the windows.
func cellLoadColumns() []column[Cell] {
	return []column[Cell]{
		optInt64Col("requests", func(r *Cell) **int64 { return &r.Requests }),
		optInt64Col("errors", func(r *Cell) **int64 { return &r.Errors }),
		optFloat64Col("rps", func(r *Cell) **float64 { return &r.RPS }),
		optInt64Col("kept_duration_us", func(r *Cell) **int64 { return &r.KeptDurationUS }),
		optInt64Col("warmup_us", func(r *Cell) **int64 { return &r.WarmupUS }),
		optInt64Col("measure_us", func(r *Cell) **int64 { return &r.MeasureUS }),
		optInt64Col("discard_head_us", func(r *Cell) **int64 { return &r.DiscardHeadUS }),
		optInt64Col("load_interval_us", func(r *Cell) **int64 { return &r.LoadIntervalUS }),
		optBoolCol("warmup_auto", func(r *Cell) **bool { return &r.WarmupAuto }),
		optBoolCol("warmup_capped", func(r *Cell) **bool { return &r.WarmupCapped }),
	}
}

// cellSteadyColumns are the changepoint analysis of the cell's load
// series (throughput and p99 per interval) and the kept window's measured
// noise.
func cellSteadyColumns() []column[Cell] {
	return []column[Cell]{
		optDictCol("steady_class", func(r *Cell) **string { return &r.SteadyClass }),
		optInt64Col("steady_start_us", func(r *Cell) **int64 { return &r.SteadyStartUS }),
		optInt64Col("changepoints", func(r *Cell) **int64 { return &r.Changepoints }),
		optFloat64Col("kept_change", func(r *Cell) **float64 { return &r.KeptChange }),
		optBoolCol("kept_steady", func(r *Cell) **bool { return &r.KeptSteady }),
		optDictCol("p99_class", func(r *Cell) **string { return &r.P99Class }),
		optInt64Col("p99_changepoints", func(r *Cell) **int64 { return &r.P99Changepoints }),
		optFloat64Col("p99_kept_change", func(r *Cell) **float64 { return &r.P99KeptChange }),
		optBoolCol("p99_kept_steady", func(r *Cell) **bool { return &r.P99KeptSteady }),
		optFloat64Col("noise_rps", func(r *Cell) **float64 { return &r.NoiseRPS }),
		optFloat64Col("noise_p99", func(r *Cell) **float64 { return &r.NoiseP99 }),
		optTextCol("steady_error", func(r *Cell) **string { return &r.SteadyError }),
	}
}

// cellLatencyColumns are the kept window's latency figures.
func cellLatencyColumns() []column[Cell] {
	return []column[Cell]{
		optFloat64Col("latency_mean_us", func(r *Cell) **float64 { return &r.LatencyMeanUS }),
		optInt64Col("latency_p50_us", func(r *Cell) **int64 { return &r.LatencyP50US }),
		optInt64Col("latency_p90_us", func(r *Cell) **int64 { return &r.LatencyP90US }),
		optInt64Col("latency_p99_us", func(r *Cell) **int64 { return &r.LatencyP99US }),
		optInt64Col("latency_p999_us", func(r *Cell) **int64 { return &r.LatencyP999US }),
		optInt64Col("latency_p9999_us", func(r *Cell) **int64 { return &r.LatencyP9999US }),
		optInt64Col("latency_max_us", func(r *Cell) **int64 { return &r.LatencyMaxUS }),
		optInt64Col("latency_min_us", func(r *Cell) **int64 { return &r.LatencyMinUS }),
	}
}

// cellTailColumns are a count and a share per threshold of
// TailThresholdsUS.
func cellTailColumns() []column[Cell] {
	var cols []column[Cell]
	for i, t := range TailThresholdsUS {
		name := "tail_over_" + thresholdName(t)
		cols = append(cols,
			optInt64Col(name+"_count", func(r *Cell) **int64 { return &r.Tails[i].Count }),
			optFloat64Col(name+"_share", func(r *Cell) **float64 { return &r.Tails[i].Share }))
	}
	return cols
}

// cellTargetColumns are the target's memory, CPU, cold start and threads.
func cellTargetColumns() []column[Cell] {
	return []column[Cell]{
		optInt64Col("rss_steady_bytes", func(r *Cell) **int64 { return &r.RSSSteadyBytes }),
		optInt64Col("rss_peak_bytes", func(r *Cell) **int64 { return &r.RSSPeakBytes }),
		optInt64Col("rss_after_bytes", func(r *Cell) **int64 { return &r.RSSAfterBytes }),
		optInt64Col("target_cpu_us", func(r *Cell) **int64 { return &r.TargetCPUUS }),
		optFloat64Col("cpu_per_request_us", func(r *Cell) **float64 { return &r.CPUPerRequestUS }),
		optInt64Col("cold_start_us", func(r *Cell) **int64 { return &r.ColdStartUS }),
		optInt64Col("cold_start_first_us", func(r *Cell) **int64 { return &r.ColdStartFirstUS }),
		optInt64Col("threads", func(r *Cell) **int64 { return &r.Threads }),
		optInt64Col("event_loop_threads", func(r *Cell) **int64 { return &r.EventLoopThreads }),
	}
}

// cellGCColumns are the GC log's figures.
func cellGCColumns() []column[Cell] {
	return []column[Cell]{
		optDictCol("gc_source", func(r *Cell) **string { return &r.GCSource }),
		optInt64Col("gc_count", func(r *Cell) **int64 { return &r.GCCount }),
		optInt64Col("gc_pause_total_us", func(r *Cell) **int64 { return &r.GCPauseTotalUS }),
		optInt64Col("gc_pause_max_us", func(r *Cell) **int64 { return &r.GCPauseMaxUS }),
		optInt64Col("gc_count_before", func(r *Cell) **int64 { return &r.GCCountBefore }),
		optInt64Col("gc_count_after", func(r *Cell) **int64 { return &r.GCCountAfter }),
	}
}

// cellLimitColumns are the container limits the cell ran under, its
// control group's figures over the kept window and what the runtime saw.
func cellLimitColumns() []column[Cell] {
	return []column[Cell]{
		optFloat64Col("limit_cpus", func(r *Cell) **float64 { return &r.LimitCPUs }),
		optInt64Col("limit_period_us", func(r *Cell) **int64 { return &r.LimitPeriodUS }),
		optDictCol("limit_memory", func(r *Cell) **string { return &r.LimitMemory }),
		optInt64Col("limit_memory_bytes", func(r *Cell) **int64 { return &r.LimitMemoryBytes }),
		optDictCol("cgroup", func(r *Cell) **string { return &r.Cgroup }),
		optInt64Col("cpu_periods", func(r *Cell) **int64 { return &r.CPUPeriods }),
		optInt64Col("cpu_throttled_periods", func(r *Cell) **int64 { return &r.CPUThrottledPeriods }),
		optInt64Col("cpu_throttled_us", func(r *Cell) **int64 { return &r.CPUThrottledUS }),
		optFloat64Col("cpu_throttled_share", func(r *Cell) **float64 { return &r.CPUThrottledShare }),
		optInt64Col("cgroup_cpu_us", func(r *Cell) **int64 { return &r.CgroupCPUUS }),
		optInt64Col("memory_max_hits", func(r *Cell) **int64 { return &r.MemoryMaxHits }),
		optInt64Col("oom_kills", func(r *Cell) **int64 { return &r.OOMKills }),
		optInt64Col("cgroup_memory_peak_bytes", func(r *Cell) **int64 { return &r.CgroupMemoryPeakBytes }),
		optInt64Col("seen_processors", func(r *Cell) **int64 { return &r.SeenProcessors }),
		optInt64Col("seen_memory_bytes", func(r *Cell) **int64 { return &r.SeenMemoryBytes }),
		optInt64Col("seen_heap_max_bytes", func(r *Cell) **int64 { return &r.SeenHeapMaxBytes }),
	}
}

// cellBytesColumns are the access log's and the responses' bytes.
func cellBytesColumns() []column[Cell] {
	return []column[Cell]{
		optInt64Col("log_bytes", func(r *Cell) **int64 { return &r.LogBytes }),
		optFloat64Col("log_bytes_per_request", func(r *Cell) **float64 { return &r.LogBytesPerRequest }),
		optInt64Col("response_bytes", func(r *Cell) **int64 { return &r.ResponseBytes }),
		optFloat64Col("response_bytes_per_request", func(r *Cell) **float64 { return &r.ResponseBytesPerRequest }),
	}
}

// cellOthersColumns are what other work on the machine took of the
// target's and of the load generator's CPUs in the kept window.
func cellOthersColumns() []column[Cell] {
	return []column[Cell]{
		optInt64Col("others_cpu_us", func(r *Cell) **int64 { return &r.OthersCPUUS }),
		optFloat64Col("others_cpu_share", func(r *Cell) **float64 { return &r.OthersCPUShare }),
		optInt64Col("loadgen_others_cpu_us", func(r *Cell) **int64 { return &r.LoadgenOthersCPUUS }),
		optFloat64Col("loadgen_others_cpu_share", func(r *Cell) **float64 { return &r.LoadgenOthersCPUShare }),
	}
}

// cellLoadgenColumns are the load generator's own cost and sends.
func cellLoadgenColumns() []column[Cell] {
	return []column[Cell]{
		optInt64Col("loadgen_cpu_us", func(r *Cell) **int64 { return &r.LoadgenCPUUS }),
		optInt64Col("loadgen_duration_us", func(r *Cell) **int64 { return &r.LoadgenDurationUS }),
		optInt64Col("loadgen_cpus", func(r *Cell) **int64 { return &r.LoadgenCPUs }),
		optFloat64Col("loadgen_cpu_share", func(r *Cell) **float64 { return &r.LoadgenCPUShare }),
		optInt64Col("sends", func(r *Cell) **int64 { return &r.Sends }),
		optInt64Col("late_sends", func(r *Cell) **int64 { return &r.LateSends }),
	}
}

// cellTimeColumns are when the cell and its windows began and ended.
func cellTimeColumns() []column[Cell] {
	return []column[Cell]{
		optTimeCol("started", func(r *Cell) **time.Time { return &r.Started }),
		optTimeCol("ended", func(r *Cell) **time.Time { return &r.Ended }),
		optTimeCol("load_start", func(r *Cell) **time.Time { return &r.LoadStart }),
		optTimeCol("kept_start", func(r *Cell) **time.Time { return &r.KeptStart }),
		optTimeCol("kept_end", func(r *Cell) **time.Time { return &r.KeptEnd }),
	}
}

// thresholdName names a threshold in microseconds for a column: 1ms,
// 25ms, 500us.
func thresholdName(us int64) string {
	if us%1000 == 0 {
		return itoa(us/1000) + "ms"
	}
	return itoa(us) + "us"
}
