package pipeline

import (
	"fmt"
	"time"
)

// HoldStats is what a connection-holding cell (workload.hold) measured:
// the load generator's account of every step (connections requested,
// established, refused and dropped, heartbeats and their delay) beside
// the target's memory, threads and CPU while it held them, and the step
// at which the target first failed, its breaking point.
type HoldStats struct {
	Protocol string `json:"protocol"`
	// BreakingStep is the index of the first step the target failed (it
	// refused or dropped connections, or missed heartbeats beyond the
	// bound), -1 if it failed none; BreakingConnections is that step's
	// count and BreakingReason why.
	BreakingStep        int    `json:"breaking_step" check:"min=-1"`
	BreakingConnections int    `json:"breaking_connections"`
	BreakingReason      string `json:"breaking_reason,omitempty"`
	// PeriodS is the heartbeat period asked for, MissBoundS how late a
	// heartbeat may be before it counts as missed, OpenRate the
	// connections opened per second.
	PeriodS    float64 `json:"period_s"`
	MissBoundS float64 `json:"miss_bound_s"`
	OpenRate   float64 `json:"open_rate"`
	// SourceAddrs are the loopback addresses the connections came from
	// (none: the kernel's choice).
	SourceAddrs []string `json:"source_addrs,omitempty"`
	// NoFileSoft and NoFileHard are the load generator's descriptor
	// limits once it raised them; NoFileRaised says it did.
	NoFileSoft   uint64 `json:"nofile_soft"`
	NoFileHard   uint64 `json:"nofile_hard"`
	NoFileRaised bool   `json:"nofile_raised"`
	// LoadgenPeakRSSBytes is the load generator's peak resident memory.
	LoadgenPeakRSSBytes int64 `json:"loadgen_peak_rss_bytes"`
	// TargetBaseRSSBytes is the target's resident memory as the load
	// began, before its first connection (-1 without a sample): what
	// each step's memory per connection is counted from.
	TargetBaseRSSBytes int64      `json:"target_base_rss_bytes" check:"min=-1"`
	Steps              []HoldStep `json:"steps"`
}

// Last is the cell's last step with figures; nil with none.
func (h *HoldStats) Last() *HoldStep {
	if len(h.Steps) == 0 {
		return nil
	}
	return &h.Steps[len(h.Steps)-1]
}

// Breaking is the breaking point in words: "none" or the step's
// connections and how it failed.
func (h *HoldStats) Breaking() string {
	if h.BreakingStep < 0 {
		return "none"
	}
	why := h.BreakingReason
	if why == "" && h.BreakingStep < len(h.Steps) {
		why = h.Steps[h.BreakingStep].Failure
	}
	return fmt.Sprintf("%d (%s)", h.BreakingConnections, why)
}

// Words sums the cell up in a line, for progress and summaries: what the
// last step held, the breaking point, the heartbeats' delay and the
// memory per connection there.
func (h *HoldStats) Words() string {
	s := h.Last()
	if s == nil {
		return "no step measured"
	}
	out := fmt.Sprintf("held %d of %d, breaking point %s, heartbeat delay p99 %s", s.Held, s.Connections, h.Breaking(),
		(time.Duration(s.DelayP99US) * time.Microsecond).Round(10*time.Microsecond))
	if b, ok := h.MemoryPerConnection(s); ok {
		out += fmt.Sprintf(", %.1f KiB/connection", b/1024)
	}
	return out
}

// MemoryPerConnection is the target's memory per connection held at
// step s's end, in bytes: its growth since the load began over the
// connections held. False without the samples or with none held.
func (h *HoldStats) MemoryPerConnection(s *HoldStep) (float64, bool) {
	if h.TargetBaseRSSBytes < 0 || s.TargetRSSBytes < 0 || s.Held <= 0 {
		return 0, false
	}
	return float64(s.TargetRSSBytes-h.TargetBaseRSSBytes) / float64(s.Held), true
}

// HoldStep is one step of a hold cell: its connections, what became of
// them, the heartbeats' delay, and what the target used while holding
// them. Times are seconds from the load's start.
type HoldStep struct {
	Index       int     `json:"index"`
	Connections int     `json:"connections"`
	StartS      float64 `json:"start_s"`
	OpenedS     float64 `json:"opened_s"`
	EndS        float64 `json:"end_s"`
	// Complete is false for a step the load's end cut short.
	Complete    bool  `json:"complete"`
	Requested   int64 `json:"requested"`
	Established int64 `json:"established"`
	Refused     int64 `json:"refused"`
	Dropped     int64 `json:"dropped"`
	// Held is how many connections were open at the step's end.
	Held       int64 `json:"held"`
	Heartbeats int64 `json:"heartbeats"`
	Missed     int64 `json:"missed"`
	// The heartbeats' delay past their expected time (upgrade plus
	// sequence times period), coordinated-omission corrected, in
	// microseconds; DelayHist is its HdrHistogram (V2 compressed, base64).
	DelayP50US   int64  `json:"delay_p50_us"`
	DelayP99US   int64  `json:"delay_p99_us"`
	DelayP999US  int64  `json:"delay_p999_us"`
	DelayMaxUS   int64  `json:"delay_max_us"`
	DelayHist    string `json:"delay_hist,omitempty"`
	LatencyP99US int64  `json:"latency_p99_us"`
	// ErrorsByKind counts why connections were refused or dropped.
	ErrorsByKind map[string]int64 `json:"errors_by_kind,omitempty"`
	// Failure is how the target failed this step ("refused", "dropped",
	// "missed_heartbeats"), "" if it did not.
	Failure string `json:"failure,omitempty"`
	// The target's resident memory and threads at the step's end (the last
	// sample before it; -1 without one), and its CPU time during the step
	// (-1 without two samples in it).
	TargetRSSBytes   int64   `json:"target_rss_bytes" check:"min=-1"`
	TargetThreads    int     `json:"target_threads" check:"min=-1"`
	TargetCPUSeconds float64 `json:"target_cpu_s" check:"min=-1"`
	// The load generator's resident memory at the step's end and its CPU
	// time during the step.
	LoadgenRSSBytes   int64   `json:"loadgen_rss_bytes"`
	LoadgenCPUSeconds float64 `json:"loadgen_cpu_s"`
}

// CPUPerThousand is the target's CPU use per 1,000 connections held,
// in CPU seconds per second of the step; false without the figures.
func (s *HoldStep) CPUPerThousand() (float64, bool) {
	d := s.EndS - s.StartS
	if s.TargetCPUSeconds < 0 || s.Held <= 0 || !(d > 0) {
		return 0, false
	}
	return s.TargetCPUSeconds / d / float64(s.Held) * 1000, true
}
