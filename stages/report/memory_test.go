package report

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"yardstick/datasets"
)

// bigSeries writes into dir (a copy of the fixture's tables) a valid
// timeseries table of n rows, each with a latency histogram, as a long
// run would have.
func bigSeries(t *testing.T, dir string, n int) {
	t.Helper()
	series, meta, err := datasets.Timeseries.Read(datasets.Timeseries.Path(fixtureDir))
	if err != nil {
		t.Fatal(err)
	}
	w, err := datasets.Timeseries.Create(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		r := series[i%len(series)]
		r.Interval = int64(i / len(series))
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// The timeseries table is refused from its footer when it has more rows
// than its cap, before a column is decoded.
func TestRowCapRefusedBeforeDecoding(t *testing.T) {
	dir := withQuestion(t, nil)
	bigSeries(t, dir, 1001)
	old := datasets.MaxRows["timeseries"]
	datasets.MaxRows["timeseries"] = 1000
	defer func() { datasets.MaxRows["timeseries"] = old }()
	_, err := Run(dir, Options{Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "timeseries.parquet: refused: 1001 rows, more than the 1000 a timeseries table may have") {
		t.Fatalf("err = %v", err)
	}
}

// A report on a run whose timeseries table is as large as its cap allows
// (datasets.MaxRows), every row in the few cells of the fixture (the
// costliest shape: long series to analyse per cell), stays under 1 GiB of
// memory, measured as the peak RSS of a process that does nothing else; a
// table above the cap is refused before decoding (above), so no valid
// table can take more. It takes a minute or more, so it runs on request:
// YARDSTICK_MEMORY_TEST=1 go test -run TestReportMemoryAtRowCap -v
// ./stages/report.
func TestReportMemoryAtRowCap(t *testing.T) {
	if dir := os.Getenv("YARDSTICK_MEMORY_CHILD"); dir != "" {
		if _, err := Run(dir, Options{Out: t.TempDir(), Context: context.Background()}); err != nil {
			t.Fatal(err)
		}
		return
	}
	if os.Getenv("YARDSTICK_MEMORY_TEST") == "" {
		t.Skip("writes a table at the row cap and reports on it (a minute or more); YARDSTICK_MEMORY_TEST=1 runs it. TestRowCapRefusedBeforeDecoding checks the cap itself")
	}
	rows := int(datasets.MaxRows["timeseries"])
	if s := os.Getenv("YARDSTICK_MEMORY_ROWS"); s != "" {
		rows, _ = strconv.Atoi(s)
	}
	dir := withQuestion(t, nil)
	t0 := time.Now()
	bigSeries(t, dir, rows)
	t.Logf("wrote %d rows in %s", rows, time.Since(t0))
	cmd := exec.Command(os.Args[0], "-test.run=^TestReportMemoryAtRowCap$", "-test.count=1")
	cmd.Env = append(os.Environ(), "YARDSTICK_MEMORY_CHILD="+dir)
	t0 = time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	t.Logf("report on %d timeseries rows: peak RSS %d MiB in %s", rows, peak>>20, time.Since(t0))
	if peak > 1<<30 {
		t.Errorf("peak RSS %d MiB, over 1 GiB", peak>>20)
	}
}
