package synthrun

import (
	"fmt"
	"math"
	"time"

	"yardstick/pipeline"
	"yardstick/stats/hdrstat"
)

// Report is the report stage's fixture (experiment "reportfix"): five
// repeats, two payloads and two concurrencies (so that verdicts use the
// Mann-Whitney U test), a heap-gradient batch, one failed cell and one
// cell that failed a fairness check; its variants differ as their
// profiles say.
var Report = &Fixture{
	Experiment:  "reportfix",
	RunID:       "20261130T062300Z-r3p0",
	Definition:  reportDefinition,
	FailedCell:  "main/go/c8-p128/r5",
	UnfairCell:  "main/jvm-zgc/c32-p2048/r3",
	file:        "reportfix.cue",
	javaVersion: "21.0.5",
	seed:        7,
	clock: clock{spacing: 10 * time.Second, loadDelay: 2 * time.Second,
		tail: 300 * time.Millisecond, failAfter: time.Second},
	failure:  "target exited with status 2 during warm-up",
	fairness: reportFairness,
	measure:  measureReport,
}

const reportDefinition = `package experiments

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

// A profile is how a variant of the report fixture behaves.
type profile struct {
	rps8, rps32  float64 // throughput at concurrency 8 and 32, payload 128
	tail         float64 // share of requests in the slow tail
	tailMS       float64 // mean of the tail above 2 ms
	rssMiB       float64
	rssAfterMiB  float64
	coldMS       float64
	cpuPerReqUS  float64
	ramp         []level // the first cell of a start: throughput relative to steady
	heapRSSRatio float64 // RSS grows with the heap by this share of it
}

// A level is a ramp's throughput, relative to steady, until a second of
// the load.
type level struct{ until, f float64 }

// at is the ramp's level t seconds into the load: 1 after its last step.
func at(ramp []level, t float64) float64 {
	for _, l := range ramp {
		if t < l.until {
			return l.f
		}
	}
	return 1
}

var profiles = map[string]profile{
	// Flat from the start.
	"go": {rps8: 9000, rps32: 10400, tail: 0.002, tailMS: 4, rssMiB: 38, rssAfterMiB: 21, coldMS: 6, cpuPerReqUS: 96},
	// JIT tiers during the warm-up, steady from 1.8 s: before its kept
	// window (3 s).
	"jvm-g1": {rps8: 9250, rps32: 12600, tail: 0.016, tailMS: 14, rssMiB: 310, rssAfterMiB: 305, coldMS: 640, cpuPerReqUS: 88,
		ramp: []level{{0.6, 0.22}, {1.2, 0.55}, {1.8, 0.85}}, heapRSSRatio: 0.9},
	// Still warming up through its kept window (+25% inside it): the
	// cell the report's notes on steadiness are about.
	"jvm-zgc": {rps8: 7600, rps32: 9000, tail: 0.004, tailMS: 6, rssMiB: 420, rssAfterMiB: 418, coldMS: 700, cpuPerReqUS: 118,
		ramp: []level{{0.6, 0.2}, {1.2, 0.5}, {3.5, 0.7}, {5, 0.8}, {6, 0.9}}},
}

// reportFairness passes the processors check of every batch and fails
// the Nagle floor check of the unfair cell.
func reportFairness(f *Fixture, p *pipeline.Plan, _ map[string]*pipeline.Checkpoint) []pipeline.FairnessRow {
	var rows []pipeline.FairnessRow
	for _, b := range p.Batches {
		rows = append(rows, pipeline.FairnessRow{Check: "processors", Scope: "batch", Batch: b.Name,
			Expected: ptr(1.0), Measured: ptr(1.0), Unit: ptr("processors"), Pass: true})
	}
	for i := range p.Cells {
		if c := &p.Cells[i]; c.Name == f.UnfairCell {
			rows = append(rows, pipeline.FairnessRow{Check: "nagle_floor", Scope: "cell", Batch: c.Batch, CellID: ptr(c.ID),
				Expected: ptr(40000.0), Measured: ptr(43800.0), Tolerance: ptr(0.15), Unit: ptr("us"), Pass: false,
				Detail: ptr(c.Name + ": p50 43.8 ms sits on the 40 ms Nagle + delayed-ACK floor")})
		}
	}
	return rows
}

// measureReport is the report fixture's model: each variant's profile at
// the cell's point, with seeded noise.
func measureReport(m *measurement) error {
	c := m.cell
	pr, err := profileOf(m.plan, c)
	if err != nil {
		return err
	}
	rps := pr.rps8
	if c.Point.Concurrency == 32 {
		rps = pr.rps32
	}
	if c.Point.Payload != nil && *c.Point.Payload == 2048 {
		rps *= 0.8
	}
	rps *= 1 + 0.015*m.rng.NormFloat64()
	body := float64(c.Point.Concurrency) / rps * 1e6 * 0.8 // us, Little's law
	n, err := reportLoad(m, pr, rps, body)
	if err != nil {
		return err
	}
	for i := 0; i < 10; i++ {
		t := m.cp.Window.LoadStart.Add(time.Duration(i) * 700 * time.Millisecond)
		m.cp.Samples = append(m.cp.Samples, pipeline.Sample{Time: t, InWindow: !t.Before(m.cp.Window.KeptStart) && t.Before(m.cp.Window.KeptEnd),
			RSSBytes: int64(pr.rssMiB * (1 << 20)), CPUUserSeconds: 0.5 * float64(i), Threads: 12, PIDs: 1})
	}
	cpuPerReq := pr.cpuPerReqUS * (1 + 0.01*m.rng.NormFloat64())
	m.cp.Target = &pipeline.TargetStats{PID: 4242,
		RSSSteadyBytes: int64(pr.rssMiB * (1 + 0.005*m.rng.NormFloat64()) * (1 << 20)),
		RSSPeakBytes:   int64(pr.rssMiB * 1.04 * (1 << 20)), RSSAfterBytes: int64(pr.rssAfterMiB * (1 << 20)),
		CPUSeconds: cpuPerReq * float64(n) / 1e6, CPUPerRequestUS: cpuPerReq, Threads: 12, EventLoopThreads: -1}
	cold := pr.coldMS * (1 + 0.02*m.rng.NormFloat64())
	m.cp.ColdStart = &pipeline.ColdStart{StartMS: cold, MedianMS: cold}
	return nil
}

// profileOf is the profile of c's variant; the heap batch's variants
// (jvm-128m, jvm-256m, jvm-512m) scale G1's with their heap.
func profileOf(p *pipeline.Plan, c *pipeline.Cell) (profile, error) {
	if pr, ok := profiles[c.Variant]; ok {
		return pr, nil
	}
	pr := profiles["jvm-g1"]
	heapMiB := 256.0
	for _, b := range p.Batches {
		for _, v := range b.Variants {
			if b.Name == c.Batch && v.Label == c.Variant {
				if _, err := fmt.Sscanf(v.Knob("heap"), "%fm", &heapMiB); err != nil {
					return pr, fmt.Errorf("heap of %s: %w", c.Name, err)
				}
			}
		}
	}
	pr.rps32 *= 0.8 + 0.2*math.Log2(heapMiB/64)/3
	pr.tail *= 256 / heapMiB
	pr.rssMiB += pr.heapRSSRatio * (heapMiB - 256)
	pr.rssAfterMiB = pr.rssMiB - 4
	return pr, nil
}

// reportLoad draws the load interval by interval (100 ms each, warm-up
// included): the first cell of a start (concurrency 8, payload 128)
// ramps as its profile says, later cells of the same start are warm;
// each interval's latencies scale with 1/throughput (closed loop, Little's
// law). The kept window's load is its intervals merged, as the execute
// stage makes it, and the steady-state analysis is stats/steady's. It
// returns the kept window's request count.
func reportLoad(m *measurement, pr profile, rps, body float64) (int64, error) {
	pt := m.cell.Point
	var ramp []level
	if pt.Concurrency == 8 && pt.Payload != nil && *pt.Payload == 128 {
		ramp = pr.ramp
	}
	whole := newHist()
	for i := range loadIntervals {
		f := at(ramp, interval.Seconds()*float64(i)) * (1 + 0.02*m.rng.NormFloat64())
		h := newHist()
		for range int(rps * f * interval.Seconds()) {
			v := body / f * math.Exp(0.3*m.rng.NormFloat64())
			if m.rng.Float64() < pr.tail {
				v = 2_000 + m.rng.ExpFloat64()*pr.tailMS*1000
			}
			if err := h.RecordValue(max(int64(v), 1)); err != nil {
				return 0, err
			}
		}
		iv, err := intervalOf(i, h)
		if err != nil {
			return 0, err
		}
		iv.RSSBytes = int64(pr.rssMiB*(1<<20)) - int64(30-min(i, 30))<<15
		iv.CPUSeconds = float64(iv.Requests) * pr.cpuPerReqUS / 1e6
		if iv.InWindow {
			whole.Merge(h)
		}
		m.cp.Intervals = append(m.cp.Intervals, iv)
	}
	hist, err := hdrstat.Encode(whole)
	if err != nil {
		return 0, err
	}
	n, keptS := whole.TotalCount(), (measure - discard).Seconds()
	m.cp.Load = &pipeline.Load{
		Mode: pt.Mode, Connections: pt.Concurrency, Requests: n, DurationS: keptS,
		RPS: float64(n) / keptS, Latency: summary(whole), Hist: hist, ResponseBytes: n * 180,
		LoadgenCPUS: 2.1, LoadgenDurationS: (warmup + measure).Seconds(), LoadgenCPUs: 1,
	}
	m.cp.Steady = analyze(m)
	return n, nil
}
