package datasets_test

import (
	"encoding/csv"
	"os"
	"strconv"
	"testing"

	"yardstick/datasets"
)

// timeseriesRows makes n realistic timeseries rows: 100 cells of n/100
// seconds each, latencies and counters that vary like a real run's.
func timeseriesRows(n int) []datasets.Interval {
	rows := make([]datasets.Interval, n)
	perCell := max(n/100, 1)
	for i := range rows {
		cell, sec := i/perCell, i%perCell
		p50 := int64(400 + (i*7919)%300)
		p99 := p50*4 + int64((i*104729)%2000)
		rows[i] = datasets.Interval{
			CellID:     "c" + strconv.FormatInt(int64(0x5a17c0ffee00+cell), 16),
			Interval:   int64(sec),
			StartUS:    int64(sec) * 100_000,
			DurationUS: 100_000,
			InWindow:   sec >= 30,
			Requests:   int64(900 + (i*31)%80),
			Errors:     int64((i * 17) % 3),
			P50US:      &p50,
			P99US:      &p99,
			MaxUS:      ptr(p99 * 3),
			RSSBytes:   ptr(int64(48<<20 + (i%1000)*4096)),
			CPUUS:      ptr(int64(90_000 + (i*13)%5_000)),
		}
	}
	return rows
}

func ptr[T any](v T) *T { return &v }

// writeCSV writes the same rows as CSV, the way a naive exporter would,
// and returns its size.
func writeCSV(b *testing.B, path string, meta datasets.Meta, rows []datasets.Interval) int64 {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"experiment", "run_id", "cell_id", "second", "in_window", "requests", "errors", "p50_us", "p99_us", "max_us", "rss_bytes", "cpu_us"})
	opt := func(p *int64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatInt(*p, 10)
	}
	for _, r := range rows {
		_ = w.Write([]string{meta.Experiment, meta.RunID, r.CellID, strconv.FormatInt(r.Interval, 10), strconv.FormatInt(r.StartUS, 10),
			strconv.FormatInt(r.DurationUS, 10), strconv.FormatBool(r.InWindow),
			strconv.FormatInt(r.Requests, 10), strconv.FormatInt(r.Errors, 10), opt(r.P50US), opt(r.P99US), opt(r.MaxUS),
			opt(r.RSSBytes), opt(r.CPUUS)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		b.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	f.Close()
	return st.Size()
}

// BenchmarkTimeseries writes 1,000,000 timeseries rows and reports rows/s
// and the Parquet file's size relative to the same rows as CSV.
//
//	go test -run '^$' -bench BenchmarkTimeseries -benchtime 1x ./datasets
func BenchmarkTimeseries(b *testing.B) {
	const n = 1_000_000
	rows := timeseriesRows(n)
	dir := b.TempDir()
	var size int64
	b.ResetTimer()
	for b.Loop() {
		f, err := datasets.Timeseries.Write(dir, testMeta, rows)
		if err != nil {
			b.Fatal(err)
		}
		size = f.Bytes
	}
	b.StopTimer()
	csvSize := writeCSV(b, dir+"/timeseries.csv", testMeta, rows)
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(size)/float64(csvSize), "parquet/csv")
	b.ReportMetric(float64(size), "parquet-bytes")
	b.ReportMetric(float64(csvSize), "csv-bytes")
}
