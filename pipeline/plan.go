// Package pipeline holds the types that yardstick's stages hand to each
// other through the run directory: the plan (the lock) with its cells, and,
// as the later stages arrive, checkpoints and the run directory itself.
//
// The flow is
//
//  1. validate: schema.Load + static checks (stages/validate), pure;
//  2. plan: expansion into ordered cells (stages/plan), pure, giving a Plan;
//  3. execute: one checkpoint per cell;
//  4. datasets: checkpoints into Parquet;
//  5. report: Parquet into Markdown, HTML and SVG.
//
// pipeline imports no stage; each stage imports pipeline.
package pipeline

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"yardstick/pipeline/cpuset"
)

// PlanVersion is the version of the plan.json format. Version 2 writes
// every CPU set in its compact form ("0-1" for a definition's "0,1");
// version 1 wrote it as the definition spelled it (see ReadPlan).
const PlanVersion = 2

// A Plan is an experiment expanded into ordered cells: what plan prints and
// what run executes (plan.json, the lock).
type Plan struct {
	Version     int    `json:"version"`
	Experiment  string `json:"experiment"`
	Description string `json:"description"`
	// Question is the study's question and how the report answers it;
	// nil when the experiment asks none.
	Question *Question `json:"question,omitempty"`
	// Definition is the argument the plan was made from.
	Definition string   `json:"definition"`
	Sources    []Source `json:"sources"`
	// SourceHash is the sha256 of the definition's files (and of its tags,
	// when there are any).
	SourceHash string `json:"source_hash"`
	// Tags are the -t key=value injections the definition was evaluated
	// with: with sources/ they reproduce the plan (yardstick plan
	// sources/... -t key=value).
	Tags []string `json:"tags,omitempty"`
	// Hash identifies the resolved plan: the sha256 of the cell ids in
	// order. Two plans with the same Hash run the same cells in the same
	// order.
	Hash    string  `json:"hash"`
	Batches []Batch `json:"batches"`
	Cells   []Cell  `json:"cells"`
	// EstimatedSeconds is a lower bound of the wall time: windows, warm-ups
	// and idle times, without start-up and build times.
	EstimatedSeconds float64 `json:"estimated_seconds"`
}

// A Source is one file of the definition.
type Source struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// A Batch is a batch resolved, as the plan holds it: everything its cells
// share (schema.Batch is the batch as declared, datasets.Batch its row of
// the batches table).
type Batch struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Repeats is the number of repeats, each a start of every variant; for
	// adaptive repeats, the most that may run (their max).
	Repeats int `json:"repeats"`
	// RepeatsMin, when above 0, makes the repeats adaptive: the batch runs
	// in rounds and stops, from round RepeatsMin on, once its throughput
	// and p99 comparisons are decided (or at Repeats rounds, or when
	// RepeatsBudget is spent); rounds.json says how many ran.
	RepeatsMin    int      `json:"repeats_min,omitempty"`
	RepeatsBudget Duration `json:"repeats_budget,omitempty"`
	// RepeatsUntil are the metrics whose comparisons must all be decided
	// for adaptive repeats to stop; empty is DefaultUntil.
	RepeatsUntil []string `json:"repeats_until,omitempty"`
	// Processors is the batch's effective processor budget.
	Processors int       `json:"processors"`
	Windows    Windows   `json:"windows"`
	Placement  Placement `json:"placement"`
	Fairness   Fairness  `json:"fairness"`
	Baseline   string    `json:"baseline,omitempty"`
	ColdStarts int       `json:"cold_starts"`
	Sampling   Sampling  `json:"sampling"`
	Request    Request   `json:"request"`
	Timeout    Duration  `json:"timeout"`
	Order      string    `json:"order"`
	Seed       int64     `json:"seed"`
	Services   []Process `json:"services,omitempty"`
	Variants   []Variant `json:"variants"`
}

// A Process is a resolved command: what the executor starts.
type Process struct {
	Name string   `json:"name"`
	Kind string   `json:"kind"`
	Argv []string `json:"argv"`
	// Env holds the variables added to the environment, "KEY=value",
	// sorted by key.
	Env              []string `json:"env"`
	Dir              string   `json:"dir,omitempty"`
	Port             int      `json:"port"`
	Ready            string   `json:"ready"`
	Build            []string `json:"build,omitempty"`
	EventLoopThreads string   `json:"event_loop_threads,omitempty"`
	AccessLog        string   `json:"access_log,omitempty"`
	// GCLog is "gctrace" (Go, from stderr), "file" (JVM, -Xlog:gc to the
	// path the executor substitutes for {gclog}) or empty.
	GCLog string `json:"gc_log,omitempty"`
}

// A Variant is a variant resolved, as the plan holds it: one point of a
// target's variant axes (analysis.Variant is the report's view).
type Variant struct {
	Process
	Target string `json:"target"`
	// Label is the readable variant name: the target name, then the values
	// of its variant axes ("jvm-zgc-512m").
	Label string `json:"label"`
	// Knobs are the effective values of every typed knob, fixed or varied.
	Knobs []Knob `json:"knobs"`
	// Axes names the knobs that vary for this target.
	Axes       []string `json:"axes,omitempty"`
	Processors int      `json:"processors"`
	// Limits are the container limits the variant's starts run under; nil
	// without any.
	Limits *Limits `json:"limits,omitempty"`
}

// Limits are a target's container limits: a CPU quota and a memory limit,
// each start in a control group of its own (cgroup v2 cpu.max and
// memory.max, v1 cpu.cfs_quota_us and memory.limit_in_bytes).
type Limits struct {
	// CPUs is the quota in CPUs per period (1.5: 150ms per 100ms); 0 is
	// no CPU limit.
	CPUs float64 `json:"cpus,omitempty"`
	// PeriodUS is the CFS period in microseconds.
	PeriodUS int64 `json:"period_us"`
	// Memory is the limit as declared ("512m"); MemoryBytes is it in
	// bytes, 0 for no memory limit.
	Memory      string `json:"memory,omitempty"`
	MemoryBytes int64  `json:"memory_bytes,omitempty"`
}

// A Knob is one typed setting of a target ("heap" = "512m").
type Knob struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Knob returns the value of the named knob, or "".
func (v *Variant) Knob(name string) string {
	for _, k := range v.Knobs {
		if k.Name == name {
			return k.Value
		}
	}
	return ""
}

// A Point is a workload point as the plan holds it: a payload with a
// concurrency (closed loop) or an arrival rate (open loop)
// (analysis.Point is the report's view).
type Point struct {
	// Payload is substituted for {payload}; nil when the workload has no
	// payload axis.
	Payload *int   `json:"payload,omitempty"`
	Mode    string `json:"mode"` // "closed", "open" or "hold"
	// Concurrency is the number of connections in a closed loop.
	Concurrency int `json:"concurrency,omitempty"`
	// Connections carry an open-loop rate.
	Connections int `json:"connections,omitempty"`
	// Rate is the absolute arrival rate in requests/s, or 0 when
	// PeakFraction is set.
	Rate float64 `json:"rate,omitempty"`
	// PeakFraction asks for a fraction of the variant's peak closed-loop
	// throughput measured earlier in the run.
	PeakFraction float64 `json:"peak_fraction,omitempty"`
	// Hold is a connection-holding point's steps (Mode "hold"); its
	// Connections is the last step.
	Hold *Hold `json:"hold,omitempty"`
}

// Hold is a connection-holding workload (workload.hold): connections
// opened in steps and held instead of requests sent.
type Hold struct {
	Protocol    string   `json:"protocol"`
	Steps       []int    `json:"steps"`
	OpenRate    float64  `json:"open_rate"`
	StepHold    Duration `json:"step_hold"`
	Heartbeat   Duration `json:"heartbeat"`
	MissBound   Duration `json:"miss_bound,omitempty"`   // 0: the heartbeat period
	SourceAddrs int      `json:"source_addrs,omitempty"` // 0: chosen by the load generator
}

// Length is how long the steps take to open and hold.
func (h *Hold) Length() time.Duration {
	var t time.Duration
	prev := 0
	for _, n := range h.Steps {
		t += time.Duration(float64(n-prev)/h.OpenRate*float64(time.Second)) + h.StepHold.D()
		prev = n
	}
	return t
}

// Label is the readable part of a cell name for a point: "c32-p128",
// "r2000-p128", "r80pct".
func (pt Point) Label() string {
	var s string
	switch {
	case pt.Mode == "closed":
		s = "c" + strconv.Itoa(pt.Concurrency)
	case pt.Mode == "hold":
		s = "h" + strconv.Itoa(pt.Connections)
	case pt.PeakFraction > 0:
		s = "r" + strconv.FormatFloat(pt.PeakFraction*100, 'f', -1, 64) + "pct"
	default:
		s = "r" + strconv.FormatFloat(pt.Rate, 'f', -1, 64)
	}
	if pt.Payload != nil {
		s += "-p" + strconv.Itoa(*pt.Payload)
	}
	return s
}

// A Cell is a cell as the plan holds it: one target variant x workload
// point x repeat, fully resolved (datasets.Cell is its row of the cells
// table).
type Cell struct {
	// ID is a short hash of the cell's canonical resolved form.
	ID      string `json:"id"`
	Name    string `json:"name"`
	Seq     int    `json:"seq"`
	Batch   string `json:"batch"`
	Target  string `json:"target"`
	Variant string `json:"variant"`
	Kind    string `json:"kind"`
	// StartSeq numbers the target starts in run order: the cells with the
	// same StartSeq share one start of their variant.
	StartSeq int      `json:"group"`
	Repeat   int      `json:"repeat"`
	Point    Point    `json:"point"`
	Argv     []string `json:"argv"`
	Env      []string `json:"env"`
}

// DefaultUntil are the metrics whose decisions stop adaptive repeats
// when a batch names none.
var DefaultUntil = []string{"throughput", "latency_p99"}

// Until are the metrics whose decisions stop the batch's adaptive
// repeats.
func (b *Batch) Until() []string {
	if len(b.RepeatsUntil) == 0 || slices.Equal(b.RepeatsUntil, DefaultUntil) {
		return DefaultUntil
	}
	return b.RepeatsUntil
}

// UntilWords names the metrics that stop the batch's adaptive repeats:
// "throughput and p99", "throughput".
func (b *Batch) UntilWords() string {
	u := b.Until()
	names := make([]string, len(u))
	for i, m := range u {
		names[i] = strings.TrimPrefix(m, "latency_")
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Adaptive says the batch's repeats run until decided.
func (b *Batch) Adaptive() bool { return b.RepeatsMin > 0 && b.RepeatsMin < b.Repeats }

// OrderRounds is the order of a batch run in rounds: round r starts every
// variant once (repeat r), in an order shuffled per round (stages/plan).
const OrderRounds = "rounds"

// Batch returns the plan's batch named name, or nil.
func (p *Plan) Batch(name string) *Batch {
	for i := range p.Batches {
		if p.Batches[i].Name == name {
			return &p.Batches[i]
		}
	}
	return nil
}

// Variant returns the batch's variant labelled label, or nil.
func (b *Batch) Variant(label string) *Variant {
	for i := range b.Variants {
		if b.Variants[i].Label == label {
			return &b.Variants[i]
		}
	}
	return nil
}

// fromV1 takes a version 1 plan (raw is its file) as a version 2 one.
// The two differ only in how a CPU set is written: version 1 kept the
// definition's spelling, version 2 writes the compact form, and cell ids
// hash the set as written. A version 1 plan whose sets were all written
// compactly (the usual "0", "0-1") has the ids version 2 gives it and is
// read as it is; one that spelled a set otherwise ("0,1") is refused with
// the spelling, since its ids hash that spelling and Verify would call
// the plan tampered with.
func (p *Plan) fromV1(raw []byte) error {
	var old struct {
		Batches []struct {
			Name      string `json:"name"`
			Placement struct {
				Target   string `json:"target"`
				Services string `json:"services"`
				Loadgen  string `json:"loadgen"`
			} `json:"placement"`
		} `json:"batches"`
	}
	if err := json.Unmarshal(raw, &old); err != nil || len(old.Batches) != len(p.Batches) {
		return fmt.Errorf("plan version 1 that does not read back: %v", err)
	}
	for i, ob := range old.Batches {
		pl := p.Batches[i].Placement
		for _, r := range []struct {
			role, was string
			now       cpuset.Set
		}{{RoleTarget, ob.Placement.Target, pl.Target}, {RoleServices, ob.Placement.Services, pl.Services}, {RoleLoadgen, ob.Placement.Loadgen, pl.Loadgen}} {
			if r.was != r.now.String() {
				return fmt.Errorf("plan version 1, batch %s: placement.%s %q is written %q since plan version %d, and the cell ids of this plan were hashed from %q: "+
					"read this run with the yardstick that made it, or run the definition again (its cells get new ids)", ob.Name, r.role, r.was, r.now.String(), PlanVersion, r.was)
			}
		}
	}
	p.Version = PlanVersion
	return nil
}
