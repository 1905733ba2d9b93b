package datasets

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// ReadColumnsContext reads only the named columns of the table's file at
// path: every other field of each row keeps its zero value (nil for a
// nullable column). The file is checked as ReadContext checks it (its
// footer, its version, its row cap, every column's type); only the
// named columns are decoded, which makes a few columns of a wide table
// (cells has over a hundred) several times cheaper to read. A name that
// is not one of the table's columns is an error.
func (t *Table[R]) ReadColumnsContext(ctx context.Context, path string, names []string) (_ []R, _ Meta, err error) {
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
	var cols, leaves []int // the table's columns read, their leaves in the file (flat schemas: one each)
	for j, c := range t.cols {
		if slices.Contains(names, c.field.Name) {
			cols, leaves = append(cols, j), append(leaves, idx[j])
		}
	}
	if len(cols) != len(names) {
		return nil, m, fmt.Errorf("read %s: %d of the %d columns asked for are columns of %s", path, len(cols), len(names), t.name)
	}
	rr, err := fr.GetRecordReader(ctx, leaves, nil)
	if err != nil {
		return nil, m, fmt.Errorf("read %s: %w", path, err)
	}
	defer rr.Release()
	rows := make([]R, 0, fr.ParquetReader().NumRows())
	for rr.Next() {
		rec := rr.RecordBatch()
		at := make([]int, len(cols))
		for k, j := range cols {
			is := rec.Schema().FieldIndices(t.cols[j].field.Name)
			if len(is) != 1 {
				return nil, m, fmt.Errorf("read %s: column %s not in the record read", path, t.cols[j].field.Name)
			}
			at[k] = is[0]
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			var r R
			for k, j := range cols {
				if err := t.cols[j].get(rec.Column(at[k]), i, &r); err != nil {
					return nil, m, fmt.Errorf("read %s: column %s row %d: %w", path, t.cols[j].field.Name, len(rows), err)
				}
			}
			rows = append(rows, r)
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
