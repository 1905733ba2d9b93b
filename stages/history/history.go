package history

import (
	"path"
	"slices"
	"sort"
	"time"
)

// A History is the runs of one experiment in run order and the series
// they make.
type History struct {
	Experiment string
	Runs       []*Run
	Series     []Series
}

// A Series is one cell's figures of one metric across the runs.
type Series struct {
	Batch, Variant, Point, Metric string
	LowerIsBetter                 bool
	// Margin is the newest run's margin of the metric in the batch
	// (Run.Margin).
	Margin float64
	Points []Point
	// Changes are the changepoints found across the runs, in run order.
	Changes []Change
}

// Cell is the series' cell as <batch>/<variant>/<point>.
func (s *Series) Cell() string { return s.Batch + "/" + s.Variant + "/" + s.Point }

// A Point is one run's figure in a series.
type Point struct {
	// Run indexes History.Runs.
	Run int
	Figure
}

// Options select what Build keeps.
type Options struct {
	// Metrics keeps only these metrics; all when empty.
	Metrics []string
	// Cell keeps the cells whose <batch>/<variant>/<point> the glob
	// matches; all when empty.
	Cell string
	// Since keeps the runs from this time on; all when zero.
	Since time.Time
	// MinSize is the fewest runs a segment between changepoints has;
	// 0 is DefaultMinSize.
	MinSize int
}

// Build orders the runs by run id (which sorts by time), keeps those
// from o.Since on, marks each run whose environment, binaries or plan
// differ from the run before, and makes the series and their changes.
func Build(experiment string, runs []*Run, o Options) (*History, error) {
	if o.Cell != "" {
		if _, err := path.Match(o.Cell, ""); err != nil {
			return nil, err
		}
	}
	runs = slices.Clone(runs)
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].ID < runs[j].ID })
	if !o.Since.IsZero() {
		runs = slices.DeleteFunc(runs, func(r *Run) bool { return r.Date.Before(o.Since) })
	}
	for i, r := range runs {
		r.Marks = nil
		if i == 0 {
			continue
		}
		p := runs[i-1]
		if r.Environment != p.Environment {
			r.Marks = append(r.Marks, "environment")
		}
		if r.Binaries != p.Binaries {
			r.Marks = append(r.Marks, "binaries")
		}
		if r.PlanHash != p.PlanHash {
			r.Marks = append(r.Marks, "plan")
		}
	}
	h := &History{Experiment: experiment, Runs: runs}
	h.Series = seriesOf(runs, o)
	for i := range h.Series {
		if err := h.Series[i].findChanges(h.Runs, o.MinSize); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// seriesOf gathers the runs' figures into series, in batch, variant,
// point and metric order (metrics in the comparisons table's order).
func seriesOf(runs []*Run, o Options) []Series {
	byKey := map[key]*Series{}
	for ri, r := range runs {
		for k, f := range r.figures {
			if len(o.Metrics) > 0 && !slices.Contains(o.Metrics, k.metric) {
				continue
			}
			s := byKey[k]
			if s == nil {
				s = &Series{Batch: k.batch, Variant: k.variant, Point: k.point, Metric: k.metric, LowerIsBetter: lowerIsBetter(k.metric)}
				if o.Cell != "" {
					if ok, _ := path.Match(o.Cell, s.Cell()); !ok {
						continue
					}
				}
				byKey[k] = s
			}
			s.Points = append(s.Points, Point{Run: ri, Figure: f})
		}
	}
	order := MetricNames()
	out := make([]Series, 0, len(byKey))
	for _, s := range byKey {
		s.Margin = runs[len(runs)-1].Margin(s.Batch, s.Metric)
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if a.Cell() != b.Cell() {
			return a.Cell() < b.Cell()
		}
		return slices.Index(order, a.Metric) < slices.Index(order, b.Metric)
	})
	return out
}
