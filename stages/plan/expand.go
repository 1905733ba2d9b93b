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
	"context"
	"fmt"
	"slices"

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

// Expand turns experiment e of def into a plan. It stops with ctx's cause
// when ctx ends first.
func Expand(ctx context.Context, def *schema.Definition, e *schema.Experiment, opts Options) (*pipeline.Plan, error) {
	p := &pipeline.Plan{
		Version:     pipeline.PlanVersion,
		Experiment:  e.Name,
		Description: e.Description,
		Question:    e.Question,
		Definition:  def.Arg,
		SourceHash:  def.Hash(),
		Tags:        schema.TagStrings(def.Tags),
	}
	for _, s := range def.Sources {
		p.Sources = append(p.Sources, pipeline.Source{Path: s.Path, SHA256: s.SHA256})
	}
	group := 0
	for _, b := range e.Batches {
		pb, cells, err := expandBatch(ctx, e, b, opts)
		if err != nil {
			return nil, fmt.Errorf("batch %s: %w", b.Name, err)
		}
		next := group
		for i := range cells {
			cells[i].StartSeq += group
			cells[i].Seq = len(p.Cells) + i
			next = max(next, cells[i].StartSeq+1)
		}
		group = next
		p.Batches = append(p.Batches, pb)
		p.Cells = append(p.Cells, cells...)
		p.EstimatedSeconds += estimate(pb, cells)
	}
	p.Hash = pipeline.PlanHash(p.Cells)
	return p, nil
}

func expandBatch(ctx context.Context, e *schema.Experiment, b *schema.Batch, opts Options) (pipeline.Batch, []pipeline.Cell, error) {
	pb := pipeline.Batch{
		Name:          b.Name,
		Description:   b.Description,
		Repeats:       b.Repeats,
		RepeatsMin:    b.RepeatsMin,
		RepeatsBudget: b.RepeatsBudget,
		RepeatsUntil:  until(b.RepeatsUntil),
		Processors:    schema.Processors(b),
		Windows:       b.Windows,
		Placement:     b.Placement,
		Fairness:      b.Fairness,
		Baseline:      b.Baseline,
		ColdStarts:    b.ColdStarts,
		Sampling:      b.Sampling,
		Request:       b.Workload.Request,
		Timeout:       b.Workload.Timeout,
		Order:         b.Order,
		Seed:          b.Seed,
	}
	if opts.Order != "" {
		pb.Order = opts.Order
	}
	if opts.Seed != nil {
		pb.Seed = *opts.Seed
	}
	if pb.Adaptive() && pb.Order != "random" {
		pb.Order = pipeline.OrderRounds // adaptive repeats run round by round
	}
	for _, s := range b.Services {
		pb.Services = append(pb.Services, s.Resolve())
	}
	for _, t := range b.Targets {
		pb.Variants = append(pb.Variants, schema.Variants(b, t)...)
	}
	cells, err := expandCells(ctx, e, b, &pb)
	if err != nil {
		return pb, nil, err
	}
	cells, err = order(pb.Order, pb.Seed, pb.Adaptive(), pb.Variants, cells)
	if err != nil {
		return pb, nil, err
	}
	return pb, cells, nil
}

// expandCells multiplies the variants of pb by b's points and repeats and
// keeps the cells b's rules keep, each with its name and id.
func expandCells(ctx context.Context, e *schema.Experiment, b *schema.Batch, pb *pipeline.Batch) ([]pipeline.Cell, error) {
	points := schema.Points(&b.Workload)
	rules := schema.NewMatcher(b)
	var cells []pipeline.Cell
	seen := 0
	for vi := range pb.Variants {
		v := &pb.Variants[vi]
		for r := 1; r <= b.Repeats; r++ {
			for _, pt := range points {
				if seen++; seen%1024 == 0 && ctx.Err() != nil {
					return nil, context.Cause(ctx)
				}
				if !rules.Keep(v, pt, r) {
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
				c.ID = pipeline.CellID(e.Name, pb, v, &c)
				cells = append(cells, c)
			}
		}
	}
	return cells, nil
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
	return Expand(context.Background(), def, e, opts)
}

// estimate is a lower bound of the batch's wall time in seconds: per
// target start the service warm-up (ready waits and cold-start probes are
// not known in advance and count zero); per cell its warm-up, its measure
// window (a hold cell: its steps) and the idle time before "RSS after".
func estimate(b pipeline.Batch, cells []pipeline.Cell) float64 {
	starts := map[int]bool{}
	var s float64
	for _, c := range cells {
		starts[c.StartSeq] = true
		window := b.Windows.Measure.D()
		if c.Point.Hold != nil { // a hold cell lasts its steps
			window = c.Point.Hold.Length()
		}
		s += (b.Windows.MaxWarmup() + window + b.Sampling.IdleAfter.D()).Seconds()
	}
	return s + float64(len(starts))*b.Windows.ServiceWarmup.D().Seconds()
}

// until is a batch's RepeatsUntil as the plan keeps it: nil for the
// default, so that plans and their hashes stay as they were.
func until(metrics []string) []string {
	if slices.Equal(metrics, pipeline.DefaultUntil) {
		return nil
	}
	return metrics
}
