// Package plan expands a validated experiment into ordered cells (the plan
// stage). It is pure: it reads the decoded definition and returns a
// pipeline.Plan; it starts nothing and writes nothing.
//
// For each batch (by name): resolve each target's variants (resolve.go),
// build the workload points (payload x concurrency, or payload x rate),
// multiply variant x point x repeat, trim with include/exclude, give each
// cell its id (id.go) and order the cells (order.go).
package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"yardstick/pipeline"
	"yardstick/schema"
)

// Options override what the definition says about ordering.
type Options struct {
	Order string // "", "sequential", "interleaved" or "random"
	Seed  *int64
}

// Orders lists the valid orders.
var Orders = []string{"sequential", "interleaved", "random"}

// Expand turns experiment e of def into a plan.
func Expand(def *schema.Definition, e *schema.Experiment, opts Options) (*pipeline.Plan, error) {
	p := &pipeline.Plan{
		Version:     pipeline.PlanVersion,
		Experiment:  e.Name,
		Description: e.Description,
		Definition:  def.Arg,
		SourceHash:  def.Hash(),
	}
	for _, s := range def.Sources {
		p.Sources = append(p.Sources, pipeline.Source{Path: s.Path, SHA256: s.SHA256})
	}
	group := 0
	for _, b := range e.Batches {
		pb, cells, err := expandBatch(e, b, opts)
		if err != nil {
			return nil, fmt.Errorf("batch %s: %w", b.Name, err)
		}
		next := group
		for i := range cells {
			cells[i].Group += group
			cells[i].Seq = len(p.Cells) + i
			next = max(next, cells[i].Group+1)
		}
		group = next
		p.Batches = append(p.Batches, pb)
		p.Cells = append(p.Cells, cells...)
		p.EstimatedSeconds += estimate(pb, cells)
	}
	h := sha256.New()
	for _, c := range p.Cells {
		h.Write([]byte(c.ID))
		h.Write([]byte{'\n'})
	}
	p.Hash = hex.EncodeToString(h.Sum(nil))
	return p, nil
}

func expandBatch(e *schema.Experiment, b *schema.Batch, opts Options) (pipeline.Batch, []pipeline.Cell, error) {
	pb := pipeline.Batch{
		Name:        b.Name,
		Description: b.Description,
		Repeats:     b.Repeats,
		Processors:  Processors(b),
		Windows:     b.Windows,
		Placement:   b.Placement,
		Fairness:    b.Fairness,
		Baseline:    b.Baseline,
		ColdStarts:  b.ColdStarts,
		Sampling:    b.Sampling,
		Request:     b.Workload.Request,
		Timeout:     b.Workload.Timeout,
		Order:       b.Order,
		Seed:        b.Seed,
	}
	if opts.Order != "" {
		pb.Order = opts.Order
	}
	if opts.Seed != nil {
		pb.Seed = *opts.Seed
	}
	for _, s := range b.Services {
		pb.Services = append(pb.Services, Service(s))
	}
	for _, t := range b.Targets {
		pb.Variants = append(pb.Variants, Variants(b, t)...)
	}
	points := Points(&b.Workload)
	var cells []pipeline.Cell
	for vi := range pb.Variants {
		v := &pb.Variants[vi]
		for r := 1; r <= b.Repeats; r++ {
			for _, pt := range points {
				if !keep(b, v, pt, r) {
					continue
				}
				c := pipeline.Cell{
					Batch:   b.Name,
					Target:  v.Target,
					Variant: v.Label,
					Kind:    v.Kind,
					Repeat:  r,
					Point:   pt,
					Argv:    v.Argv,
					Env:     v.Env,
				}
				c.Name = fmt.Sprintf("%s/%s/%s/r%d", b.Name, v.Label, pt.Label(), r)
				c.ID = CellID(e.Name, &pb, v, &c)
				cells = append(cells, c)
			}
		}
	}
	cells, err := order(pb.Order, pb.Seed, pb.Variants, cells)
	if err != nil {
		return pb, nil, err
	}
	return pb, cells, nil
}

// FromSource loads one CUE file held in memory and expands the named
// experiment (the only one when experiment is empty): what test fixtures
// and tools that make plans without files need.
func FromSource(name string, src []byte, experiment string, opts Options) (*pipeline.Plan, error) {
	def, err := schema.LoadSources(name, []schema.SourceFile{{Path: name, Content: src}})
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	e, err := def.Experiment(experiment)
	if err != nil {
		return nil, err
	}
	return Expand(def, e, opts)
}

// Points lists the workload points in order: payload-major, then
// concurrency or rate as declared.
func Points(w *schema.Workload) []pipeline.Point {
	payloads := []*int{nil}
	if len(w.Payload) > 0 {
		payloads = payloads[:0]
		for i := range w.Payload {
			payloads = append(payloads, &w.Payload[i])
		}
	}
	var out []pipeline.Point
	for _, p := range payloads {
		for _, c := range w.Concurrency {
			out = append(out, pipeline.Point{Payload: p, Mode: "closed", Concurrency: c})
		}
		for _, r := range w.Rate {
			out = append(out, pipeline.Point{Payload: p, Mode: "open", Connections: w.Connections, Rate: r.PerSecond, PeakFraction: r.PeakFraction})
		}
	}
	return out
}

// matchValues returns the values include/exclude keys compare against for a
// cell, as canonical strings.
func matchValues(v *pipeline.Variant, pt pipeline.Point, repeat int) map[string]string {
	m := map[string]string{
		"target": v.Target,
		"repeat": strconv.Itoa(repeat),
	}
	if pt.Payload != nil {
		m["payload"] = strconv.Itoa(*pt.Payload)
	}
	if pt.Mode == "closed" {
		m["concurrency"] = strconv.Itoa(pt.Concurrency)
	} else {
		m["rate"] = schema.Rate{PerSecond: pt.Rate, PeakFraction: pt.PeakFraction}.String()
	}
	for _, k := range v.Knobs {
		m[k.Name] = k.Value
	}
	return m
}

// MatchKeys lists the keys an include or exclude rule may use.
var MatchKeys = append([]string{"target", "payload", "concurrency", "rate", "repeat"}, KnobNames...)

func matches(rule schema.Match, vals map[string]string) bool {
	for k, want := range rule {
		got, ok := vals[k]
		if !ok || !strings.EqualFold(got, want) {
			return false
		}
	}
	return true
}

func keep(b *schema.Batch, v *pipeline.Variant, pt pipeline.Point, repeat int) bool {
	vals := matchValues(v, pt, repeat)
	if len(b.Include) > 0 {
		in := false
		for _, r := range b.Include {
			if matches(r, vals) {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	for _, r := range b.Exclude {
		if matches(r, vals) {
			return false
		}
	}
	return true
}

// RuleMatches counts the cells of batch b an include or exclude rule
// matches before any trimming, so validate can warn about a rule that
// matches nothing.
func RuleMatches(b *schema.Batch, rule schema.Match) int {
	n := 0
	points := Points(&b.Workload)
	for _, t := range b.Targets {
		for _, v := range Variants(b, t) {
			for r := 1; r <= b.Repeats; r++ {
				for _, pt := range points {
					if matches(rule, matchValues(&v, pt, r)) {
						n++
					}
				}
			}
		}
	}
	return n
}

// estimate is a lower bound of the batch's wall time in seconds: per
// target start the service warm-up (ready waits and cold-start probes are
// not known in advance and count zero); per cell its warm-up, its measure
// window and the idle time before "RSS after".
func estimate(b pipeline.Batch, cells []pipeline.Cell) float64 {
	starts := map[int]bool{}
	var s float64
	for _, c := range cells {
		starts[c.Group] = true
		s += (b.Windows.Warmup.D() + b.Windows.Measure.D() + b.Sampling.IdleAfter.D()).Seconds()
	}
	return s + float64(len(starts))*b.Windows.ServiceWarmup.D().Seconds()
}
