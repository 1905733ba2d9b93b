package datasets

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ErrSchemaVersion is wrapped by the readers' error when a file was
// written with another schema version; rebuild it from the checkpoints
// with `yardstick datasets RUNDIR`.
var ErrSchemaVersion = errors.New("table of another schema version")

// guard turns a panic of the Parquet decoder, which a malformed file can
// cause (a corrupt footer, an invalid logical type), into the reader's
// error: bad input is an error, never a crash. Every exported reader
// defers it.
func guard(path string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("read %s: malformed Parquet file: %v", path, r)
	}
}

// ReadMeta reads a table file's metadata from its footer only. It does not
// check the schema version.
func ReadMeta(path string) (_ Meta, err error) {
	defer guard(path, &err)
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		return Meta{}, fmt.Errorf("read %s: %w", path, err)
	}
	defer r.Close()
	m, err := footerMeta(r)
	if err != nil {
		return m, fmt.Errorf("read %s: %w", path, err)
	}
	return m, nil
}

// footerMeta reads Meta from the Parquet key/value metadata.
func footerMeta(r *file.Reader) (Meta, error) {
	var keys, vals []string
	for _, kv := range r.MetaData().KeyValueMetadata() {
		keys = append(keys, kv.Key)
		if kv.Value != nil {
			vals = append(vals, *kv.Value)
		} else {
			vals = append(vals, "")
		}
	}
	return metaFrom(arrow.NewMetadata(keys, vals))
}

// ReadTable reads a whole table file into Arrow, with the schema stored in
// the file (dictionary columns stay dictionaries). It checks the schema
// version; the caller releases the table.
func ReadTable(path string) (_ arrow.Table, _ Meta, err error) {
	defer guard(path, &err)
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("read %s: %w", path, err)
	}
	defer r.Close()
	m, err := footerMeta(r)
	if err == nil && m.SchemaVersion != SchemaVersion {
		err = fmt.Errorf("%w: schema version %d, this yardstick reads %d; rebuild with yardstick datasets",
			ErrSchemaVersion, m.SchemaVersion, SchemaVersion)
	}
	if err != nil {
		return nil, m, fmt.Errorf("read %s: %w", path, err)
	}
	fr, err := pqarrow.NewFileReader(r, pqarrow.ArrowReadProperties{Parallel: false, BatchSize: RowGroupRows}, memory.DefaultAllocator)
	if err != nil {
		return nil, m, fmt.Errorf("read %s: %w", path, err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return nil, m, fmt.Errorf("read %s: %w", path, err)
	}
	return tbl, m, nil
}

// Read reads the table's file at path into rows, in file order, and its
// metadata. Columns are matched by name and checked against the table's
// schema. A missing file is an error wrapping fs.ErrNotExist.
func (t *Table[R]) Read(path string) (_ []R, _ Meta, err error) {
	defer guard(path, &err)
	tbl, m, err := ReadTable(path)
	if err != nil {
		return nil, m, err
	}
	defer tbl.Release()
	if m.Table != t.name {
		return nil, m, fmt.Errorf("read %s: it holds table %q, not %q", path, m.Table, t.name)
	}
	sc := tbl.Schema()
	idx := make([]int, len(t.cols))
	for j, c := range t.cols {
		is := sc.FieldIndices(c.field.Name)
		if len(is) != 1 {
			return nil, m, fmt.Errorf("read %s: no column %s", path, c.field.Name)
		}
		if got := sc.Field(is[0]).Type; !arrow.TypeEqual(got, c.field.Type) {
			return nil, m, fmt.Errorf("read %s: column %s is %s, want %s", path, c.field.Name, got, c.field.Type)
		}
		idx[j] = is[0]
	}
	rows := make([]R, 0, tbl.NumRows())
	tr := array.NewTableReader(tbl, RowGroupRows)
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			var r R
			for j, c := range t.cols {
				if err := c.get(rec.Column(idx[j]), i, &r); err != nil {
					return nil, m, fmt.Errorf("read %s: column %s row %d: %w", path, c.field.Name, len(rows), err)
				}
			}
			rows = append(rows, r)
		}
	}
	return rows, m, nil
}
