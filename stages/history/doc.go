// Package history reads the runs of one experiment as a history: one
// series per cell (batch, variant and workload point, the repeats pooled)
// and metric, in run order, each run's figure with its interval, the runs
// whose environment, binaries or plan changed marked, the busy runs
// flagged. It finds the changepoints of each series across runs
// (stats/changepoint on the log of the runs' means), sizes each change as
// a ratio with an interval and an outcome against the margin
// (decide.Between, each run a start weighted by its own interval), decides
// one run against the last runs of its plan (Against), and writes the
// history as history.md, history.html, one SVG per metric and
// history.parquet.
//
// It reads the run directories' tables (cells.parquet, batches.parquet),
// environment.json and lock.json, never the checkpoints: a run whose
// tables do not read back is named and skipped, and a run of a newer
// schema version is refused by name.
package history
