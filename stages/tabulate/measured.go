package tabulate

import (
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/datasets"
	"yardstick/pipeline"
	"yardstick/stats/hdrstat"
)

// measured fills the cells columns that come from the checkpoint and
// returns the cell's histogram row (nil without a histogram) with its
// distribution.
func measured(r *datasets.Cell, cp *pipeline.Checkpoint) (*hdrstat.Dist, *datasets.Histogram, []string, error) {
	r.Status = cp.Status
	r.Error = nonEmpty(cp.Error)
	r.Start = nonEmpty(cp.Start)
	r.Started = timeOrNil(cp.Started)
	r.Ended = timeOrNil(cp.Ended)
	if w := cp.Window; w != nil {
		windowColumns(r, w)
	}
	if st := cp.Steady; st != nil {
		steadyColumns(r, st)
	}
	var d *hdrstat.Dist
	var hist *datasets.Histogram
	var warns []string
	if l := cp.Load; l != nil {
		var err error
		if d, hist, warns, err = loadColumns(r, l); err != nil {
			return nil, nil, nil, err
		}
	}
	if t := cp.Target; t != nil {
		targetColumns(r, t)
	}
	if h := cp.Hold; h != nil {
		holdColumns(r, h) // holds.go
	}
	if g := cp.GC; g != nil {
		gcColumns(r, g)
	}
	if g := cp.Cgroup; g != nil {
		cgroupColumns(r, g) // limits.go
	}
	if v := cp.ContainerView; v != nil {
		viewColumns(r, v)
	}
	if o := cp.Others; o != nil {
		r.OthersCPUUS = ptr(micros(o.OtherS()))
		r.OthersCPUShare = ptr(o.Share())
	}
	if o := cp.LoadgenOthers; o != nil {
		r.LoadgenOthersCPUUS = ptr(micros(o.OtherS()))
		r.LoadgenOthersCPUShare = ptr(o.Share())
	}
	if a := cp.AccessLog; a != nil {
		r.LogBytes = ptr(a.Bytes)
		r.LogBytesPerRequest = ptr(a.BytesPerRequest)
	}
	if c := cp.ColdStart; c != nil {
		r.ColdStartUS = ptr(micros(c.MedianMS / 1e3))
		r.ColdStartFirstUS = ptr(micros(c.StartMS / 1e3))
	}
	return d, hist, warns, nil
}

// windowColumns are the cell's windows and their times.
func windowColumns(r *datasets.Cell, w *pipeline.Window) {
	r.WarmupUS = ptr(w.Warmup.Microseconds())
	r.MeasureUS = ptr(w.Measure.Microseconds())
	r.DiscardHeadUS = ptr(w.DiscardHead.Microseconds())
	if w.Interval > 0 {
		r.LoadIntervalUS = ptr(w.Interval.Microseconds())
	}
	r.WarmupAuto, r.WarmupCapped = ptr(w.Auto), ptr(w.WarmupCapped)
	r.LoadStart = timeOrNil(w.LoadStart)
	r.KeptStart = timeOrNil(w.KeptStart)
	r.KeptEnd = timeOrNil(w.KeptEnd)
}

// steadyColumns are the changepoint analysis and the measured noise.
func steadyColumns(r *datasets.Cell, st *pipeline.Steady) {
	if st.Error != "" {
		r.SteadyError = ptr(st.Error)
		return
	}
	t, p := st.Throughput, st.P99
	r.SteadyClass, r.P99Class = ptr(t.Class), ptr(p.Class)
	if st.StartUS >= 0 {
		r.SteadyStartUS = ptr(st.StartUS)
	}
	r.Changepoints, r.P99Changepoints = ptr(int64(len(t.Changepoints))), ptr(int64(len(p.Changepoints)))
	r.KeptChange, r.P99KeptChange = ptr(t.KeptChange), ptr(p.KeptChange)
	r.KeptSteady, r.P99KeptSteady = ptr(t.KeptSteady), ptr(p.KeptSteady)
	if st.Noise.RPS >= 0 {
		r.NoiseRPS = ptr(st.Noise.RPS)
	}
	if st.Noise.P99 >= 0 {
		r.NoiseP99 = ptr(st.Noise.P99)
	}
}

// loadColumns are the load generator's figures: throughput, latency (from
// the histogram, else from the load generator's own summary), response
// bytes and the load generator's own cost.
func loadColumns(r *datasets.Cell, l *pipeline.Load) (*hdrstat.Dist, *datasets.Histogram, []string, error) {
	r.Requests = ptr(l.Requests)
	r.Errors = ptr(l.Errors)
	r.RPS = ptr(l.RPS)
	r.KeptDurationUS = ptr(micros(l.DurationS))
	if l.Connections > 0 {
		r.Connections = ptr(int64(l.Connections))
	}
	if l.RateTarget > 0 {
		r.RateTarget = ptr(l.RateTarget)
	}
	var d *hdrstat.Dist
	var hist *datasets.Histogram
	var warns []string
	switch {
	case l.Hist != "":
		var err error
		if d, hist, warns, err = histogramColumns(r, l); err != nil {
			return nil, nil, nil, err
		}
	case l.Requests > 0:
		// No histogram: publish the load generator's own summary.
		summaryLatency(r, l.Latency)
		warns = append(warns, fmt.Sprintf("cell %s: no histogram in the checkpoint; no tail counts or spectrum", r.CellID))
	}
	r.ResponseBytes = ptr(l.ResponseBytes)
	if l.Requests > 0 {
		r.ResponseBytesPerRequest = ptr(float64(l.ResponseBytes) / float64(l.Requests))
	}
	loadgenColumns(r, l)
	return d, hist, warns, nil
}

// histogramColumns decodes the kept window's histogram into the latency
// and tail columns, and returns its histograms row.
func histogramColumns(r *datasets.Cell, l *pipeline.Load) (*hdrstat.Dist, *datasets.Histogram, []string, error) {
	h, err := hdrstat.Decode(l.Hist)
	if err != nil {
		return nil, nil, nil, err
	}
	d := hdrstat.NewDist(h)
	hist := &datasets.Histogram{
		CellID:              r.CellID,
		Unit:                "us",
		TotalCount:          h.TotalCount(),
		MinUS:               d.Min(),
		MaxUS:               d.Max(),
		LowestDiscernibleUS: h.LowestTrackableValue(),
		HighestTrackableUS:  h.HighestTrackableValue(),
		SignificantDigits:   h.SignificantFigures(),
		Hist:                l.Hist,
	}
	if d.TotalCount() == 0 {
		return d, hist, nil, nil
	}
	latencyColumns(r, h, d)
	var warns []string
	if l.Latency.P99 != 0 && l.Latency.P99 != *r.LatencyP99US {
		warns = append(warns, fmt.Sprintf("cell %s: the checkpoint's p99 is %d us, its histogram's %d us; the tables use the histogram's",
			r.CellID, l.Latency.P99, *r.LatencyP99US))
	}
	return d, hist, warns, nil
}

// latencyColumns are the percentiles and tails of a non-empty histogram.
func latencyColumns(r *datasets.Cell, h *hdrhistogram.Histogram, d *hdrstat.Dist) {
	r.LatencyMeanUS = ptr(h.Mean())
	r.LatencyP50US = ptr(d.Percentile(50))
	r.LatencyP90US = ptr(d.Percentile(90))
	r.LatencyP99US = ptr(d.Percentile(99))
	r.LatencyP999US = ptr(d.Percentile(99.9))
	r.LatencyP9999US = ptr(d.Percentile(99.99))
	r.LatencyMaxUS = ptr(d.Max())
	r.LatencyMinUS = ptr(d.Min())
	for i, t := range datasets.TailThresholdsUS {
		n := d.Over(t)
		r.Tails[i] = datasets.Tail{Count: ptr(n), Share: ptr(float64(n) / float64(d.TotalCount()))}
	}
}

// summaryLatency are the latency columns from the load generator's own
// summary, for a checkpoint without a histogram.
func summaryLatency(r *datasets.Cell, lat pipeline.LatencyUS) {
	r.LatencyMeanUS = ptr(lat.Mean)
	r.LatencyP50US, r.LatencyP90US, r.LatencyP99US = ptr(lat.P50), ptr(lat.P90), ptr(lat.P99)
	r.LatencyP999US, r.LatencyP9999US = ptr(lat.P999), ptr(lat.P9999)
	r.LatencyMaxUS, r.LatencyMinUS = ptr(lat.Max), ptr(lat.Min)
}

// loadgenColumns are the load generator's own cost and send counts.
func loadgenColumns(r *datasets.Cell, l *pipeline.Load) {
	r.LoadgenCPUUS = ptr(micros(l.LoadgenCPUS))
	r.LoadgenDurationUS = ptr(micros(l.LoadgenDurationS))
	if l.LoadgenCPUs > 0 {
		r.LoadgenCPUs = ptr(int64(l.LoadgenCPUs))
		if l.LoadgenDurationS > 0 {
			r.LoadgenCPUShare = ptr(l.LoadgenCPUS / (l.LoadgenDurationS * float64(l.LoadgenCPUs)))
		}
	}
	r.Sends = ptr(l.Sends)
	r.LateSends = ptr(l.LateSends)
}

// targetColumns are the target's memory, CPU and thread figures.
func targetColumns(r *datasets.Cell, t *pipeline.TargetStats) {
	r.RSSSteadyBytes = ptr(t.RSSSteadyBytes)
	r.RSSPeakBytes = ptr(t.RSSPeakBytes)
	r.RSSAfterBytes = ptr(t.RSSAfterBytes)
	r.TargetCPUUS = ptr(micros(t.CPUSeconds))
	r.CPUPerRequestUS = ptr(t.CPUPerRequestUS)
	r.Threads = ptr(int64(t.Threads))
	if t.EventLoopThreads >= 0 {
		r.EventLoopThreads = ptr(int64(t.EventLoopThreads))
	}
}

// gcColumns are the GC log's figures over the kept window.
func gcColumns(r *datasets.Cell, g *pipeline.GCStats) {
	r.GCSource = nonEmpty(g.Source)
	r.GCCount = ptr(int64(g.Count))
	r.GCPauseTotalUS = ptr(g.PauseTotalUS)
	r.GCPauseMaxUS = ptr(g.PauseMaxUS)
	r.GCCountBefore = ptr(int64(g.CountBefore))
	r.GCCountAfter = ptr(int64(g.CountAfter))
}
