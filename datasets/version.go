// Package datasets is yardstick's only door to Parquet: the tables of a run
// (cells, timeseries, histograms, spectrum, samples, fairness, environment),
// their Arrow schemas, and how they are written and read.
//
// Each table is a [Table] of a row type: [Cells] holds [Cell] rows,
// [Timeseries] holds [Interval] rows, and so on. A table is written with
// [Table.Write] (or [Table.Create] and [Writer.Append] to stream rows) as
// <dir>/<name>.parquet, atomically: a temporary file in the same directory,
// fsynced, then renamed. It is read back with [Table.Read] into rows, or
// with [ReadTable] into an Arrow table.
//
// Every file has the same shape:
//
//   - the first two columns, experiment and run_id, come from the [Meta]
//     given to the writer, so a glob over many runs still says which run a
//     row came from; row types do not repeat them;
//   - strings whose values repeat are dictionary-encoded, timestamps are
//     timestamp[us, UTC], durations are integers with the unit in the column
//     name (_us, _ns), sizes are integer bytes (_bytes);
//   - the pages are zstd-compressed, the Arrow schema is stored in the file
//     (so dictionary columns read back as dictionaries), and the key/value
//     metadata carries [SchemaVersion], the yardstick version, the plan hash,
//     the experiment, the run id and the table name (keys Key*).
//
// Output is deterministic: the same rows and Meta give byte-identical
// files. SCHEMA.md documents every table and column for readers in other
// languages; a change to any table changes [SchemaVersion].
package datasets

// SchemaVersion is the version of the tables' schema. Any change to a
// table (a column added, removed, renamed or retyped, a changed unit or
// meaning) increments it; readers refuse files of another version, and
// `yardstick datasets RUNDIR` rebuilds them from the checkpoints.
const SchemaVersion = 9

// Key/value metadata keys written into every file's footer.
const (
	KeySchemaVersion = "yardstick.schema_version"
	KeyVersion       = "yardstick.version"
	KeyPlanHash      = "yardstick.plan_hash"
	KeyExperiment    = "yardstick.experiment"
	KeyRunID         = "yardstick.run_id"
	KeyTable         = "yardstick.table"
)
