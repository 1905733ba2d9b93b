package execute

import (
	"testing"
	"time"

	"yardstick/loadgen"
	"yardstick/pipeline"
)

// TestHoldStats: each step gets the target's memory and threads from the
// last sample before its end and its CPU time between the samples that
// bracket it; memory per connection counts from the sample as the load
// began; a step without samples says so (-1) instead of a zero.
func TestHoldStats(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	samples := []pipeline.Sample{
		{Time: at(0), RSSBytes: 10 << 20, CPUUserSeconds: 1, Threads: 6},
		{Time: at(1.9), RSSBytes: 12 << 20, CPUUserSeconds: 1.2, Threads: 6},
		{Time: at(3.9), RSSBytes: 20 << 20, CPUUserSeconds: 1.5, CPUSysSeconds: 0.2, Threads: 8},
	}
	res := &loadgen.HoldResult{Protocol: "websocket", BreakingStep: 1, BreakingConnections: 2000, BreakingReason: "refused",
		Steps: []loadgen.HoldStep{
			{Index: 0, Connections: 1000, StartS: 0, EndS: 2, Held: 1000, Heartbeats: 10, Delay: loadgen.LatencyUS{P99: 900}},
			{Index: 1, Connections: 2000, StartS: 2, EndS: 4, Held: 1500, Refused: 500, Failure: "refused"},
			{Index: 2, Connections: 3000, StartS: 4, EndS: 6},
		}}
	h := holdStats(res, samples, t0)
	if len(h.Steps) != 3 || h.TargetBaseRSSBytes != 10<<20 {
		t.Fatalf("steps %d, base %d", len(h.Steps), h.TargetBaseRSSBytes)
	}
	s0, s1, s2 := h.Steps[0], h.Steps[1], h.Steps[2]
	if s0.TargetRSSBytes != 12<<20 || s0.TargetThreads != 6 || !near(s0.TargetCPUSeconds, 0.2) || s0.DelayP99US != 900 {
		t.Errorf("step 0: %+v", s0)
	}
	if s1.TargetRSSBytes != 20<<20 || s1.TargetThreads != 8 || !near(s1.TargetCPUSeconds, 0.5) {
		t.Errorf("step 1: %+v", s1)
	}
	if b, ok := h.MemoryPerConnection(&s1); !ok || !near(b, float64(10<<20)/1500) {
		t.Errorf("memory per connection at step 1: %v %v", b, ok)
	}
	if s2.TargetCPUSeconds != -1 {
		t.Errorf("step 2 has one sample bracketing it, CPU %v, want -1", s2.TargetCPUSeconds)
	}
	if got := h.Breaking(); got != "2000 (refused)" {
		t.Errorf("breaking: %q", got)
	}
	if h.Words() == "" {
		t.Error("no words")
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
