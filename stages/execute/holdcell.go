package execute

import (
	"fmt"
	"time"

	"yardstick/loadgen"
	"yardstick/pipeline"
)

// This file runs a connection-holding cell (workload.hold). It takes the
// same phases as a request cell (cellRun), with a hold spec: the load
// generator opens the steps' connections and holds them while the
// sampler reads the target's /proc, the whole load is the kept window
// (no warm-up: what is measured is what holding costs from the first
// connection), and the checkpoint gets the steps (pipeline.HoldStats),
// each with the target's memory, threads and CPU beside the load
// generator's account of it, instead of request figures.

// holdSlack is how much longer than its steps a hold load may run
// before the load generator cuts it short: the last handshakes and the
// final read.
const holdSlack = 15 * time.Second

// holdSpec is the load generator's spec for a hold cell: the upgrade's
// URL (the request path), the steps, and a bound a little beyond their
// length.
func holdSpec(s loadgen.Spec, h *pipeline.Hold) loadgen.Spec {
	s.Hold = &loadgen.Hold{
		Protocol: h.Protocol, Steps: h.Steps, OpenRate: h.OpenRate, StepHold: loadgen.Duration(h.StepHold.D()),
		Period: loadgen.Duration(h.Heartbeat.D()), MissBound: loadgen.Duration(h.MissBound.D()), SourceAddrs: h.SourceAddrs,
	}
	s.Duration = loadgen.Duration(h.Length() + holdSlack)
	s.Method, s.Body, s.Payload, s.VaryMin, s.VaryMax = "", "", 0, 0, 0
	return s
}

// warmupHold is the service warm-up of a hold batch: the first step's
// connections (at most 100) opened and held for the warm-up, so that a
// JIT has compiled the upgrade and the push before the measured start.
func warmupHold(s loadgen.Spec, d time.Duration) loadgen.Spec {
	h := *s.Hold
	h.Steps = []int{min(h.Steps[0], 100)}
	h.StepHold = loadgen.Duration(d)
	s.Hold = &h
	s.Duration = loadgen.Duration(d + holdSlack)
	return s
}

// holdWindow makes the whole load the kept window (prepare sized the
// sampler for the steps' length).
func (c *cellRun) holdWindow() {
	c.hold = true
	c.keptFrom, c.keptTo = 0, -1
}

// fillHold puts a hold cell's figures into the checkpoint: its steps,
// the target's samples over the whole load and its figures over it.
func (c *cellRun) fillHold() error {
	if c.res == nil || c.res.Hold == nil {
		return fmt.Errorf("the load generator's result has no hold part")
	}
	cp := c.cp
	cp.Samples = toSamples(c.sampler.Samples(), c.kept.at, c.end.at)
	cp.Hold = holdStats(c.res.Hold, cp.Samples, cp.Window.LoadStart)
	cp.Target = c.targetStats(0)
	if s := cp.Hold.Last(); s != nil && s.TargetThreads >= 0 {
		cp.Target.Threads = s.TargetThreads // no kept-window start to count them at: the last step's
	}
	c.fillAround()
	return nil
}

// assessHold fails a hold cell that held nothing at all: the target never
// upgraded a connection, so there is no step to measure. A target that
// refuses, drops or exits part way is not a failed cell but a breaking
// point, and the steps say so.
func (c *cellRun) assessHold() error {
	h := c.cp.Hold
	for _, s := range h.Steps {
		if s.Established > 0 {
			return nil
		}
	}
	why := "no connection was upgraded"
	if h.BreakingReason != "" {
		why += " (" + h.BreakingReason + ")"
	}
	if c.t.p.Exited() {
		why += fmt.Sprintf("; the target exited (%s); stderr: %s", c.t.p.ExitStatus(), c.t.stderrTail())
	}
	return fmt.Errorf("%s", why)
}

// holdStats joins the load generator's steps with the target's samples:
// for each step, the last sample before its end (memory, threads) and
// the CPU time between the samples that bracket it.
func holdStats(r *loadgen.HoldResult, samples []pipeline.Sample, start time.Time) *pipeline.HoldStats {
	hs := &pipeline.HoldStats{
		Protocol: r.Protocol, BreakingStep: r.BreakingStep, BreakingConnections: r.BreakingConnections, BreakingReason: r.BreakingReason,
		PeriodS: r.PeriodS, MissBoundS: r.MissBoundS, OpenRate: r.OpenRate, SourceAddrs: r.SourceAddrs,
		NoFileSoft: r.NoFile.Soft, NoFileHard: r.NoFile.Hard, NoFileRaised: r.NoFile.Raised, LoadgenPeakRSSBytes: r.PeakRSSBytes,
		TargetBaseRSSBytes: -1,
	}
	if len(samples) > 0 && !samples[0].Time.After(start.Add(time.Second)) {
		hs.TargetBaseRSSBytes = samples[0].RSSBytes
	}
	at := func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }
	for _, st := range r.Steps {
		from, to := at(st.StartS), at(st.EndS)
		hs.Steps = append(hs.Steps, pipeline.HoldStep{
			Index: st.Index, Connections: st.Connections, StartS: st.StartS, OpenedS: st.OpenedS, EndS: st.EndS, Complete: st.Complete,
			Requested: st.Requested, Established: st.Established, Refused: st.Refused, Dropped: st.Dropped, Held: st.Held,
			Heartbeats: st.Heartbeats, Missed: st.Missed,
			DelayP50US: st.Delay.P50, DelayP99US: st.Delay.P99, DelayP999US: st.Delay.P999, DelayMaxUS: st.Delay.Max, DelayHist: st.DelayHist,
			LatencyP99US: st.Latency.P99, ErrorsByKind: st.ErrorsByKind, Failure: st.Failure,
			TargetRSSBytes: -1, TargetThreads: -1, TargetCPUSeconds: sampledCPU(samples, from, to),
			LoadgenRSSBytes: st.RSSBytes, LoadgenCPUSeconds: st.CPUS,
		})
		if s, ok := lastBefore(samples, to); ok {
			last := &hs.Steps[len(hs.Steps)-1]
			last.TargetRSSBytes, last.TargetThreads = s.RSSBytes, s.Threads
		}
	}
	return hs
}

// lastBefore is the last sample taken at or before t.
func lastBefore(samples []pipeline.Sample, t time.Time) (pipeline.Sample, bool) {
	var out pipeline.Sample
	ok := false
	for _, s := range samples {
		if s.Time.After(t) {
			break
		}
		out, ok = s, true
	}
	return out, ok
}

// sampledCPU is the target's CPU time between from and to: the
// difference between the last sample at or before from (the first one
// after it, if none) and the last one at or before to; -1 without two
// such samples.
func sampledCPU(samples []pipeline.Sample, from, to time.Time) float64 {
	a, ok := lastBefore(samples, from)
	if !ok {
		for _, s := range samples {
			if !s.Time.Before(from) {
				a, ok = s, true
				break
			}
		}
	}
	b, okB := lastBefore(samples, to)
	if !ok || !okB || !b.Time.After(a.Time) {
		return -1
	}
	return max(0, (b.CPUUserSeconds+b.CPUSysSeconds)-(a.CPUUserSeconds+a.CPUSysSeconds))
}
