package synthrun

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/pipeline"
	"yardstick/stats/hdrstat"
	"yardstick/stats/steady"
)

// interval is the fixtures' load reporting interval, the load
// generator's default.
const interval = 100 * time.Millisecond

// loadIntervals is the number of intervals of a fixture cell's load
// (warm-up and measure); the kept window is from keptFrom on.
const (
	loadIntervals = int((warmup + measure) / interval)
	keptFrom      = int((warmup + discard) / interval)
)

// intervalOf is interval i of a load, its figures from its histogram h
// (requests, p50, p99, max, the encoded histogram); sampled, RSS and CPU
// are the caller's.
func intervalOf(i int, h *hdrhistogram.Histogram) (pipeline.Interval, error) {
	iv := pipeline.Interval{
		Index: i, StartUS: int64(i) * interval.Microseconds(), DurationUS: interval.Microseconds(),
		InWindow: i >= keptFrom, Requests: h.TotalCount(), Sampled: true,
	}
	if iv.Requests == 0 {
		return iv, nil
	}
	d := hdrstat.NewDist(h)
	iv.P50US, iv.P99US, iv.MaxUS = d.Percentile(50), d.Percentile(99), d.Max()
	enc, err := hdrstat.Encode(h)
	iv.Hist = enc
	return iv, err
}

// analyze is the steady-state analysis of the cell's intervals, as the
// execute stage makes it (stats/steady with the batch's noise band),
// seeded by the cell's sequence number.
func analyze(m *measurement) *pipeline.Steady {
	band := 0.0
	for _, b := range m.plan.Batches {
		if b.Name == m.cell.Batch {
			band = b.Fairness.Noise
		}
	}
	s, err := steady.Analyze(steady.Input{Intervals: m.cp.Intervals, KeptFrom: keptFrom, KeptTo: len(m.cp.Intervals), Band: band, Seed: uint64(m.cell.Seq) + 1})
	if err != nil {
		return &pipeline.Steady{Error: err.Error(), StartUS: -1}
	}
	return &s
}
