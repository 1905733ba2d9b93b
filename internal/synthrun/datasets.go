package synthrun

import (
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/pipeline"
	"yardstick/stats/hdrstat"
)

// Datasets is the datasets stage's fixture (experiment "fixture"): a
// closed-loop batch of a Go target with a GOMEMLIMIT axis and a JVM target
// with a GC axis (4 variants x 2 concurrencies) and a batch of one variant
// that measures its peak closed-loop and then runs two open-loop rates,
// one of them a fraction of the peak: 11 cells. Its latencies are chosen
// so that HdrHistogram's Go and Java/JavaScript percentile conventions
// differ in some cells.
var Datasets = &Fixture{
	Experiment: "fixture",
	RunID:      "20261130T062300Z-f1x7",
	Definition: datasetsDefinition,
	file:       "fixture.cue",
	seed:       42,
	// Odd nanoseconds show that timestamps are truncated to microseconds.
	clock: clock{spacing: 20 * time.Second, offset: 123_456_789, loadDelay: 2*time.Second + 7_001,
		tail: 400 * time.Millisecond, failAfter: 1500 * time.Millisecond},
	failure: "target exited with status 2 during warm-up: bind: address already in use",
	measure: measureDatasets,
}

const datasetsDefinition = `package experiments

fixture: {
	description: "synthetic run for the datasets tests"
	batches: closed: {
		processors: 1
		placement: {target: "0", loadgen: "1"}
		windows: {serviceWarmup: "2s", warmup: "2s", measure: "5s", discardHead: "1s", readyTimeout: "30s"}
		sampling: {interval: "100ms", idleAfter: "1s"}
		repeats: 1
		workload: {
			request: {method: "GET", path: "/api/generated/{payload}"}
			payload: [128]
			concurrency: [8, 32]
		}
		targets: {
			"go": {
				kind: "go"
				cmd: ["bin/sample-go", "-port", "{port}"]
				port:       18081
				ready:      "/ready"
				gomemlimit: ["off", "256MiB"]
				gcLog:      true
			}
			"jvm": {
				kind: "jvm"
				jar:  "bin/sample-jvm.jar"
				args: ["--port", "{port}"]
				port:  18082
				ready: "/ready"
				heap:  "256m"
				gc:    ["G1", "ZGC"]
				eventLoopThreads: "^sample-worker-"
			}
		}
		baseline: "go"
	}
	batches: open: {
		processors: 1
		placement: {target: "0", loadgen: "1"}
		windows: {serviceWarmup: "2s", warmup: "2s", measure: "5s", discardHead: "1s", readyTimeout: "30s"}
		repeats: 1
		workload: {
			request: {method: "GET", path: "/api/fixed"}
			concurrency: [16]
			rate: [2000, "50%"]
			connections: 16
		}
		targets: "go": {
			kind: "go"
			cmd: ["bin/sample-go", "-port", "{port}"]
			port:  18081
			ready: "/ready"
		}
	}
}
`

// measureDatasets is the datasets fixture's model: every cell has about
// the same load, its numbers varied by its sequence number.
func measureDatasets(m *measurement) error {
	l, err := datasetsLatencies(m)
	if err != nil {
		return err
	}
	hist, err := hdrstat.Encode(l.whole)
	if err != nil {
		return err
	}
	m.cp.Load = datasetsLoad(m.cell, l, hist)
	if m.cp.Intervals, err = datasetsIntervals(l.perIv); err != nil {
		return err
	}
	m.cp.Steady = analyze(m)
	m.cp.Samples = datasetsSamples(m.cp.Window)
	datasetsTarget(m.cell, l.n, m.cp)
	return nil
}

// latencies are a cell's recorded requests: the kept window's histogram,
// one per interval of the load, the count and the errors.
type latencies struct {
	whole *hdrhistogram.Histogram
	perIv []*hdrhistogram.Histogram
	n     int
	errs  int64
}

// drifting is the cell whose throughput still rises through its kept
// window (a JIT-like ramp, +40% from its first interval to its last): the
// one the steady-state columns flag.
const drifting = "closed/jvm-zgc/c8-p128/r1"

// datasetsLatencies draws a log-normal body around 400-900 us with a 1%
// tail out to tens of milliseconds. The request count is chosen so that
// p99's rank, 0.99 x count, has a fraction below .5 for some cells: where
// HdrHistogram's Go and Java/JavaScript percentile conventions differ.
// The requests spread evenly over the kept intervals, but for the
// drifting cell's, denser towards the end.
func datasetsLatencies(m *measurement) (*latencies, error) {
	seq := m.cell.Seq
	keptSeconds := int((measure - discard) / time.Second)
	l := &latencies{whole: newHist(), perIv: make([]*hdrhistogram.Histogram, loadIntervals)}
	for i := range l.perIv {
		l.perIv[i] = newHist()
	}
	kept := loadIntervals - keptFrom
	place := func(i int) int { return keptFrom + i*kept/l.n }
	if m.cell.Name == drifting {
		// The inverse of the density 1 + a x on [0, 1): a = 0.4.
		const a = 0.4
		place = func(i int) int {
			u := float64(i) / float64(l.n)
			return keptFrom + int(float64(kept)*(math.Sqrt(1+a*(a+2)*u)-1)/a)
		}
	}
	l.n = 4000*keptSeconds + 60 + seq*7
	body := 400 + 60*float64(seq%4)
	for i := 0; i < l.n; i++ {
		v := body * math.Exp(0.35*m.rng.NormFloat64())
		if m.rng.Float64() < 0.012 {
			v = 2_000 + m.rng.ExpFloat64()*9_000
		}
		if m.rng.Float64() < 0.0005 {
			v = 110_000 + m.rng.Float64()*40_000
		}
		us := max(int64(v), 1)
		if err := l.whole.RecordValue(us); err != nil {
			return nil, err
		}
		_ = l.perIv[min(place(i), loadIntervals-1)].RecordValue(us)
		if m.rng.Float64() < 0.001 {
			l.errs++
		}
	}
	return l, nil
}

func datasetsLoad(c *pipeline.Cell, l *latencies, hist string) *pipeline.Load {
	durS := float64(measure-discard) / 1e9
	load := &pipeline.Load{
		Mode:             c.Point.Mode,
		Connections:      max(c.Point.Concurrency, c.Point.Connections),
		Requests:         int64(l.n),
		Errors:           l.errs,
		DurationS:        durS,
		RPS:              float64(l.n) / durS,
		Latency:          summary(l.whole),
		Hist:             hist,
		ResponseBytes:    int64(l.n) * 180,
		LoadgenCPUS:      1.75 + 0.01*float64(c.Seq),
		LoadgenDurationS: (warmup + measure).Seconds(),
		LoadgenCPUs:      1,
	}
	if c.Point.Mode == "open" {
		load.RateTarget = c.Point.Rate
		if c.Point.PeakFraction > 0 {
			load.RateTarget = c.Point.PeakFraction * 9_000
		}
		load.Sends = int64(l.n)
		load.LateSends = int64(l.n / 250)
	}
	return load
}

// datasetsIntervals are the load's 100 ms intervals: the warm-up ones
// with fewer requests, fixed latencies and no histogram, the kept ones
// from their histograms.
func datasetsIntervals(perIv []*hdrhistogram.Histogram) ([]pipeline.Interval, error) {
	var out []pipeline.Interval
	for i, h := range perIv {
		iv, err := intervalOf(i, h)
		if err != nil {
			return nil, err
		}
		if i < keptFrom {
			iv.Requests = int64(300 + 3*i)
			iv.P50US, iv.P99US, iv.MaxUS = 800, 4000, 9000
		}
		iv.RSSBytes = (48 << 20) + int64(i)*(100<<10)
		iv.CPUSeconds = 0.09 + 0.0001*float64(i)
		out = append(out, iv)
	}
	return out, nil
}

// datasetsSamples are 70 /proc samples, 100 ms apart from the load's start.
func datasetsSamples(w *pipeline.Window) []pipeline.Sample {
	var out []pipeline.Sample
	for i := 0; i < 70; i++ {
		t := w.LoadStart.Add(time.Duration(i)*100*time.Millisecond + 333*time.Nanosecond)
		out = append(out, pipeline.Sample{
			Time: t, InWindow: !t.Before(w.KeptStart) && t.Before(w.KeptEnd),
			RSSBytes:       (48 << 20) + int64(i)*(64<<10),
			CPUUserSeconds: 0.08 * float64(i), CPUSysSeconds: 0.02 * float64(i),
			Threads: 9 + i%2, MatchedThreads: 1,
			VoluntaryCtxSwitches: int64(i) * 1200, InvoluntaryCtxSwitches: int64(i) * 35, PIDs: 1,
		})
	}
	return out
}

// datasetsTarget fills the target's side: its process, GC, access log and
// cold start.
func datasetsTarget(c *pipeline.Cell, n int, cp *pipeline.Checkpoint) {
	elt := -1
	if c.Kind == "jvm" {
		elt = 1
	}
	cpuS := 4.1 + 0.05*float64(c.Seq%3)
	cp.Target = &pipeline.TargetStats{
		PID: 4242, RSSSteadyBytes: 52 << 20, RSSPeakBytes: 55 << 20, RSSAfterBytes: 53 << 20,
		CPUSeconds: cpuS, CPUPerRequestUS: cpuS * 1e6 / float64(n), Threads: 9, EventLoopThreads: elt,
	}
	if c.Kind == "go" {
		cp.GC = &pipeline.GCStats{Source: "gctrace", Count: 12, PauseTotalUS: 1830, PauseMaxUS: 410, CountBefore: 30, CountAfter: 44}
	} else {
		cp.GC = &pipeline.GCStats{Source: "jvm", Count: 3, PauseTotalUS: 5200, PauseMaxUS: 2600, CountBefore: 5, CountAfter: 8}
	}
	cp.AccessLog = &pipeline.LogStats{Path: "access.log", Bytes: int64(n) * 96, BytesPerRequest: 96}
	cp.ColdStart = &pipeline.ColdStart{StartMS: 212.5 + float64(c.Seq), ProbesMS: []float64{198.25, 205.0}, MedianMS: 205.0}
}
