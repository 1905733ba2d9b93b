package loadgen

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// HoldErrorKind says why a held connection ended, or never opened.
type HoldErrorKind uint8

// The kinds, in the order they appear in results. Local is the load
// generator's own shortage (descriptors, ports, memory), never the
// target's failure; every other kind is the target's.
const (
	HoldErrConnect          HoldErrorKind = iota // the TCP connect failed (refused, reset, unreachable)
	HoldErrLocal                                 // the load generator ran out of descriptors, ports or memory
	HoldErrHandshake                             // the upgrade response was not a valid 101, or could not be sent
	HoldErrHandshakeTimeout                      // no 101 within the handshake timeout
	HoldErrClosed                                // the server closed or reset the TCP connection without a close frame
	HoldErrRead                                  // a read failed otherwise
	HoldErrCloseFrame                            // the server sent a close frame
	HoldErrProtocol                              // a frame broke RFC 6455
	HoldErrOversized                             // a frame longer than Hold.MaxFrame
	HoldErrHeartbeat                             // a data frame that is not the next heartbeat "SEQ SENT_NS"
	HoldErrWrite                                 // a pong or close could not be written whole at once (the server stopped reading)
	numHoldErrorKinds
)

var holdErrorNames = [numHoldErrorKinds]string{"connect", "local", "handshake", "handshake_timeout", "closed", "read", "close_frame", "protocol", "oversized", "heartbeat", "write"}

// String is the kind's name in results.
func (k HoldErrorKind) String() string {
	if k < numHoldErrorKinds {
		return holdErrorNames[k]
	}
	return "unknown"
}

// holdTally is what one worker recorded over one interval or one step.
type holdTally struct {
	index    int
	isStep   bool
	final    bool
	duration int64

	requested, established, refused, dropped int64
	heartbeats, missed                       int64
	open                                     int64 // the worker's upgraded connections at hand-off
	errs                                     [numHoldErrorKinds]int64
	delay                                    *hdrhistogram.Histogram // from the expected time, us
	latency                                  *hdrhistogram.Histogram // from SENT_NS, us
}

func newHoldTally() *holdTally { return &holdTally{delay: newHist(), latency: newHist()} }

func (t *holdTally) clear() {
	d, l := t.delay, t.latency
	d.Reset()
	l.Reset()
	*t = holdTally{delay: d, latency: l}
}

func clampUS(ns int64) int64 { return min(max(ns/1000, histMin), histMax) }

// heartbeat records one received heartbeat; late says it was later than
// the miss bound.
func (t *holdTally) heartbeat(delay, latency int64, late bool) {
	_ = t.delay.RecordValue(clampUS(delay))
	_ = t.latency.RecordValue(clampUS(latency))
	t.heartbeats++
	if late {
		t.missed++
	}
}

// add merges o into t (counts and histograms; open is summed, as the
// workers' shares of one moment).
func (t *holdTally) add(o *holdTally) {
	t.delay.Merge(o.delay)
	t.latency.Merge(o.latency)
	t.requested += o.requested
	t.established += o.established
	t.refused += o.refused
	t.dropped += o.dropped
	t.heartbeats += o.heartbeats
	t.missed += o.missed
	t.open += o.open
	for i := range t.errs {
		t.errs[i] += o.errs[i]
	}
	t.duration = max(t.duration, o.duration)
}

func (t *holdTally) errorsByKind() map[string]int64 {
	m := make(map[string]int64, numHoldErrorKinds)
	for k := HoldErrorKind(0); k < numHoldErrorKinds; k++ {
		m[k.String()] = t.errs[k]
	}
	return m
}

// targetFailure returns why the target failed in t: the first of
// refusals, drops and missed heartbeats, "" if none. The load generator's
// own shortages do not count.
func (t *holdTally) targetFailure() string {
	refused := t.refused
	local := t.errs[HoldErrLocal]
	switch {
	case refused > local:
		return "refused"
	case t.dropped > 0:
		return "dropped"
	case t.missed > 0:
		return "missed_heartbeats"
	}
	return ""
}

// HoldCounts is what an interval of a hold run measured (Interval.Hold).
type HoldCounts struct {
	// Step is the step the interval's start falls in.
	Step        int   `json:"step"`
	Requested   int64 `json:"requested"`
	Established int64 `json:"established"`
	Refused     int64 `json:"refused"`
	Dropped     int64 `json:"dropped"`
	// Open is how many connections were upgraded and held at the
	// interval's end.
	Open       int64 `json:"open"`
	Heartbeats int64 `json:"heartbeats"`
	Missed     int64 `json:"missed"`
	// DelayP50us, DelayP99us and DelayMaxus summarise the heartbeats'
	// delay from their expected time; Interval.Hist holds its histogram.
	DelayP50us int64 `json:"delay_p50_us"`
	DelayP99us int64 `json:"delay_p99_us"`
	DelayMaxus int64 `json:"delay_max_us"`
	// LatencyP99us is the 99th percentile of receive time minus SENT_NS.
	LatencyP99us int64 `json:"latency_p99_us"`
	// ErrorsByKind counts why connections were refused or dropped.
	ErrorsByKind map[string]int64 `json:"errors_by_kind"`
	// RSSBytes and CPUS are the load generator's own resident memory and
	// CPU time since the run's start, read when the interval was emitted.
	RSSBytes int64   `json:"rss_bytes"`
	CPUS     float64 `json:"cpu_s"`
}

// HoldStep is what one step of a hold run measured, over its whole
// window: from its first connection's due time to the end of its hold.
type HoldStep struct {
	Index int `json:"index"`
	// Connections is the step's target count.
	Connections int     `json:"connections"`
	StartS      float64 `json:"start_s"`
	OpenedS     float64 `json:"opened_s"` // when its last connection was due
	EndS        float64 `json:"end_s"`
	// Complete is false for a step the run's end or a stop cut short.
	Complete    bool  `json:"complete"`
	Requested   int64 `json:"requested"`
	Established int64 `json:"established"`
	Refused     int64 `json:"refused"`
	Dropped     int64 `json:"dropped"`
	// Held is how many connections were open at the step's end.
	Held       int64 `json:"held"`
	Heartbeats int64 `json:"heartbeats"`
	Missed     int64 `json:"missed"`
	// Delay is the heartbeats' delay from their expected time (upgrade +
	// SEQ*period) in microseconds, DelayHist its histogram (HdrHistogram
	// V2 compressed, base64); Latency is receive time minus SENT_NS.
	Delay        LatencyUS        `json:"delay_us"`
	DelayHist    string           `json:"delay_hist"`
	Latency      LatencyUS        `json:"latency_us"`
	ErrorsByKind map[string]int64 `json:"errors_by_kind"`
	// Failure is why the target failed this step ("refused", "dropped",
	// "missed_heartbeats"), "" if it did not.
	Failure string `json:"failure,omitempty"`
	// RSSBytes is the load generator's resident memory at the step's end;
	// CPUS, CPUUserS and CPUSysS its CPU time during the step.
	RSSBytes int64   `json:"rss_bytes"`
	CPUS     float64 `json:"cpu_s"`
	CPUUserS float64 `json:"cpu_user_s"`
	CPUSysS  float64 `json:"cpu_sys_s"`
}

// HoldResult is the hold part of a Result (Result.Hold).
type HoldResult struct {
	Protocol string     `json:"protocol"`
	Steps    []HoldStep `json:"steps"`
	// BreakingStep is the index of the first step in which the target
	// failed, -1 if it failed none; BreakingConnections is that step's
	// count (0 if none).
	BreakingStep        int     `json:"breaking_step"`
	BreakingConnections int     `json:"breaking_connections"`
	BreakingReason      string  `json:"breaking_reason,omitempty"`
	PeriodS             float64 `json:"period_s"`
	MissBoundS          float64 `json:"miss_bound_s"`
	OpenRate            float64 `json:"open_rate"`
	MaxFrame            int     `json:"max_frame"`
	// SourceAddrs are the source addresses the connections came from (none:
	// the kernel's choice).
	SourceAddrs []string `json:"source_addrs"`
	NoFile      NoFile   `json:"nofile"`
	// PeakRSSBytes is the load generator's peak resident memory (VmHWM).
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
}

func secs(ns int64) float64 { return time.Duration(ns).Seconds() }
