package schema

import (
	"encoding/json"
	"time"

	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
)

// The definition as CUE spells it, for decoding only, and its conversion
// into yardstick's own types (package pipeline). This file is the one place
// where CUE field names meet the plan's: the plan format may change its
// JSON names without touching the definition language, and the other way
// round.

// jsonDuration is a duration as the schema writes it: a Go duration string.
type jsonDuration time.Duration

func (d *jsonDuration) UnmarshalJSON(b []byte) error {
	v, err := pipeline.ParseDurationJSON(b)
	*d = jsonDuration(v)
	return err
}

func (d jsonDuration) convert() pipeline.Duration { return pipeline.Duration(d) }

// jsonWarmup is a warm-up: a duration, or "auto".
type jsonWarmup struct {
	d    jsonDuration
	auto bool
}

func (w *jsonWarmup) UnmarshalJSON(b []byte) error {
	if string(b) == `"auto"` {
		w.auto = true
		return nil
	}
	return w.d.UnmarshalJSON(b)
}

type jsonWindows struct {
	ServiceWarmup jsonDuration `json:"serviceWarmup"`
	Warmup        jsonWarmup   `json:"warmup"`
	WarmupMax     jsonDuration `json:"warmupMax"`
	SteadyFor     jsonDuration `json:"steadyFor"`
	Measure       jsonWarmup   `json:"measure"`
	MeasureMin    jsonDuration `json:"measureMin"`
	MeasureMax    jsonDuration `json:"measureMax"`
	DiscardHead   jsonDuration `json:"discardHead"`
	ReadyTimeout  jsonDuration `json:"readyTimeout"`
}

func (w jsonWindows) convert() pipeline.Windows {
	out := pipeline.Windows{
		ServiceWarmup: w.ServiceWarmup.convert(),
		Warmup:        w.Warmup.d.convert(),
		WarmupAuto:    w.Warmup.auto,
		WarmupMax:     w.WarmupMax.convert(),
		SteadyFor:     w.SteadyFor.convert(),
		Measure:       w.Measure.d.convert(),
		DiscardHead:   w.DiscardHead.convert(),
		ReadyTimeout:  w.ReadyTimeout.convert(),
	}
	if w.Measure.auto {
		out.MeasureAuto, out.MeasureMin, out.MeasureMax = true, w.MeasureMin.convert(), w.MeasureMax.convert()
		out.Measure = out.FirstMeasure()
	}
	return out
}

type jsonPlacement struct {
	Target   string           `json:"target"`
	Services string           `json:"services"`
	Loadgen  string           `json:"loadgen"`
	Hosts    string           `json:"hosts"`
	Share    []pipeline.Share `json:"share"`
}

// convert parses the CPU lists into sets, and leaves the default "same"
// out of the plan, so a one-host batch keeps the cell ids it had before
// hosts existed. A list that does not parse (the schema's pattern lets
// "1-0" through) is left empty here: validate reports it from the lists as
// written (CPULists), and no plan is made of an invalid definition.
func (p jsonPlacement) convert() (pipeline.Placement, CPULists) {
	set := func(list string) cpuset.Set {
		var s cpuset.Set
		if s.UnmarshalText([]byte(list)) != nil {
			return nil
		}
		return s
	}
	pl := pipeline.Placement{Target: set(p.Target), Services: set(p.Services), Loadgen: set(p.Loadgen), Share: p.Share}
	if p.Hosts == pipeline.HostsSeparate {
		pl.Hosts = p.Hosts
	}
	return pl, CPULists{Target: p.Target, Services: p.Services, Loadgen: p.Loadgen}
}

type jsonTolerance struct {
	Tolerance float64 `json:"tolerance"`
}

func (t *jsonTolerance) convert() *pipeline.Tolerance {
	if t == nil {
		return nil
	}
	return &pipeline.Tolerance{Tolerance: t.Tolerance}
}

type jsonFairness struct {
	EventLoops              int            `json:"eventLoops"`
	LogBytesPerRequest      *jsonTolerance `json:"logBytesPerRequest"`
	ResponseBytesPerRequest *jsonTolerance `json:"responseBytesPerRequest"`
	// Margin is a number (every metric's margin) or an object of
	// margins by metric (the others pipeline.DefaultMargin).
	Margin json.RawMessage `json:"margin"`
	Rule   string          `json:"rule"`
}

func (f jsonFairness) convert() pipeline.Fairness {
	out := pipeline.Fairness{
		EventLoops:              f.EventLoops,
		LogBytesPerRequest:      f.LogBytesPerRequest.convert(),
		ResponseBytesPerRequest: f.ResponseBytesPerRequest.convert(),
		Noise:                   pipeline.DefaultMargin,
		Rule:                    f.Rule,
	}
	// the schema has checked the shape: a number, or numbers by metric
	if json.Unmarshal(f.Margin, &out.Noise) != nil {
		out.Noise = pipeline.DefaultMargin
		_ = json.Unmarshal(f.Margin, &out.Margins)
	}
	return out
}

type jsonSampling struct {
	Interval     jsonDuration `json:"interval"`
	LoadInterval jsonDuration `json:"loadInterval"`
	IdleAfter    jsonDuration `json:"idleAfter"`
}

func (s jsonSampling) convert() pipeline.Sampling {
	return pipeline.Sampling{Interval: s.Interval.convert(), LoadInterval: s.LoadInterval.convert(), IdleAfter: s.IdleAfter.convert()}
}

type jsonVary struct {
	Min int64 `json:"min"`
	Max int64 `json:"max"`
}

type jsonRequest struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
	Vary    *jsonVary         `json:"vary"`
}

func (r jsonRequest) convert() pipeline.Request {
	out := pipeline.Request{Method: r.Method, Path: r.Path, Headers: r.Headers, Body: r.Body}
	if r.Vary != nil {
		out.Vary = &pipeline.Vary{Min: r.Vary.Min, Max: r.Vary.Max}
	}
	return out
}

type jsonWorkload struct {
	Request     jsonRequest  `json:"request"`
	Payload     []int        `json:"payload"`
	Concurrency []int        `json:"concurrency"`
	Rate        []Rate       `json:"rate"`
	Connections int          `json:"connections"`
	Hold        *jsonHold    `json:"hold"`
	Timeout     jsonDuration `json:"timeout"`
}

type jsonHold struct {
	Protocol    string       `json:"protocol"`
	Steps       []int        `json:"steps"`
	OpenRate    float64      `json:"openRate"`
	StepHold    jsonDuration `json:"stepHold"`
	Heartbeat   jsonDuration `json:"heartbeat"`
	MissBound   jsonDuration `json:"missBound"`
	SourceAddrs int          `json:"sourceAddrs"`
}

func (h *jsonHold) convert() *pipeline.Hold {
	if h == nil {
		return nil
	}
	return &pipeline.Hold{
		Protocol: h.Protocol, Steps: h.Steps, OpenRate: h.OpenRate,
		StepHold: h.StepHold.convert(), Heartbeat: h.Heartbeat.convert(),
		MissBound: h.MissBound.convert(), SourceAddrs: h.SourceAddrs,
	}
}

func (w jsonWorkload) convert() Workload {
	return Workload{
		Request:     w.Request.convert(),
		Payload:     w.Payload,
		Concurrency: w.Concurrency,
		Rate:        w.Rate,
		Connections: w.Connections,
		Hold:        w.Hold.convert(),
		Timeout:     w.Timeout.convert(),
	}
}

// jsonTarget decodes a target; its windows are the schema's spelling.
type jsonTarget struct {
	Target
	Windows *jsonWindows `json:"windows"`
}
