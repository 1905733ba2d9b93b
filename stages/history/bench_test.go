package history_test

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"

	"yardstick/datasets"
	"yardstick/stages/history"
)

// BenchmarkHistory1000 reads a history of 1,000 runs of the report
// fixture (15 cells of variant x point, 63 cells rows a run: more than a
// 16-cell experiment's) and builds its series and changepoints. The
// peer, measured in the same run, reads the same 1,000 cells tables
// whole, one after another, as a reader of a run's tables does: ratio is
// history's time over it (history reads 21 of the table's columns, a few
// runs at a time). It reports the
// history's time per op (the goal: under 10 s), the heap the built
// history holds (live_MB, after a GC), the peak heap seen while
// reading (peak_MB, sampled every 10 ms), and the process's CPU time
// (user and system) over the history (cpu_s/history): on a machine
// shared with other work the wall time says how busy it was, the CPU
// time what the history cost.
func BenchmarkHistory1000(b *testing.B) {
	dirs := makeHistory(b, 1000, 0.02, 1.2, 500, 9)
	ctx := context.Background()
	b.ResetTimer()
	var floor, full, cpu time.Duration
	var live, peak uint64
	for range b.N {
		t0 := time.Now()
		for _, d := range dirs {
			if _, _, err := datasets.Cells.Read(datasets.Cells.Path(d)); err != nil {
				b.Fatal(err)
			}
		}
		floor += time.Since(t0)
		runtime.GC()
		stop := samplePeak(&peak)
		c0 := cpuTime()
		t0 = time.Now()
		runs, skipped, err := history.ReadAll(ctx, dirs, "")
		if err != nil || len(skipped) > 0 {
			b.Fatal(err, skipped)
		}
		h, err := history.Build("reportfix", runs, history.Options{})
		if err != nil {
			b.Fatal(err)
		}
		full += time.Since(t0)
		cpu += cpuTime() - c0
		stop()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		live = max(live, ms.HeapAlloc)
		runtime.KeepAlive(h)
	}
	b.ReportMetric(full.Seconds()/float64(b.N), "s/history")
	b.ReportMetric(full.Seconds()/floor.Seconds(), "ratio")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu_s/history")
	b.ReportMetric(float64(live)/(1<<20), "live_MB")
	b.ReportMetric(float64(peak)/(1<<20), "peak_MB")
}

// samplePeak records the largest heap in use into peak until stop.
func samplePeak(peak *uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			*peak = max(*peak, ms.HeapAlloc)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
