package datasets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"yardstick/pipeline/runfs"
)

// ErrSchemaVersion is wrapped by the readers' error when a file was
// written with another schema version; rebuild it from the checkpoints
// with `yardstick datasets RUNDIR`.
var ErrSchemaVersion = errors.New("table of another schema version")

// MaxRows is the most rows a table file may have for the readers: a file
// with more is refused from its footer, before any column is decoded, so
// that what a file claims cannot exhaust memory. Read keeps memory to
// about the rows it returns plus one row group. The timeseries cap is set
// by what the report does with the rows (a steady-state analysis of each
// cell's interval histograms): at 300,000 rows, 8 hours of load at 100 ms
// intervals, a report stays under 1 GiB (stages/report
// TestReportMemoryAtRowCap).
var MaxRows = map[string]int64{
	"cells":       200_000,
	"timeseries":  300_000,
	"histograms":  1_000_000,
	"spectrum":    1_000_000,
	"samples":     1_000_000,
	"fairness":    1_000_000,
	"environment": 100_000,
	"batches":     100_000,
	"comparisons": 1_000_000,
	"holds":       1_000_000,
	"history":     10_000_000,
}

// guard turns a panic of the Parquet decoder, which a malformed file can
// cause (a corrupt footer, an invalid logical type), into the reader's
// error: bad input is an error, never a crash. Every exported reader
// defers it.
func guard(path string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("read %s: malformed Parquet file: %v", path, r)
	}
}

// parquetFile is an open table file: read through runfs (a regular file,
// no link, within the Parquet size cap), each read ending with ctx.
type parquetFile struct {
	ctx context.Context
	f   *os.File
}

func (p parquetFile) ReadAt(b []byte, off int64) (int, error) {
	if err := p.ctx.Err(); err != nil {
		return 0, err
	}
	return p.f.ReadAt(b, off)
}

func (p parquetFile) Seek(off int64, whence int) (int64, error) { return p.f.Seek(off, whence) }

// open opens the table file at path (the file itself may not be a link;
// the directory that holds it is the caller's) and parses its footer.
// The caller closes the file.
func open(ctx context.Context, path string) (*file.Reader, *os.File, error) {
	f, err := runfs.Open(filepath.Dir(path), filepath.Base(path), runfs.Parquet)
	if err != nil {
		return nil, nil, fmt.Errorf("read %w", err)
	}
	r, err := file.NewParquetReader(parquetFile{ctx, f})
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	return r, f, nil
}

// ReadMeta reads a table file's metadata from its footer only. It does not
// check the schema version.
func ReadMeta(path string) (_ Meta, err error) {
	defer guard(path, &err)
	r, f, err := open(context.Background(), path)
	if err != nil {
		return Meta{}, err
	}
	defer f.Close()
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

// openChecked opens a table file for decoding: its footer must name a
// table of this schema version with at most MaxRows rows. The caller
// closes the file.
func openChecked(ctx context.Context, path string) (*pqarrow.FileReader, Meta, *os.File, error) {
	r, f, err := open(ctx, path)
	if err != nil {
		return nil, Meta{}, nil, err
	}
	m, err := footerMeta(r)
	if err == nil && m.SchemaVersion != SchemaVersion {
		err = fmt.Errorf("%w: schema version %d, this yardstick reads %d; rebuild with yardstick datasets",
			ErrSchemaVersion, m.SchemaVersion, SchemaVersion)
	}
	if limit, ok := MaxRows[m.Table]; err == nil && (!ok || r.NumRows() > limit) {
		err = fmt.Errorf("refused: %d rows, more than the %d a %s table may have", r.NumRows(), limit, m.Table)
		if !ok {
			err = fmt.Errorf("table %q is not one of yardstick's", m.Table)
		}
	}
	var fr *pqarrow.FileReader
	if err == nil {
		fr, err = pqarrow.NewFileReader(r, pqarrow.ArrowReadProperties{Parallel: false, BatchSize: RowGroupRows}, memory.DefaultAllocator)
	}
	if err != nil {
		f.Close()
		return nil, m, nil, fmt.Errorf("read %s: %w", path, err)
	}
	return fr, m, f, nil
}

// ReadTable reads a whole table file into Arrow, with the schema stored in
// the file (dictionary columns stay dictionaries). It checks the schema
// version and the row cap (MaxRows); the caller releases the table.
func ReadTable(path string) (_ arrow.Table, _ Meta, err error) {
	defer guard(path, &err)
	fr, m, f, err := openChecked(context.Background(), path)
	if err != nil {
		return nil, m, err
	}
	defer f.Close()
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return nil, m, fmt.Errorf("read %s: %w", path, err)
	}
	return tbl, m, nil
}

// Read reads the table's file at path into rows, in file order, and its
// metadata; see ReadContext.
func (t *Table[R]) Read(path string) ([]R, Meta, error) {
	return t.ReadContext(context.Background(), path)
}

// ReadContext reads the table's file at path into rows, in file order,
// and its metadata, stopping with ctx's error when ctx ends. The file is
// opened through package runfs (a regular file, not a link, within the
// Parquet cap) and refused from its footer when it has more rows than
// MaxRows allows; it is decoded one row group at a time. Columns are
// matched by name and checked against the table's schema. A missing file
// is an error wrapping fs.ErrNotExist.
func (t *Table[R]) ReadContext(ctx context.Context, path string) (_ []R, _ Meta, err error) {
	defer guard(path, &err)
	fr, m, f, err := openChecked(ctx, path)
	if err != nil {
		return nil, m, err
	}
	defer f.Close()
	if m.Table != t.name {
		return nil, m, fmt.Errorf("read %s: it holds table %q, not %q", path, m.Table, t.name)
	}
	sc, err := fr.Schema()
	if err != nil {
		return nil, m, fmt.Errorf("read %s: %w", path, err)
	}
	idx, err := t.columnIndexes(sc)
	if err != nil {
		return nil, m, fmt.Errorf("read %s: %w", path, err)
	}
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return nil, m, fmt.Errorf("read %s: %w", path, err)
	}
	defer rr.Release()
	rows := make([]R, 0, fr.ParquetReader().NumRows())
	for rr.Next() {
		if rows, err = t.appendRows(rows, rr.RecordBatch(), idx); err != nil {
			return nil, m, fmt.Errorf("read %s: %w", path, err)
		}
		if err := ctx.Err(); err != nil {
			return nil, m, err
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, context.Canceled) {
		return nil, m, fmt.Errorf("read %s: %w", path, err)
	} else if err != nil {
		return nil, m, err
	}
	return rows, m, nil
}

// columnIndexes finds each of the table's columns in a file's schema,
// checking its type.
func (t *Table[R]) columnIndexes(sc *arrow.Schema) ([]int, error) {
	idx := make([]int, len(t.cols))
	for j, c := range t.cols {
		is := sc.FieldIndices(c.field.Name)
		if len(is) != 1 {
			return nil, fmt.Errorf("no column %s", c.field.Name)
		}
		if got := sc.Field(is[0]).Type; !arrow.TypeEqual(got, c.field.Type) {
			return nil, fmt.Errorf("column %s is %s, want %s", c.field.Name, got, c.field.Type)
		}
		idx[j] = is[0]
	}
	return idx, nil
}

// appendRows converts one record batch into rows.
func (t *Table[R]) appendRows(rows []R, rec arrow.RecordBatch, idx []int) ([]R, error) {
	for i := 0; i < int(rec.NumRows()); i++ {
		var r R
		for j, c := range t.cols {
			if err := c.get(rec.Column(idx[j]), i, &r); err != nil {
				return nil, fmt.Errorf("column %s row %d: %w", c.field.Name, len(rows), err)
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}
