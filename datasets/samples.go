package datasets

import "time"

// A Sample is one row of the samples table: one /proc sample of a cell's
// target process group (pipeline.Sample in the checkpoint).
type Sample struct {
	CellID                 string
	Time                   time.Time
	InWindow               bool
	RSSBytes               int64
	CPUUserUS              int64
	CPUSysUS               int64
	Threads                int64
	MatchedThreads         int64
	VoluntaryCtxSwitches   int64
	InvoluntaryCtxSwitches int64
	PIDs                   int64
}

// Samples is the samples table: cell x sample, cells in plan order, then
// by time.
var Samples = newTable("samples",
	dictCol("cell_id", func(r *Sample) *string { return &r.CellID }),
	timeCol("time", func(r *Sample) *time.Time { return &r.Time }),
	boolCol("in_window", func(r *Sample) *bool { return &r.InWindow }),
	int64Col("rss_bytes", func(r *Sample) *int64 { return &r.RSSBytes }),
	int64Col("cpu_user_us", func(r *Sample) *int64 { return &r.CPUUserUS }),
	int64Col("cpu_sys_us", func(r *Sample) *int64 { return &r.CPUSysUS }),
	int64Col("threads", func(r *Sample) *int64 { return &r.Threads }),
	int64Col("matched_threads", func(r *Sample) *int64 { return &r.MatchedThreads }),
	int64Col("voluntary_ctx_switches", func(r *Sample) *int64 { return &r.VoluntaryCtxSwitches }),
	int64Col("involuntary_ctx_switches", func(r *Sample) *int64 { return &r.InvoluntaryCtxSwitches }),
	int64Col("pids", func(r *Sample) *int64 { return &r.PIDs }),
)
