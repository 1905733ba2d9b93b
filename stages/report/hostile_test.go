package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"yardstick/datasets"
)

// hostileTables writes the fixture's tables into a new directory with
// numbers no run gives: NaN, infinities, the largest int64 and float64,
// and seconds so large that a chart's 1-2-5 step is lost in their
// precision.
func hostileTables(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cells, meta, err := datasets.Cells.Read(datasets.Cells.Path(fixtureDir))
	if err != nil {
		t.Fatal(err)
	}
	huge, maxI := math.MaxFloat64, int64(math.MaxInt64)
	nan, inf, negInf := math.NaN(), math.Inf(1), math.Inf(-1)
	for i := range cells {
		c := &cells[i]
		switch i % 4 {
		case 0:
			c.RPS, c.CPUPerRequestUS, c.Tails[1].Share = &nan, &inf, &nan
		case 1:
			c.RPS, c.LatencyP99US, c.RSSSteadyBytes, c.HeapBytes = &huge, &maxI, &maxI, &maxI
		case 2:
			c.RPS, c.LatencyP50US, c.ColdStartUS = &negInf, &maxI, &maxI
		}
	}
	series, _, err := datasets.Timeseries.Read(datasets.Timeseries.Path(fixtureDir))
	if err != nil {
		t.Fatal(err)
	}
	for i := range series {
		// Distinct start times near 9.2e12 s, far closer than one float64
		// step apart: a 1-2-5 step is lost in their precision.
		series[i].StartUS = maxI - series[i].Interval/4
		series[i].Requests = maxI - int64(i)
	}
	spectrum, _, err := datasets.Spectrum.Read(datasets.Spectrum.Path(fixtureDir))
	if err != nil {
		t.Fatal(err)
	}
	for i := range spectrum {
		switch i % 3 {
		case 0:
			spectrum[i].Percentile = math.NaN()
		case 1:
			spectrum[i].Percentile, spectrum[i].LatencyUS = -1e300, maxI
		}
	}
	for _, err := range []error{
		write(datasets.Cells, dir, meta, cells), write(datasets.Timeseries, dir, meta, series),
		write(datasets.Spectrum, dir, meta, spectrum),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"fairness.parquet", "environment.parquet", "batches.parquet"} {
		if err := os.WriteFile(filepath.Join(dir, name), read(t, filepath.Join(fixtureDir, name)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func write[R any](tb *datasets.Table[R], dir string, m datasets.Meta, rows []R) error {
	_, err := tb.Write(dir, m, rows)
	return err
}

// Hostile numbers in well-formed tables give a report, in bounded time,
// with well-formed charts that draw no NaN or infinite coordinate.
func TestHostileNumbersNeitherHangNorPanic(t *testing.T) {
	dir := hostileTables(t)
	done := make(chan error, 1)
	var res Result
	go func() {
		var err error
		res, err = Run(dir, Options{Out: t.TempDir()})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("report still running after 60 s: a chart loops for ever on hostile numbers")
	}
	svgs := 0
	for _, f := range res.Files {
		if !strings.HasSuffix(f, ".svg") {
			continue
		}
		svgs++
		parseSVG(t, f)
		if b := string(read(t, f)); strings.Contains(b, "NaN") || strings.Contains(b, "Inf") {
			t.Errorf("%s draws a NaN or infinite coordinate", filepath.Base(f))
		}
	}
	if svgs < 10 {
		t.Errorf("%d charts written", svgs)
	}
	if n := len(read(t, filepath.Join(res.Out, "report.md"))); n < 10_000 {
		t.Errorf("report.md is %d bytes", n)
	}
}

// The tick helpers are bounded whatever their input.
func TestTicksBounded(t *testing.T) {
	for _, c := range [][3]float64{
		{1e17, 1e17 + 16, 0.2}, {0, 1e300, 1e-300}, {math.NaN(), 1, 1}, {0, math.Inf(1), 1}, {0, 1, 0}, {5, 1, 1},
	} {
		if n := len(steps(c[0], c[1], c[2])); n > maxTicks+1 {
			t.Errorf("steps%v: %d ticks", c, n)
		}
	}
	for _, c := range [][2]float64{{-323, 308}, {0, 0}, {math.Inf(-1), 3}, {3, -3}} {
		if n := len(decades(c[0], c[1])); n > maxTicks+1 {
			t.Errorf("decades%v: %d ticks", c, n)
		}
	}
	if n := len(decades(-323, 308)); n < 2 {
		t.Errorf("decades over 631 orders: %d ticks", n)
	}
	many := make([]tick, 1000)
	if n := len(thin(many)); n > maxTicks+1 {
		t.Errorf("thin: %d ticks", n)
	}
	_, _, step := niceRange(-math.MaxFloat64, math.MaxFloat64)
	if len(steps(-math.MaxFloat64, math.MaxFloat64, step)) > maxTicks+1 {
		t.Error("steps over the whole float64 range")
	}
}

// TestNamesFromTablesAreChecked: a batch name or variant label read from
// Parquet becomes part of a chart's file name only if it is a plain name.
func TestNamesFromTablesAreChecked(t *testing.T) {
	for _, c := range []datasets.Cell{
		{Batch: "../../../../tmp/x", Variant: "go"},
		{Batch: "main", Variant: "../go"},
		{Batch: "main", Variant: "go/x"},
		{Batch: "", Variant: "go"},
	} {
		if err := checkNames([]datasets.Cell{c}); err == nil {
			t.Errorf("checkNames accepted batch %q variant %q", c.Batch, c.Variant)
		}
	}
	if err := checkNames([]datasets.Cell{{Batch: "main", Variant: "jvm-zgc-512m"}}); err != nil {
		t.Errorf("checkNames refused a plain cell: %v", err)
	}
}

// TestUntrustedTextIsEscaped: text from a definition or the tables (a
// description, a cell) reaches HTML and SVG as text, never as markup, and
// Markdown as text, never as a link or raw HTML.
func TestUntrustedTextIsEscaped(t *testing.T) {
	evil := `<script>alert(1)</script><img src=x onerror=alert(2)>[x](javascript:alert(3))`
	d := &doc{}
	d.literal(evil)
	d.table("", []string{"variant", "rps"}, [][]string{{evil, "1"}})
	page := string(d.html("t"))
	md := string(d.markdown())
	for _, bad := range []string{"<script>", "<img src=x"} {
		if strings.Contains(page, bad) {
			t.Errorf("html holds %q", bad)
		}
		if strings.Contains(md, bad) {
			t.Errorf("markdown holds %q", bad)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;") {
		t.Errorf("html lost the text: %s", page)
	}
	if strings.Contains(md, "[x](javascript") {
		t.Errorf("markdown holds a live link: %s", md)
	}
	if got := esc(evil); strings.Contains(got, "<") || strings.Contains(got, ">") {
		t.Errorf("svg text escape left markup: %s", got)
	}
}
