package pipeline

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"yardstick/pipeline/cpuset"
)

// The settings a batch's cells share, as the plan (plan.json) records them.
// These are yardstick's own types: the schema package converts the
// evaluated CUE definition into them in one place, so the lock format does
// not depend on how the definition language spells its fields. Their JSON
// names are part of the plan format and of the canonical form that cell ids
// are hashed from: changing one changes every cell id.

// Duration is a time.Duration written in JSON as a Go duration string
// ("20s"). It marshals in Go's canonical form, so "20000ms" and "20s" are
// the same duration in a plan.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String formats d in Go's canonical form.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	v, err := ParseDurationJSON(b)
	*d = Duration(v)
	return err
}

// ParseDurationJSON reads a JSON string holding a Go duration ("20s"),
// which must not be negative.
func ParseDurationJSON(b []byte) (time.Duration, error) {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return 0, fmt.Errorf("duration: want a string such as \"20s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("duration %q: %w", s, err)
	}
	if v < 0 {
		return 0, fmt.Errorf("duration %q: negative", s)
	}
	return v, nil
}

// Windows are the phases of a target's life in a batch.
type Windows struct {
	// ServiceWarmup runs after the batch's services are ready, before any
	// target starts.
	ServiceWarmup Duration `json:"serviceWarmup"`
	// Warmup is load before the measure window, not measured. With
	// WarmupAuto it is 0: the warm-up lasts until the cell's throughput
	// has been steady for SteadyFor, at most WarmupMax.
	Warmup     Duration `json:"warmup"`
	WarmupAuto bool     `json:"warmupAuto,omitempty"`
	WarmupMax  Duration `json:"warmupMax,omitempty"`
	SteadyFor  Duration `json:"steadyFor,omitempty"`
	// Measure is the measured load; its first DiscardHead is dropped.
	// With MeasureAuto it is the first round's window (FirstMeasure), and
	// each later round's is chosen from the batch's starts so far, between
	// MeasureMin and MeasureMax (runner: the cost-optimal window).
	Measure      Duration `json:"measure"`
	MeasureAuto  bool     `json:"measureAuto,omitempty"`
	MeasureMin   Duration `json:"measureMin,omitempty"`
	MeasureMax   Duration `json:"measureMax,omitempty"`
	DiscardHead  Duration `json:"discardHead"`
	ReadyTimeout Duration `json:"readyTimeout"`
}

// Placement holds the CPU sets of the target, the services and the load
// generator, and whether the load generator runs on another host. A set is
// written in its compact form ("0-1,4", cpuset.Set.MarshalText) however
// the definition spelled it, so "0,1" and "0-1" are one placement and give
// one cell id.
type Placement struct {
	Target   cpuset.Set `json:"target"`
	Services cpuset.Set `json:"services,omitempty"`
	Loadgen  cpuset.Set `json:"loadgen"`
	// Hosts is HostsSeparate when the load generator runs on another host
	// than the target (and its services); empty when on the same host.
	Hosts string `json:"hosts,omitempty"`
	// Share declares the roles allowed to share CPUs on a machine too small
	// for disjoint sets (share.go); empty: every set is disjoint.
	Share []Share `json:"share,omitempty"`
}

// HostsSeparate is Placement.Hosts of a two-host batch.
const HostsSeparate = "separate"

// TwoHost reports whether the load generator runs on another host.
func (p Placement) TwoHost() bool { return p.Hosts == HostsSeparate }

// Fairness holds a batch's declared fairness constraints.
type Fairness struct {
	// EventLoops is the number of event-loop threads every variant must
	// run with; 0 when not declared.
	EventLoops              int        `json:"eventLoops,omitempty"`
	LogBytesPerRequest      *Tolerance `json:"logBytesPerRequest,omitempty"`
	ResponseBytesPerRequest *Tolerance `json:"responseBytesPerRequest,omitempty"`
	// Noise is the declared margin (fairness.margin, or its older name
	// fairness.noise): the smallest relative difference that matters.
	// Comparisons are decided against it; it says nothing of the
	// machine's measured noise. The plan keeps the key "noise", so that
	// plans and cell ids of earlier runs stay as they were.
	Noise float64 `json:"noise"`
	// Margins are the margins declared per metric (fairness.margin as
	// {throughput: 0.05, latency_p99: 0.15}), by the comparisons table's
	// metric names; a metric not in it takes Noise. Tails need more
	// starts than throughput for the same margin, so a batch may accept
	// a wider one for them.
	Margins map[string]float64 `json:"margins,omitempty"`
	// Rule is how a difference is claimed: RuleDifference (also "") or
	// RuleBeyondMargin. Empty unless declared, so that plans and cell ids
	// of earlier runs stay as they were.
	Rule string `json:"rule,omitempty"`
}

// The rules of a claimed difference (fairness.rule).
const (
	// RuleDifference, the default: better or worse when the interval
	// excludes no difference and the ratio lies beyond the margin.
	RuleDifference = "difference"
	// RuleBeyondMargin: better or worse only when the whole interval lies
	// beyond the margin.
	RuleBeyondMargin = "beyond-margin"
)

// MarginOf is the margin of the compared metric called name: its own,
// or the batch's.
func (f Fairness) MarginOf(name string) float64 {
	if m, ok := f.Margins[name]; ok {
		return m
	}
	return f.Noise
}

// DefaultMargin is the margin of a batch that declares none.
const DefaultMargin = 0.05

// Tolerance is a relative tolerance (0.15 = 15%).
type Tolerance struct {
	Tolerance float64 `json:"tolerance"`
}

// String is the windows in words, as plan and validate print them.
func (w Windows) String() string {
	warmup := w.Warmup.String()
	if w.WarmupAuto {
		warmup = fmt.Sprintf("auto (until steady for %s, at most %s)", w.SteadyFor, w.WarmupMax)
	}
	measure := w.Measure.String()
	if w.MeasureAuto {
		measure = fmt.Sprintf("auto (cost-optimal from the batch's own starts, %s to %s; %s until the starts say)", w.MeasureMin, w.MeasureMax, w.Measure)
	}
	return fmt.Sprintf("service warm-up %s, warm-up %s, measure %s, discard head %s, ready timeout %s",
		w.ServiceWarmup, warmup, measure, w.DiscardHead, w.ReadyTimeout)
}

// FirstMeasure is an automatic window's length before the starts say
// anything: the geometric mean of MeasureMin and MeasureMax, to 100 ms.
func (w Windows) FirstMeasure() Duration {
	g := math.Sqrt(float64(w.MeasureMin) * float64(w.MeasureMax))
	return Duration(time.Duration(math.Round(g/1e8)) * 100 * time.Millisecond)
}

// MaxWarmup is the longest warm-up a cell may take: Warmup, or WarmupMax
// when adaptive.
func (w Windows) MaxWarmup() time.Duration {
	if w.WarmupAuto {
		return w.WarmupMax.D()
	}
	return w.Warmup.D()
}

// DefaultLoadInterval is the load generator's reporting interval when a
// batch does not set one.
const DefaultLoadInterval = 100 * time.Millisecond

// Sampling says how the target's /proc is sampled (Interval) and how
// often the load generator reports (LoadInterval; 0 means
// DefaultLoadInterval).
type Sampling struct {
	Interval     Duration `json:"interval"`
	LoadInterval Duration `json:"loadInterval,omitempty"`
	IdleAfter    Duration `json:"idleAfter"`
}

// Load is the load generator's reporting interval.
func (s Sampling) Load() time.Duration {
	if s.LoadInterval > 0 {
		return s.LoadInterval.D()
	}
	return DefaultLoadInterval
}

// Request is a batch's request template; {payload}, {payload_text} and
// {vary} are substituted per cell and per request.
type Request struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
	Vary    *Vary             `json:"vary,omitempty"`
}

// Vary is the range of the per-request {vary} parameter.
type Vary struct {
	Min int64 `json:"min"`
	Max int64 `json:"max"`
}

// Uses reports whether the template has placeholder ph in its path, a
// header (name or value) or its body: everywhere the load generator
// substitutes it, so everywhere validate and the {vary} probe must look.
func (r Request) Uses(ph string) bool {
	if strings.Contains(r.Path, ph) || strings.Contains(r.Body, ph) {
		return true
	}
	for k, v := range r.Headers {
		if strings.Contains(k, ph) || strings.Contains(v, ph) {
			return true
		}
	}
	return false
}
