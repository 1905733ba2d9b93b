package datasets_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"yardstick/datasets"
)

var testMeta = datasets.Meta{Version: "v1.2.3-test", PlanHash: "ab12cd", Experiment: "exp", RunID: "20261130T062300Z-0001"}

// fill sets every field of v (a struct) to a value derived from seed;
// with seed < 0 pointers stay nil (the all-null row). Strings repeat
// across seeds so dictionaries have repeated values.
func fill(v reflect.Value, seed int) {
	for i := 0; i < v.NumField(); i++ {
		fillValue(v.Field(i), seed, i)
	}
}

var base = time.Date(2026, 11, 30, 6, 23, 0, 0, time.UTC)

func fillValue(f reflect.Value, seed, i int) {
	switch f.Kind() {
	case reflect.Pointer:
		if seed < 0 {
			f.SetZero()
			return
		}
		p := reflect.New(f.Type().Elem())
		fillValue(p.Elem(), seed, i)
		f.Set(p)
	case reflect.Array:
		for j := 0; j < f.Len(); j++ {
			fillValue(f.Index(j), seed, i*10+j)
		}
	case reflect.Struct:
		if f.Type() == reflect.TypeOf(time.Time{}) {
			// microseconds: the tables store no finer
			f.Set(reflect.ValueOf(base.Add(time.Duration(seed*1000+i) * time.Microsecond)))
			return
		}
		for j := 0; j < f.NumField(); j++ {
			fillValue(f.Field(j), seed, i*10+j)
		}
	case reflect.String:
		f.SetString(fmt.Sprintf("v%d-%d", i, max(seed, 0)%2))
	case reflect.Int64:
		f.SetInt(int64(seed*1000 + i))
	case reflect.Float64:
		f.SetFloat(float64(seed) + float64(i)/8)
	case reflect.Bool:
		f.SetBool((seed+i)%2 == 0)
	default:
		panic("fill: " + f.Type().String())
	}
}

func makeRows[R any](n int) []R {
	rows := make([]R, n)
	for i := range rows {
		seed := i
		if i == n-1 {
			seed = -1 // last row: every nullable column null
		}
		fill(reflect.ValueOf(&rows[i]).Elem(), seed)
	}
	return rows
}

// roundTrip writes rows, reads them back as rows and as an Arrow table,
// and compares values, types and metadata.
func roundTrip[R any](t *testing.T, tbl *datasets.Table[R], rows []R) {
	t.Helper()
	dir := t.TempDir()
	f, err := tbl.Write(dir, testMeta, rows)
	if err != nil {
		t.Fatal(err)
	}
	if f.Rows != int64(len(rows)) || f.Path != filepath.Join(dir, tbl.Name()+".parquet") || f.Bytes == 0 {
		t.Errorf("file %+v", f)
	}
	got, m, err := tbl.Read(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	wantMeta := testMeta
	wantMeta.SchemaVersion, wantMeta.Table = datasets.SchemaVersion, tbl.Name()
	if m != wantMeta {
		t.Errorf("meta %+v, want %+v", m, wantMeta)
	}
	if len(rows) == 0 && len(got) == 0 {
		got = rows
	}
	if !reflect.DeepEqual(got, rows) {
		for i := range rows {
			if i < len(got) && !reflect.DeepEqual(got[i], rows[i]) {
				t.Errorf("row %d:\n got  %+v\n want %+v", i, got[i], rows[i])
				break
			}
		}
		t.Fatalf("read back %d rows, wrote %d; they differ", len(got), len(rows))
	}

	// With Arrow directly: the stored schema gives back the exact types.
	at, am, err := datasets.ReadTable(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	if am != wantMeta {
		t.Errorf("ReadTable meta %+v", am)
	}
	want := tbl.Schema()
	if at.Schema().NumFields() != want.NumFields() {
		t.Fatalf("%d fields, want %d", at.Schema().NumFields(), want.NumFields())
	}
	for i, wf := range want.Fields() {
		gf := at.Schema().Field(i)
		if gf.Name != wf.Name || !arrow.TypeEqual(gf.Type, wf.Type) || gf.Nullable != wf.Nullable {
			t.Errorf("field %d: %s %s nullable=%v, want %s %s nullable=%v", i, gf.Name, gf.Type, gf.Nullable, wf.Name, wf.Type, wf.Nullable)
		}
		if ts, ok := gf.Type.(*arrow.TimestampType); ok && (ts.Unit != arrow.Microsecond || ts.TimeZone != "UTC") {
			t.Errorf("%s: %s, want timestamp[us, UTC]", gf.Name, ts)
		}
	}
	if at.NumRows() != int64(len(rows)) {
		t.Errorf("%d rows", at.NumRows())
	}
	// experiment and run_id are dictionaries holding the metadata's values.
	for _, c := range []struct{ name, want string }{{"experiment", testMeta.Experiment}, {"run_id", testMeta.RunID}} {
		col := at.Column(at.Schema().FieldIndices(c.name)[0])
		for _, ch := range col.Data().Chunks() {
			d, ok := ch.(*array.Dictionary)
			if !ok {
				t.Fatalf("%s is %T, want a dictionary", c.name, ch)
			}
			for i := 0; i < d.Len(); i++ {
				if v := d.Dictionary().(*array.String).Value(d.GetValueIndex(i)); v != c.want {
					t.Fatalf("%s = %q", c.name, v)
				}
			}
		}
	}
	// The footer alone gives the metadata.
	fm, err := datasets.ReadMeta(f.Path)
	if err != nil || fm != wantMeta {
		t.Errorf("ReadMeta %+v, %v", fm, err)
	}
	// No temporary file is left.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries", len(entries))
	}
}

func TestRoundTrip(t *testing.T) {
	t.Run("cells", func(t *testing.T) { roundTrip(t, datasets.Cells, makeRows[datasets.Cell](5)) })
	t.Run("timeseries", func(t *testing.T) { roundTrip(t, datasets.Timeseries, makeRows[datasets.Interval](7)) })
	t.Run("histograms", func(t *testing.T) { roundTrip(t, datasets.Histograms, makeRows[datasets.Histogram](3)) })
	t.Run("spectrum", func(t *testing.T) { roundTrip(t, datasets.Spectrum, makeRows[datasets.SpectrumPoint](18)) })
	t.Run("samples", func(t *testing.T) { roundTrip(t, datasets.Samples, makeRows[datasets.Sample](9)) })
	t.Run("fairness", func(t *testing.T) { roundTrip(t, datasets.Fairness, makeRows[datasets.FairnessCheck](4)) })
	t.Run("environment", func(t *testing.T) { roundTrip(t, datasets.Environments, makeRows[datasets.Environment](2)) })
	t.Run("empty", func(t *testing.T) { roundTrip(t, datasets.Fairness, nil) })
	// More rows than a row group: several row groups, dictionaries per chunk.
	t.Run("row groups", func(t *testing.T) {
		roundTrip(t, datasets.Timeseries, makeRows[datasets.Interval](datasets.RowGroupRows*2+17))
	})
}

// TestTimesAreMicrosecondsUTC: nanoseconds are truncated, zones dropped.
func TestTimesAreMicrosecondsUTC(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 11, 30, 7, 23, 0, 123_456_789, time.FixedZone("CET", 3600))
	rows := []datasets.Sample{{CellID: "c", Time: at}}
	f, err := datasets.Samples.Write(dir, testMeta, rows)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := datasets.Samples.Read(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 11, 30, 6, 23, 0, 123_456_000, time.UTC)
	if !got[0].Time.Equal(want) || got[0].Time.Location() != time.UTC {
		t.Errorf("time %v, want %v", got[0].Time, want)
	}
}

// TestReadRefusesOtherTables: a file of one table is not read as another.
func TestReadRefusesOtherTables(t *testing.T) {
	dir := t.TempDir()
	f, err := datasets.Spectrum.Write(dir, testMeta, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := datasets.Samples.Read(f.Path); err == nil || !strings.Contains(err.Error(), `holds table "spectrum"`) {
		t.Errorf("err = %v", err)
	}
	if _, _, err := datasets.Samples.Read(filepath.Join(dir, "none.parquet")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}

// TestWriteIsAtomic: an aborted write leaves the old file in place and no
// temporary file behind.
func TestWriteIsAtomic(t *testing.T) {
	dir := t.TempDir()
	old := makeRows[datasets.Interval](3)
	if _, err := datasets.Timeseries.Write(dir, testMeta, old); err != nil {
		t.Fatal(err)
	}
	w, err := datasets.Timeseries.Create(dir, testMeta)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(makeRows[datasets.Interval](10)...); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	got, _, err := datasets.Timeseries.Read(datasets.Timeseries.Path(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Errorf("read %d rows after an aborted rewrite, want the old 3", len(got))
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after abort", len(entries))
	}
}

// TestDeterministic: the same rows give the same bytes.
func TestDeterministic(t *testing.T) {
	rows := makeRows[datasets.Cell](20)
	var files [2][]byte
	for i := range files {
		dir := t.TempDir()
		f, err := datasets.Cells.Write(dir, testMeta, rows)
		if err != nil {
			t.Fatal(err)
		}
		if files[i], err = os.ReadFile(f.Path); err != nil {
			t.Fatal(err)
		}
	}
	if string(files[0]) != string(files[1]) {
		t.Error("two writes of the same rows differ")
	}
}

// TestReadRefusesOtherSchemaVersions: a file written under another schema
// version is refused with ErrSchemaVersion, and a Parquet file without
// yardstick metadata is not taken for a table.
func TestReadRefusesOtherSchemaVersions(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, md map[string]string) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := datasets.Spectrum.Schema()
		m := arrow.MetadataFrom(md)
		w, err := pqarrow.NewFileWriter(arrow.NewSchema(sc.Fields(), &m), f, nil, pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	old := write("old.parquet", map[string]string{datasets.KeySchemaVersion: "0", datasets.KeyTable: "spectrum"})
	if _, _, err := datasets.Spectrum.Read(old); !errors.Is(err, datasets.ErrSchemaVersion) {
		t.Errorf("schema version 0: err = %v", err)
	}
	if m, err := datasets.ReadMeta(old); err != nil || m.SchemaVersion != 0 {
		t.Errorf("ReadMeta: %+v, %v", m, err)
	}
	foreign := write("foreign.parquet", nil)
	if _, _, err := datasets.ReadTable(foreign); err == nil || !strings.Contains(err.Error(), "not a yardstick table") {
		t.Errorf("foreign file: err = %v", err)
	}
}
