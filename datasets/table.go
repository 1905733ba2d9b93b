package datasets

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// Meta is what a file says about itself in its key/value metadata. The
// writer fills the experiment and run_id columns of every row from it.
type Meta struct {
	// SchemaVersion is the file's schema version; writers always write
	// [SchemaVersion] whatever this says.
	SchemaVersion int
	// Version is the yardstick version that wrote the file.
	Version string
	// PlanHash is the run's pipeline.Plan.Hash.
	PlanHash   string
	Experiment string
	RunID      string
	// Table is the table's name; writers set it.
	Table string
}

// A Table is one of the run's tables: its name, its columns, and the row
// type R they map to.
type Table[R any] struct {
	name   string
	cols   []column[R]
	fields []arrow.Field
	byName map[string]int
}

func newTable[R any](name string, cols ...column[R]) *Table[R] {
	t := &Table[R]{name: name, cols: cols, byName: map[string]int{}}
	t.fields = append(t.fields,
		field("experiment", dictString, false),
		field("run_id", dictString, false))
	for _, c := range cols {
		t.fields = append(t.fields, c.field)
	}
	for i, f := range t.fields {
		if _, dup := t.byName[f.Name]; dup {
			panic("datasets: duplicate column " + name + "." + f.Name)
		}
		t.byName[f.Name] = i
	}
	return t
}

// Number is the accessor of the numeric column called name: the row's
// value as a float64, false when it is null or not finite; false when
// the table has no numeric column of that name. The compared metrics
// (package decide) read their figures through it, so a metric names its
// cells column and nothing more.
func (t *Table[R]) Number(name string) (func(*R) (float64, bool), bool) {
	i, ok := t.byName[name]
	if !ok || i < 2 || t.cols[i-2].number == nil {
		return nil, false
	}
	return t.cols[i-2].number, true
}

// Name is the table's name, and the base name of its file.
func (t *Table[R]) Name() string { return t.name }

// File is the table's file name: <name>.parquet.
func (t *Table[R]) File() string { return t.name + ".parquet" }

// Path is the table's file in directory dir.
func (t *Table[R]) Path(dir string) string { return filepath.Join(dir, t.File()) }

// Schema is the table's Arrow schema, with experiment and run_id first and
// no metadata.
func (t *Table[R]) Schema() *arrow.Schema { return arrow.NewSchema(t.fields, nil) }

// schemaWithMeta is the schema written to the file: its metadata becomes
// the Parquet key/value metadata.
func (t *Table[R]) schemaWithMeta(m Meta) *arrow.Schema {
	md := arrow.NewMetadata(
		[]string{KeySchemaVersion, KeyVersion, KeyPlanHash, KeyExperiment, KeyRunID, KeyTable},
		[]string{strconv.Itoa(SchemaVersion), m.Version, m.PlanHash, m.Experiment, m.RunID, t.name},
	)
	return arrow.NewSchema(t.fields, &md)
}

// metaFrom reads Meta from a schema's metadata.
func metaFrom(md arrow.Metadata) (Meta, error) {
	get := func(k string) string {
		if i := md.FindKey(k); i >= 0 {
			return md.Values()[i]
		}
		return ""
	}
	m := Meta{
		Version:    get(KeyVersion),
		PlanHash:   get(KeyPlanHash),
		Experiment: get(KeyExperiment),
		RunID:      get(KeyRunID),
		Table:      get(KeyTable),
	}
	sv := get(KeySchemaVersion)
	if sv == "" {
		return m, fmt.Errorf("no %s in the file's metadata: not a yardstick table", KeySchemaVersion)
	}
	v, err := strconv.Atoi(sv)
	if err != nil {
		return m, fmt.Errorf("%s %q: %w", KeySchemaVersion, sv, err)
	}
	m.SchemaVersion = v
	return m, nil
}

// Names lists every table, in the order the datasets stage writes them.
var Names = []string{"cells", "timeseries", "histograms", "spectrum", "samples", "fairness", "environment", "batches", "comparisons", "holds"}

// SchemaOf returns the Arrow schema of the named table (without metadata),
// or nil if there is no such table: one of Names, or history.
func SchemaOf(name string) *arrow.Schema {
	switch name {
	case Cells.name:
		return Cells.Schema()
	case Timeseries.name:
		return Timeseries.Schema()
	case Histograms.name:
		return Histograms.Schema()
	case Spectrum.name:
		return Spectrum.Schema()
	case Samples.name:
		return Samples.Schema()
	case Fairness.name:
		return Fairness.Schema()
	case Environments.name:
		return Environments.Schema()
	case Batches.name:
		return Batches.Schema()
	case Comparisons.name:
		return Comparisons.Schema()
	case Holds.name:
		return Holds.Schema()
	case History.name:
		return History.Schema()
	}
	return nil
}
