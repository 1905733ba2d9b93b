package datasets

import "time"

// A HistoryPoint is one row of the history table: one run's figure of
// one metric of one cell (batch, variant and workload point, the repeats
// pooled) in the history of an experiment that `yardstick history`
// builds, with the marks of its run and the changepoint found at it, if
// any. Unlike the run's tables it spans many runs: the file's run_id
// column (from Meta) is the newest run of the history, and Run is the
// row's own run.
type HistoryPoint struct {
	Batch   string
	Variant string
	Point   string
	Metric  string
	// Index is the run's position in the history, from 0 in run order.
	Index    int64
	Run      string
	Date     time.Time
	PlanHash string
	// Mean is the mean over the run's starts of the metric; Low and High
	// bound its 95% interval (null with fewer starts than an interval
	// needs and no within-start uncertainty).
	Mean   *float64
	Low    *float64
	High   *float64
	Starts int64
	// Busy: other work took a tenth or more of the run's CPUs
	// (decide.Busy).
	Busy bool
	// Marks lists, comma-separated, what changed at this run from the
	// run before: environment, binaries, plan; null when nothing did.
	Marks *string
	// Change* describe the changepoint at this run, if one was found:
	// the ratio of the segment from this run to the segment before, its
	// interval and its outcome against Margin.
	ChangeRatio   *float64
	ChangeLow     *float64
	ChangeHigh    *float64
	ChangeVerdict *string
	Margin        float64
}

// History is the history table (history.parquet, written by yardstick
// history beside its report, not in a run directory): one row per run,
// cell and metric, in cell, metric and run order.
var History = newTable("history",
	dictCol("batch", func(r *HistoryPoint) *string { return &r.Batch }),
	dictCol("variant", func(r *HistoryPoint) *string { return &r.Variant }),
	dictCol("point", func(r *HistoryPoint) *string { return &r.Point }),
	dictCol("metric", func(r *HistoryPoint) *string { return &r.Metric }),
	int64Col("run_index", func(r *HistoryPoint) *int64 { return &r.Index }),
	dictCol("point_run_id", func(r *HistoryPoint) *string { return &r.Run }),
	timeCol("run_date", func(r *HistoryPoint) *time.Time { return &r.Date }),
	dictCol("plan_hash", func(r *HistoryPoint) *string { return &r.PlanHash }),
	optFloat64Col("mean", func(r *HistoryPoint) **float64 { return &r.Mean }),
	optFloat64Col("ci_low", func(r *HistoryPoint) **float64 { return &r.Low }),
	optFloat64Col("ci_high", func(r *HistoryPoint) **float64 { return &r.High }),
	int64Col("starts", func(r *HistoryPoint) *int64 { return &r.Starts }),
	boolCol("busy", func(r *HistoryPoint) *bool { return &r.Busy }),
	optDictCol("marks", func(r *HistoryPoint) **string { return &r.Marks }),
	optFloat64Col("change_ratio", func(r *HistoryPoint) **float64 { return &r.ChangeRatio }),
	optFloat64Col("change_low", func(r *HistoryPoint) **float64 { return &r.ChangeLow }),
	optFloat64Col("change_high", func(r *HistoryPoint) **float64 { return &r.ChangeHigh }),
	optDictCol("change_verdict", func(r *HistoryPoint) **string { return &r.ChangeVerdict }),
	float64Col("margin", func(r *HistoryPoint) *float64 { return &r.Margin }),
)
