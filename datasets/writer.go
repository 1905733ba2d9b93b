package datasets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// RowGroupRows is the number of rows per Parquet row group (and per Arrow
// record the writer builds). It is fixed so that the same rows always give
// the same file.
const RowGroupRows = 64 * 1024

// File describes a table file that was written.
type File struct {
	Table string
	Path  string
	Rows  int64
	Bytes int64
}

// A Writer streams rows into a table file. Nothing is visible at the
// file's path until Close renames the finished temporary file into place;
// Abort (or a failed Close) removes the temporary file.
type Writer[R any] struct {
	t    *Table[R]
	meta Meta
	path string
	tmp  *os.File
	fw   *pqarrow.FileWriter
	rb   *array.RecordBuilder
	n    int   // rows in rb
	rows int64 // rows written in all
	err  error
}

// writerProperties are the Parquet settings of every table: zstd,
// statistics, fixed row groups, and dictionary pages for the dictionary
// columns only (sc's dictionary-typed fields), with a dictionary page
// limit well above what they hold. A column whose dictionary outgrows the
// limit falls back to plain pages part-way, and the writer then lists the
// chunk's two encodings in the footer in an order that changes from one
// write to the next: a table of per-interval histograms did. Plain pages
// for every other column keep the bytes of a rebuild identical.
func writerProperties(sc *arrow.Schema) *parquet.WriterProperties {
	opts := []parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithDictionaryDefault(false),
		parquet.WithDictionaryPageSizeLimit(64 << 20),
		parquet.WithStats(true),
		parquet.WithMaxRowGroupLength(RowGroupRows),
		parquet.WithVersion(parquet.V2_6),
	}
	for _, f := range sc.Fields() {
		if f.Type.ID() == arrow.DICTIONARY {
			opts = append(opts, parquet.WithDictionaryFor(f.Name, true))
		}
	}
	return parquet.NewWriterProperties(opts...)
}

// noClose hides the file's Close from the Parquet writer, which would
// otherwise close it before it can be synced.
type noClose struct{ f *os.File }

func (w noClose) Write(p []byte) (int, error) { return w.f.Write(p) }

// Create starts writing the table into dir (the run directory) with the
// given metadata.
func (t *Table[R]) Create(dir string, meta Meta) (*Writer[R], error) {
	path := t.Path(dir)
	f, err := os.CreateTemp(dir, "."+t.File()+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	meta.Table = t.name
	meta.SchemaVersion = SchemaVersion
	sc := t.schemaWithMeta(meta)
	fw, err := pqarrow.NewFileWriter(sc, noClose{f}, writerProperties(sc),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	w := &Writer[R]{t: t, meta: meta, path: path, tmp: f, fw: fw,
		rb: array.NewRecordBuilder(memory.DefaultAllocator, sc)}
	return w, nil
}

// Append adds rows to the table, in order.
func (w *Writer[R]) Append(rows ...R) error {
	if w.err != nil {
		return w.err
	}
	fields := w.rb.Fields()
	for i := range rows {
		r := &rows[i]
		appendString(fields[0], w.meta.Experiment)
		appendString(fields[1], w.meta.RunID)
		for j, c := range w.t.cols {
			c.put(fields[j+2], r)
		}
		w.n++
		if w.n == RowGroupRows {
			if err := w.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush writes the built rows as one row group.
func (w *Writer[R]) flush() error {
	if w.n == 0 {
		return nil
	}
	rec := w.rb.NewRecordBatch()
	defer rec.Release()
	w.rows += int64(w.n)
	w.n = 0
	if err := w.fw.Write(rec); err != nil {
		w.err = fmt.Errorf("write %s: %w", w.path, err)
		return w.err
	}
	return nil
}

// Close finishes the file, syncs it and renames it into place.
func (w *Writer[R]) Close() (File, error) {
	defer w.rb.Release()
	err := w.err
	if err == nil {
		err = w.flush()
	}
	if err == nil {
		if w.rows == 0 {
			// An empty table still gets its schema and metadata.
			rec := w.rb.NewRecordBatch()
			err = w.fw.Write(rec)
			rec.Release()
		}
	}
	if cerr := w.fw.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil {
		err = w.tmp.Sync()
	}
	var size int64
	if err == nil {
		var st os.FileInfo
		st, err = w.tmp.Stat()
		if st != nil {
			size = st.Size()
		}
	}
	if cerr := w.tmp.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(w.tmp.Name(), w.path)
	}
	if err == nil {
		err = syncDir(filepath.Dir(w.path))
	}
	if err != nil {
		os.Remove(w.tmp.Name())
		if w.err != nil {
			return File{}, w.err
		}
		return File{}, fmt.Errorf("write %s: %w", w.path, err)
	}
	return File{Table: w.t.name, Path: w.path, Rows: w.rows, Bytes: size}, nil
}

// Abort drops the file being written; the table's path is untouched.
func (w *Writer[R]) Abort() {
	w.rb.Release()
	w.fw.Close()
	w.tmp.Close()
	os.Remove(w.tmp.Name())
}

// Write writes rows as the whole table into dir, atomically.
func (t *Table[R]) Write(dir string, meta Meta, rows []R) (File, error) {
	w, err := t.Create(dir, meta)
	if err != nil {
		return File{}, err
	}
	if err := w.Append(rows...); err != nil {
		w.Abort()
		return File{}, err
	}
	return w.Close()
}

// syncDir makes a rename durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, os.ErrInvalid) {
		return nil // some file systems cannot sync a directory
	}
	return err
}
