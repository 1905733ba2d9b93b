// Package reporttest writes a small but realistic run directory for the
// report stage's tests: a real plan.json expanded from a CUE definition
// with five repeats, two payloads and two concurrencies (so that verdicts
// use the Mann-Whitney U test), a heap-gradient batch, one failed cell, one
// cell that failed a fairness check, and checkpoints whose HdrHistograms are
// recorded from seeded latencies that differ by variant. Tabulate turns it
// into the Parquet tables the report reads.
package reporttest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/pipeline"
	"yardstick/stages/plan"
	"yardstick/stages/tabulate"
	"yardstick/stats/hdrstat"
)

// Experiment and RunID name the fixture run.
const (
	Experiment = "reportfix"
	RunID      = "20261130T062300Z-r3p0"
)

// Definition is the fixture's experiment.
const Definition = `package experiments

reportfix: {
	description: "synthetic run for the report tests"
	batches: main: {
		description: "Same resources, compare service."
		processors: 1
		placement: {target: "0", loadgen: "1"}
		windows: {serviceWarmup: "2s", warmup: "2s", measure: "5s", discardHead: "1s", readyTimeout: "30s"}
		repeats: 5
		workload: {
			request: {method: "GET", path: "/api/generated/{payload}"}
			payload: [128, 2048]
			concurrency: [8, 32]
		}
		targets: {
			"go": {
				kind: "go"
				cmd: ["bin/sample-go", "-port", "{port}"]
				port:       18081
				ready:      "/ready"
				gomemlimit: "off"
			}
			"jvm": {
				kind: "jvm"
				jar:  "bin/sample-jvm.jar"
				args: ["--port", "{port}"]
				port:  18082
				ready: "/ready"
				heap:  "256m"
				gc:    ["G1", "ZGC"]
			}
		}
		baseline: "go"
		fairness: noise: 0.07
	}
	batches: heap: {
		description: "Same service, heap gradient."
		processors: 1
		placement: {target: "0", loadgen: "1"}
		windows: {serviceWarmup: "2s", warmup: "2s", measure: "5s", discardHead: "1s", readyTimeout: "30s"}
		repeats: 1
		workload: {
			request: {method: "GET", path: "/api/generated/{payload}"}
			payload: [128]
			concurrency: [32]
		}
		targets: "jvm": {
			kind: "jvm"
			jar:  "bin/sample-jvm.jar"
			args: ["--port", "{port}"]
			port:  18082
			ready: "/ready"
			heap:  ["128m", "256m", "512m"]
			gc:    "G1"
		}
		fairness: noise: 0.05
	}
}
`

// profile is how a variant behaves in the fixture.
type profile struct {
	rps8, rps32  float64 // throughput at concurrency 8 and 32, payload 128
	tail         float64 // share of requests in the slow tail
	tailMS       float64 // mean of the tail above 2 ms
	rssMiB       float64
	rssAfterMiB  float64
	coldMS       float64
	cpuPerReqUS  float64
	ramp         [3]float64 // warm-up seconds' throughput relative to steady
	heapRSSRatio float64    // RSS grows with the heap by this share of it
}

var profiles = map[string]profile{
	"go":      {rps8: 9000, rps32: 10400, tail: 0.002, tailMS: 4, rssMiB: 38, rssAfterMiB: 21, coldMS: 6, cpuPerReqUS: 96, ramp: [3]float64{0.97, 1, 1}},
	"jvm-g1":  {rps8: 9250, rps32: 12600, tail: 0.016, tailMS: 14, rssMiB: 310, rssAfterMiB: 305, coldMS: 640, cpuPerReqUS: 88, ramp: [3]float64{0.22, 0.55, 0.85}, heapRSSRatio: 0.9},
	"jvm-zgc": {rps8: 7600, rps32: 9000, tail: 0.004, tailMS: 6, rssMiB: 420, rssAfterMiB: 418, coldMS: 700, cpuPerReqUS: 118, ramp: [3]float64{0.2, 0.5, 0.8}},
}

// FailedCell and UnfairCell name the fixture's failed cell and the cell
// that failed a fairness check.
const (
	FailedCell = "main/go/c8-p128/r5"
	UnfairCell = "main/jvm-zgc/c32-p2048/r3"
)

// Plan expands Definition.
func Plan() (*pipeline.Plan, error) {
	return plan.FromSource("reportfix.cue", []byte(Definition), Experiment, plan.Options{})
}

// Base is when the fixture run started.
var Base = time.Date(2026, 11, 30, 6, 23, 0, 0, time.UTC)

// Path is the fixture's run directory under results.
func Path(results string) string {
	return filepath.Join(results, Experiment, pipeline.RunIDPrefix+RunID)
}

// Write creates the fixture run under results, with its Parquet tables,
// and returns its directory.
func Write(results string) (string, error) {
	p, err := Plan()
	if err != nil {
		return "", err
	}
	rd, err := pipeline.CreateRunDir(results, Experiment, RunID)
	if err != nil {
		return "", err
	}
	if err := rd.WritePlan(p); err != nil {
		return "", err
	}
	env := &pipeline.Environment{
		Host: "bench-01",
		Fingerprint: pipeline.Fingerprint{Kernel: "6.1.0-28-amd64", OS: "linux", Arch: "amd64",
			CPUModel: "AMD EPYC 7B13", Cores: 2, Governor: "performance", MemoryBytes: 8 << 30,
			GoVersion: "go1.26.8", JavaVersion: "21.0.5"},
		Yardstick:  "devel-fixture",
		SourceHash: p.SourceHash, PlanHash: p.Hash, Captured: Base.Add(-3 * time.Second),
		Workdir: "/work/yardstick",
	}
	if err := pipeline.WriteJSONAtomic(rd.Path("environment.json"), env); err != nil {
		return "", err
	}
	var fair []pipeline.FairnessRow
	for _, b := range p.Batches {
		fair = append(fair, pipeline.FairnessRow{Check: "processors", Scope: "batch", Batch: b.Name,
			Expected: ptr(1.0), Measured: ptr(1.0), Unit: ptr("processors"), Pass: true})
	}
	for i := range p.Cells {
		c := &p.Cells[i]
		if c.Name == UnfairCell {
			fair = append(fair, pipeline.FairnessRow{Check: "nagle_floor", Scope: "cell", Batch: c.Batch, CellID: ptr(c.ID),
				Expected: ptr(40000.0), Measured: ptr(43800.0), Tolerance: ptr(0.15), Unit: ptr("us"), Pass: false,
				Detail: ptr(c.Name + ": p50 43.8 ms sits on the 40 ms Nagle + delayed-ACK floor")})
		}
		cp, err := checkpoint(p, c)
		if err != nil {
			return "", err
		}
		if err := rd.WriteCheckpoint(cp); err != nil {
			return "", err
		}
	}
	if err := pipeline.WriteJSONAtomic(rd.Path("fairness.json"), fair); err != nil {
		return "", err
	}
	if _, err := tabulate.Run(rd, "devel-fixture"); err != nil {
		return "", err
	}
	return rd.Root, nil
}

func checkpoint(p *pipeline.Plan, c *pipeline.Cell) (*pipeline.Checkpoint, error) {
	rng := rand.New(rand.NewPCG(uint64(c.Seq)+1, 7))
	started := Base.Add(time.Duration(c.Seq) * 10 * time.Second)
	cp := &pipeline.Checkpoint{
		Version: pipeline.CheckpointVersion, CellID: c.ID, CellName: c.Name, Status: pipeline.StatusOK,
		Started: started, Start: fmt.Sprintf("%04d-%s-%s-r%d", c.StartSeq, c.Batch, c.Variant, c.Repeat),
	}
	if c.Name == FailedCell {
		cp.Status = pipeline.StatusFailed
		cp.Error = "target exited with status 2 during warm-up"
		cp.Ended = started.Add(time.Second)
		return cp, nil
	}
	pr, ok := profiles[c.Variant]
	heapMiB := 256.0
	if !ok { // the heap batch: jvm-128m, jvm-256m, jvm-512m
		pr = profiles["jvm-g1"]
		for _, b := range p.Batches {
			for _, v := range b.Variants {
				if b.Name == c.Batch && v.Label == c.Variant {
					if _, err := fmt.Sscanf(v.Knob("heap"), "%fm", &heapMiB); err != nil {
						return nil, fmt.Errorf("heap of %s: %w", c.Name, err)
					}
				}
			}
		}
		pr.rps32 *= 0.8 + 0.2*math.Log2(heapMiB/64)/3
		pr.tail *= 256 / heapMiB
		pr.rssMiB += pr.heapRSSRatio * (heapMiB - 256)
		pr.rssAfterMiB = pr.rssMiB - 4
	}
	rps := pr.rps8
	if c.Point.Concurrency == 32 {
		rps = pr.rps32
	}
	if c.Point.Payload != nil && *c.Point.Payload == 2048 {
		rps *= 0.8
	}
	rps *= 1 + 0.015*rng.NormFloat64()
	const warmup, measure, discard = 2 * time.Second, 5 * time.Second, 1 * time.Second
	loadStart := started.Add(2 * time.Second)
	w := &pipeline.Window{Warmup: warmup, Measure: measure, DiscardHead: discard,
		LoadStart: loadStart, KeptStart: loadStart.Add(warmup + discard), KeptEnd: loadStart.Add(warmup + measure)}
	cp.Window = w
	cp.Ended = w.KeptEnd.Add(300 * time.Millisecond)

	keptS := (measure - discard).Seconds()
	n := int(rps * keptS)
	body := float64(c.Point.Concurrency) / rps * 1e6 * 0.8 // us, Little's law
	h := hdrhistogram.New(1, 60_000_000, 3)
	for i := 0; i < n; i++ {
		v := body * math.Exp(0.3*rng.NormFloat64())
		if rng.Float64() < pr.tail {
			v = 2_000 + rng.ExpFloat64()*pr.tailMS*1000
		}
		if err := h.RecordValue(max(int64(v), 1)); err != nil {
			return nil, err
		}
	}
	hist, err := hdrstat.Encode(h)
	if err != nil {
		return nil, err
	}
	d := hdrstat.NewDist(h)
	cp.Load = &pipeline.Load{
		Mode: c.Point.Mode, Connections: c.Point.Concurrency, Requests: int64(n), DurationS: keptS,
		RPS: float64(n) / keptS,
		Latency: pipeline.LatencyUS{Mean: h.Mean(), P50: d.Percentile(50), P90: d.Percentile(90), P99: d.Percentile(99),
			P999: d.Percentile(99.9), P9999: d.Percentile(99.99), Max: d.Max(), Min: d.Min()},
		Hist: hist, ResponseBytes: int64(n) * 180,
		LoadgenCPUS: 2.1, LoadgenDurationS: (warmup + measure).Seconds(), LoadgenCPUs: 1,
	}
	// The first start of a variant ramps up; later cells of the same start
	// are warm.
	first := c.Point.Concurrency == 8 && c.Point.Payload != nil && *c.Point.Payload == 128
	for s := 0; s < 7; s++ {
		f := 1 + 0.01*rng.NormFloat64()
		if s < 3 && first {
			f = pr.ramp[s]
		}
		cp.Seconds = append(cp.Seconds, pipeline.Second{
			Second: s, InWindow: s >= 3, Requests: int64(rps * f),
			P50US: int64(body), P99US: int64(body * 3 / f), MaxUS: int64(body * 8 / f),
			RSSBytes: int64(pr.rssMiB*(1<<20)) - int64(3-min(s, 3))<<20, CPUSeconds: rps * f * pr.cpuPerReqUS / 1e6,
		})
	}
	for i := 0; i < 10; i++ {
		t := loadStart.Add(time.Duration(i) * 700 * time.Millisecond)
		cp.Samples = append(cp.Samples, pipeline.Sample{Time: t, InWindow: !t.Before(w.KeptStart) && t.Before(w.KeptEnd),
			RSSBytes: int64(pr.rssMiB * (1 << 20)), CPUUserSeconds: 0.5 * float64(i), Threads: 12, PIDs: 1})
	}
	cpuPerReq := pr.cpuPerReqUS * (1 + 0.01*rng.NormFloat64())
	cp.Target = &pipeline.TargetStats{PID: 4242,
		RSSSteadyBytes: int64(pr.rssMiB * (1 + 0.005*rng.NormFloat64()) * (1 << 20)),
		RSSPeakBytes:   int64(pr.rssMiB * 1.04 * (1 << 20)), RSSAfterBytes: int64(pr.rssAfterMiB * (1 << 20)),
		CPUSeconds: cpuPerReq * float64(n) / 1e6, CPUPerRequestUS: cpuPerReq, Threads: 12, EventLoopThreads: -1}
	cold := pr.coldMS * (1 + 0.02*rng.NormFloat64())
	cp.ColdStart = &pipeline.ColdStart{StartMS: cold, MedianMS: cold}
	return cp, nil
}

func ptr[T any](v T) *T { return &v }
