package execute

import (
	"math"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/loadgen"
	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
	"yardstick/stats/hdrstat"
)

func interval(t *testing.T, index int, n int, latencyUS int64) pipeline.Interval {
	t.Helper()
	h := hdrhistogram.New(1, 60_000_000, 3)
	for range n {
		if err := h.RecordValue(latencyUS); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := hdrstat.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	return pipeline.Interval{Index: index, StartUS: int64(index) * 1e6, DurationUS: 1e6, Requests: int64(n), Bytes: int64(n) * 100, Sends: int64(n), Hist: enc}
}

// summarize keeps only the intervals in [keptFrom, keptTo): warm-up and
// the discarded head (slow, few requests) do not reach the kept window's
// throughput or latency, yet stay in the series, marked out of it.
func TestSummarizeKeepsTheWindow(t *testing.T) {
	ivs := []pipeline.Interval{
		interval(t, 0, 100, 50_000), // warm-up: 50 ms
		interval(t, 1, 200, 20_000), // discarded head: 20 ms
		interval(t, 2, 1000, 1_000), // kept: 1 ms
		interval(t, 3, 1000, 2_000), // kept: 2 ms
	}
	res := &loadgen.Result{Mode: "closed", Connections: 4, CPUS: 1.5, DurationS: 4}
	l, err := summarize(res, ivs, 2, -1, loadgen.Spec{CPUs: cpuset.Set{1}})
	secs := ivs
	if err != nil {
		t.Fatal(err)
	}
	if l.Requests != 2000 || l.DurationS != 2 || l.RPS != 1000 || l.ResponseBytes != 200_000 {
		t.Errorf("kept window: %d requests over %v s = %v rps, %d bytes; want 2000 over 2 s = 1000 rps, 200000 bytes", l.Requests, l.DurationS, l.RPS, l.ResponseBytes)
	}
	if l.Latency.Max >= 20_000 || l.Latency.P50 < 990 || l.Latency.P50 > 1010 || l.Latency.P99 < 1990 || l.Latency.P99 > 2010 {
		t.Errorf("latency leaked from outside the window: %+v", l.Latency)
	}
	if math.Abs(l.Latency.Mean-1500) > 5 {
		t.Errorf("mean %v, want 1500", l.Latency.Mean)
	}
	if len(secs) != 4 || secs[0].InWindow || secs[1].InWindow || !secs[2].InWindow || !secs[3].InWindow {
		t.Errorf("seconds: %+v", secs)
	}
	if l.LoadgenCPUs != 1 || l.LoadgenCPUS != 1.5 {
		t.Errorf("load generator figures: %d CPUs, %v s", l.LoadgenCPUs, l.LoadgenCPUS)
	}
	h, err := hdrstat.Decode(l.Hist)
	if err != nil || h.TotalCount() != 2000 {
		t.Errorf("stored histogram: %v, %v values", err, h.TotalCount())
	}
}

// targetStats takes CPU time from the samples that bracket the window and
// scales it to the window's length; RSS from the samples inside it.
func TestTargetStats(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ss := []pipeline.Sample{
		{Time: at(0), CPUUserSeconds: 0, RSSBytes: 10},
		{Time: at(900), CPUUserSeconds: 0.45, RSSBytes: 10}, // before the window
		{Time: at(1100), CPUUserSeconds: 0.55, RSSBytes: 30, InWindow: true},
		{Time: at(1600), CPUUserSeconds: 0.80, RSSBytes: 50, InWindow: true},
		{Time: at(2100), CPUUserSeconds: 1.05, RSSBytes: 40}, // after it
	}
	ts := targetStats(ss, 1000, at(1000), at(2000))
	// 0.6 s of CPU over the 1.2 s between the bracketing samples, times
	// the 1 s window: 0.5 s, 500 us per request.
	if math.Abs(ts.CPUSeconds-0.5) > 1e-9 || math.Abs(ts.CPUPerRequestUS-500) > 1e-6 {
		t.Errorf("cpu %v s, %v us/request; want 0.5 s, 500 us", ts.CPUSeconds, ts.CPUPerRequestUS)
	}
	if ts.RSSSteadyBytes != 40 || ts.RSSPeakBytes != 50 {
		t.Errorf("rss steady %d peak %d; want 40 and 50", ts.RSSSteadyBytes, ts.RSSPeakBytes)
	}
}

// TestNoResponseSaysWhichCounts: the kept window's error count and the
// whole load's counts by kind are named as what they are, not shown as one
// ("24317 errors: short_read 33265").
func TestNoResponseSaysWhichCounts(t *testing.T) {
	l := &pipeline.Load{Errors: 24317, ErrorsByKind: map[string]int64{"short_read": 33265}}
	want := "no response in the kept window (24317 errors in the kept window; by kind over the whole load, warm-up included: short_read 33265)"
	if got := noResponse(l).Error(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := noResponse(&pipeline.Load{}).Error(); got != "no response in the kept window (0 errors in the kept window)" {
		t.Errorf("without kinds: %q", got)
	}
}
