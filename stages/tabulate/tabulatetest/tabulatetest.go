// Package tabulatetest writes synthetic but realistic run directories for
// the tests of the datasets stage and its foreign readers: a real plan.json
// expanded from a CUE definition, environment.json, and one checkpoint per
// finished cell with HdrHistograms recorded from known, seeded latencies.
// Until the execute stage writes real runs in the tests, this is the input
// of the interop check.
package tabulatetest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/pipeline"
	"yardstick/stages/plan"
	"yardstick/stats/hdrstat"
)

// Experiment and RunID name the fixture run: it lives in
// <results>/fixture/run=20261130T062300Z-f1x7/.
const (
	Experiment = "fixture"
	RunID      = "20261130T062300Z-f1x7"
)

// Definition is the fixture's experiment: a closed-loop batch of a Go
// target with a GOMEMLIMIT axis and a JVM target with a GC axis (4
// variants x 2 concurrencies) and a batch of one variant that measures its
// peak closed-loop and then runs two open-loop rates, one of them a
// fraction of the peak: 11 cells.
const Definition = `package experiments

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

// Options shape a fixture run.
type Options struct {
	// Pending leaves the last Pending cells of the plan without a
	// checkpoint.
	Pending int
	// Failed marks the cell of this plan index (1-based; 0 for none) as
	// failed: it has a checkpoint with an error and no load.
	Failed int
	// NoEnvironment leaves out environment.json.
	NoEnvironment bool
	// Fairness, if set, is written as fairness.json.
	Fairness []byte
	// RunID names the run; RunID (the constant) when empty.
	RunID string
}

// Plan expands Definition.
func Plan() (*pipeline.Plan, error) {
	return plan.FromSource("fixture.cue", []byte(Definition), Experiment, plan.Options{})
}

// Base is when the fixture run started.
var Base = time.Date(2026, 11, 30, 6, 23, 0, 0, time.UTC)

// Write creates <results>/fixture/run=<RunID>/ with plan.json,
// environment.json and the checkpoints.
func Write(results string, o Options) (*pipeline.RunDir, *pipeline.Plan, error) {
	p, err := Plan()
	if err != nil {
		return nil, nil, err
	}
	id := o.RunID
	if id == "" {
		id = RunID
	}
	rd, err := pipeline.CreateRunDir(results, Experiment, id)
	if err != nil {
		return nil, nil, err
	}
	if err := rd.WritePlan(p); err != nil {
		return nil, nil, err
	}
	if !o.NoEnvironment {
		env := &pipeline.Environment{
			Host: "bench-01",
			Fingerprint: pipeline.Fingerprint{Kernel: "6.1.0-28-amd64", OS: "linux", Arch: "amd64",
				CPUModel: "AMD EPYC 7B13", Cores: 2, Governor: "performance", MemoryBytes: 8 << 30,
				GoVersion: "go1.26.8", JavaVersion: ""},
			Yardstick:  "devel-fixture",
			SourceHash: p.SourceHash, PlanHash: p.Hash, Captured: Base.Add(-3 * time.Second),
			Workdir: "/work/yardstick",
		}
		if err := pipeline.WriteJSONAtomic(rd.Path("environment.json"), env); err != nil {
			return nil, nil, err
		}
	}
	if o.Fairness != nil {
		if err := pipeline.WriteFileAtomic(rd.Path("fairness.json"), o.Fairness); err != nil {
			return nil, nil, err
		}
	}
	for i := range p.Cells {
		if i >= len(p.Cells)-o.Pending {
			break
		}
		cp, err := Checkpoint(&p.Cells[i], i+1 == o.Failed)
		if err != nil {
			return nil, nil, err
		}
		if err := rd.WriteCheckpoint(cp); err != nil {
			return nil, nil, err
		}
	}
	return rd, p, nil
}

// Path is the fixture's run directory under results.
func Path(results string) string {
	return filepath.Join(results, Experiment, pipeline.RunIDPrefix+RunID)
}

// Checkpoint makes the checkpoint of cell c: seeded by its sequence number,
// so the same cell always gets the same numbers.
func Checkpoint(c *pipeline.Cell, failed bool) (*pipeline.Checkpoint, error) {
	rng := rand.New(rand.NewPCG(uint64(c.Seq)+1, 42))
	// Odd nanoseconds show that timestamps are truncated to microseconds.
	started := Base.Add(time.Duration(c.Seq)*20*time.Second + 123_456_789)
	cp := &pipeline.Checkpoint{
		Version:  pipeline.CheckpointVersion,
		CellID:   c.ID,
		CellName: c.Name,
		Status:   pipeline.StatusOK,
		Started:  started,
		Start:    fmt.Sprintf("%04d-%s-%s-r%d", c.StartSeq, c.Batch, c.Variant, c.Repeat),
	}
	if failed {
		cp.Status = pipeline.StatusFailed
		cp.Error = "target exited with status 2 during warm-up: bind: address already in use"
		cp.Ended = started.Add(1500 * time.Millisecond)
		return cp, nil
	}
	const warmup, measure, discard = 2 * time.Second, 5 * time.Second, 1 * time.Second
	loadStart := started.Add(2*time.Second + 7_001*time.Nanosecond)
	w := &pipeline.Window{
		Warmup: warmup, Measure: measure, DiscardHead: discard,
		LoadStart: loadStart, KeptStart: loadStart.Add(warmup + discard), KeptEnd: loadStart.Add(warmup + measure),
	}
	cp.Window = w
	cp.Ended = w.KeptEnd.Add(400 * time.Millisecond)

	// Latencies: log-normal body around 400-900 us with a 1% tail out to
	// tens of milliseconds. The request count is chosen so that p99's
	// rank, 0.99 x count, has a fraction below .5 for some cells: where
	// HdrHistogram's Go and Java/JavaScript percentile conventions differ.
	h := hdrhistogram.New(1, 60_000_000, 3)
	perSec := make([]*hdrhistogram.Histogram, 7)
	for i := range perSec {
		perSec[i] = hdrhistogram.New(1, 60_000_000, 3)
	}
	keptSeconds := int((measure - discard) / time.Second)
	n := 4000*keptSeconds + 60 + int(c.Seq)*7
	body := 400 + 60*float64(c.Seq%4)
	var errs int64
	for i := 0; i < n; i++ {
		v := body * math.Exp(0.35*rng.NormFloat64())
		if rng.Float64() < 0.012 {
			v = 2_000 + rng.ExpFloat64()*9_000
		}
		if rng.Float64() < 0.0005 {
			v = 110_000 + rng.Float64()*40_000
		}
		us := max(int64(v), 1)
		if err := h.RecordValue(us); err != nil {
			return nil, err
		}
		sec := int((warmup+discard)/time.Second) + i*keptSeconds/n
		_ = perSec[sec].RecordValue(us)
		if rng.Float64() < 0.001 {
			errs++
		}
	}
	hist, err := hdrstat.Encode(h)
	if err != nil {
		return nil, err
	}
	d := hdrstat.NewDist(h)
	durS := float64(measure-discard) / 1e9
	load := &pipeline.Load{
		Mode:        c.Point.Mode,
		Connections: max(c.Point.Concurrency, c.Point.Connections),
		Requests:    int64(n),
		Errors:      errs,
		DurationS:   durS,
		RPS:         float64(n) / durS,
		Latency: pipeline.LatencyUS{
			Mean: h.Mean(), P50: d.Percentile(50), P90: d.Percentile(90), P99: d.Percentile(99),
			P999: d.Percentile(99.9), P9999: d.Percentile(99.99), Max: d.Max(), Min: d.Min(),
		},
		Hist:             hist,
		ResponseBytes:    int64(n) * 180,
		LoadgenCPUS:      1.75 + 0.01*float64(c.Seq),
		LoadgenDurationS: (warmup + measure).Seconds(),
		LoadgenCPUs:      1,
	}
	if c.Point.Mode == "open" {
		load.RateTarget = c.Point.Rate
		if c.Point.PeakFraction > 0 {
			load.RateTarget = c.Point.PeakFraction * 9_000
		}
		load.Sends = int64(n)
		load.LateSends = int64(n / 250)
	}
	cp.Load = load
	for s := 0; s < 7; s++ {
		ph := perSec[s]
		sec := pipeline.Second{
			Second:     s,
			InWindow:   s >= int((warmup+discard)/time.Second),
			RSSBytes:   (48 << 20) + int64(s)*(1<<20),
			CPUSeconds: 0.9 + 0.001*float64(s),
		}
		if s < int((warmup+discard)/time.Second) {
			// warm-up seconds: fewer requests, recorded separately.
			sec.Requests = int64(3000 + 100*s)
			sec.P50US, sec.P99US, sec.MaxUS = 800, 4000, 9000
		} else {
			pd := hdrstat.NewDist(ph)
			sec.Requests = ph.TotalCount()
			sec.P50US, sec.P99US, sec.MaxUS = pd.Percentile(50), pd.Percentile(99), pd.Max()
		}
		cp.Seconds = append(cp.Seconds, sec)
	}
	for i := 0; i < 70; i++ {
		t := loadStart.Add(time.Duration(i)*100*time.Millisecond + 333*time.Nanosecond)
		cp.Samples = append(cp.Samples, pipeline.Sample{
			Time: t, InWindow: !t.Before(w.KeptStart) && t.Before(w.KeptEnd),
			RSSBytes:       (48 << 20) + int64(i)*(64<<10),
			CPUUserSeconds: 0.08 * float64(i), CPUSysSeconds: 0.02 * float64(i),
			Threads: 9 + i%2, MatchedThreads: 1,
			VoluntaryCtxSwitches: int64(i) * 1200, InvoluntaryCtxSwitches: int64(i) * 35, PIDs: 1,
		})
	}
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
	return cp, nil
}
