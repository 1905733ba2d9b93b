package analysis

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/pipeline"
)

// Tables are a run directory's Parquet tables as read, plus the plan's
// batch metadata: the one input of the analysis.
type Tables struct {
	Meta     datasets.Meta
	Cells    []datasets.Cell
	Series   []datasets.Interval
	Spectrum []datasets.SpectrumPoint
	Fairness []datasets.FairnessCheck
	Env      []datasets.Environment
	// Comparisons are the comparisons table's rows; empty without it.
	Comparisons []datasets.Comparison
	// Plan holds the batches table (CPU sets, processors, margins,
	// baselines) in the plan's shape; nil when the table is missing.
	Plan *pipeline.Plan
	// Notes say what was missing.
	Notes []string
	// Question is the study's question from plan.json.
	Question *pipeline.Question
}

// Busy says, in one sentence, that the run's cells were measured on a
// busy machine (decide.Busy); "" when they were not.
func (t *Tables) Busy() string { return decide.Busy(t.Cells) }

// RadarAxes are the seven dimensions of the report's radar chart
// (docs/design.md#the-report-and-verdicts).
var RadarAxes = []struct{ Key, Label string }{
	{"throughput", "throughput"}, {"latency_p50", "p50"}, {"latency_p99", "p99"}, {"latency_p999", "p99.9"},
	{"rss", "RSS under load"}, {"cold_start", "cold start"}, {"cpu_per_request", "CPU/request"},
}

// A Point is a workload point as the cells table records it: payload,
// mode, concurrency and open-loop rate. Its one name is Label, the part of
// a cell name that pipeline.Point.Label gives.
type Point struct {
	Payload      int64 // -1: no payload axis
	Mode         string
	Concurrency  int64   // -1: open loop
	PeakFraction float64 // open loop, as a fraction of peak
	Rate         float64 // open loop, absolute (0 with PeakFraction)
	Connections  int64   // connection holding (Mode "hold"): the last step's
	label        string
}

// pointOf is the planned point of a cell (datasets.CellPoint). An
// open-loop cell at a fraction of peak is that fraction, not the rate it
// reached: each repeat measures its own peak.
func pointOf(c *datasets.Cell) Point {
	pp := datasets.CellPoint(c)
	p := Point{Payload: -1, Concurrency: -1, Mode: pp.Mode, PeakFraction: pp.PeakFraction, Rate: pp.Rate, Connections: int64(pp.Connections), label: pp.Label()}
	if pp.Payload != nil {
		p.Payload = int64(*pp.Payload)
	}
	if c.Concurrency != nil {
		p.Concurrency = *c.Concurrency
	}
	return p
}

// ComparePoints orders points by payload, mode, concurrency and rate.
func ComparePoints(a, b Point) int {
	return cmp.Or(cmp.Compare(a.Payload, b.Payload), cmp.Compare(a.Mode, b.Mode),
		cmp.Compare(a.Concurrency, b.Concurrency), cmp.Compare(a.PeakFraction, b.PeakFraction), cmp.Compare(a.Rate, b.Rate))
}

// Label names the point as cell names do: "c8-p128", "r2000", "r80pct"
// (pipeline.Point.Label). It keys repeat sets, compare's rows and chart files.
func (p Point) Label() string { return p.label }

// A Variant is a variant as the report sees it: a target variant of a
// batch, read from the cells table (pipeline.Variant is it resolved).
type Variant struct {
	Label, Target, Kind string
	firstSeq            int64
	// Cell is its first cell in plan order: its knobs are the variant's
	// preconditions.
	Cell *datasets.Cell
	// HeapBytes orders a heap gradient: the JVM heap or GOMEMLIMIT, -1
	// when unset, math.MaxInt64 for GOMEMLIMIT off.
	HeapBytes int64
}

// newVariant is the variant of cell c, with its knobs.
func newVariant(c *datasets.Cell) *Variant {
	v := &Variant{Label: c.Variant, Target: c.Target, Kind: c.Kind, firstSeq: c.Seq, Cell: c, HeapBytes: -1}
	switch {
	case c.HeapBytes != nil:
		v.HeapBytes = *c.HeapBytes
	case c.GoMemLimit != nil:
		if c.GoMemLimitBytes != nil {
			v.HeapBytes = *c.GoMemLimitBytes
		} else {
			v.HeapBytes = math.MaxInt64 // off: no limit
		}
	}
	return v
}

// A RepeatSet is the repeats of one variant at one workload point: the
// cells a decision compares, one value per repeat (one start) and metric.
type RepeatSet struct {
	Variant *Variant
	Point   Point
	Cells   []*datasets.Cell
	// Measured are the cells with numbers: status ok or unfair.
	Measured []*datasets.Cell
	// Unfair lists the failed fairness checks of any of its cells.
	Unfair []string
	// N counts its cells by status.
	N pipeline.CellCounts
}

// add counts cell c, one repeat of the set, by its status.
func (s *RepeatSet) add(c *datasets.Cell) {
	s.Cells = append(s.Cells, c)
	if datasets.Measured(c) {
		s.Measured = append(s.Measured, c)
	}
	s.N.Add(c.Status)
	if c.Status == pipeline.StatusUnfair {
		for _, u := range FailedChecks(c) {
			if !slices.Contains(s.Unfair, u) {
				s.Unfair = append(s.Unfair, u)
			}
		}
	}
}

// Values are the repeat set's measured values of m.
func (s *RepeatSet) Values(m Column) []float64 { return s.collect(m.Get) }

// Counts are the repeat set's tail counts of m.
func (s *RepeatSet) Counts(m Column) []float64 { return s.collect(m.Count) }

func (s *RepeatSet) collect(get func(*datasets.Cell) (float64, bool)) []float64 {
	var vs []float64
	for _, c := range s.Measured {
		if v, ok := get(c); ok {
			vs = append(vs, v)
		}
	}
	return vs
}

// FailedChecks are cell c's failed fairness checks (unfair_checks).
func FailedChecks(c *datasets.Cell) []string {
	var out []string
	if c.UnfairChecks == nil {
		return nil
	}
	for _, u := range strings.Split(*c.UnfairChecks, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// A Batch is a batch as the report sees it: its cells grouped into
// variants, points and repeat sets (from datasets.Cell rows, with the
// plan's pipeline.Batch), reported on its own, never ranked against
// another.
type Batch struct {
	Name        string
	Description string
	Variants    []*Variant
	Points      []Point
	sets        map[string]*RepeatSet
	// Noise is the declared margin: the smallest relative difference
	// that matters (batches table noise_band).
	Noise float64
	// confidence is the highest level of the batch's comparisons table
	// rows (each a sequential look's, with adaptive repeats), for the
	// decisions the report makes the same way against another baseline.
	confidence float64
	// margins are the margins by metric the batch's comparisons table
	// rows were decided with.
	margins map[string]float64
	// Baseline is the baseline variant; nil leaves the batch without
	// ratios. BaselineName is the name asked for ("" when none was) and
	// BaselineFrom who asked: "--baseline" or "the batch's declared
	// baseline".
	Baseline                   *Variant
	BaselineName, BaselineFrom string
	Plan                       *pipeline.Batch
	Repeats                    int64
	// Windows are the distinct windows of the batch's cells.
	Windows []Window
	cellIDs map[string]*datasets.Cell
	// rows are the comparisons table's rows against Baseline, by point,
	// candidate, baseline and metric.
	rows map[string]datasets.Comparison
}

func setKey(v string, p Point) string { return v + "\x00" + p.Label() }

// RepeatSet returns the repeat set of variant v at point p, or nil.
func (b *Batch) RepeatSet(v *Variant, p Point) *RepeatSet { return b.sets[setKey(v.Label, p)] }

// Cell is the batch's cell with id, or nil.
func (b *Batch) Cell(id string) *datasets.Cell { return b.cellIDs[id] }

// add puts cell c into its variant's repeat set at its point; a cell of a
// round of adaptive repeats that was not needed is in no repeat set.
func (b *Batch) add(c *datasets.Cell) {
	if c.Status == pipeline.StatusNotNeeded {
		return
	}
	b.cellIDs[c.CellID] = c
	i := slices.IndexFunc(b.Variants, func(v *Variant) bool { return v.Label == c.Variant })
	if i < 0 {
		b.Variants = append(b.Variants, newVariant(c))
		i = len(b.Variants) - 1
	}
	v, p := b.Variants[i], pointOf(c)
	k := setKey(v.Label, p)
	s := b.sets[k]
	if s == nil {
		s = &RepeatSet{Variant: v, Point: p}
		b.sets[k] = s
		if !slices.ContainsFunc(b.Points, func(q Point) bool { return ComparePoints(p, q) == 0 }) {
			b.Points = append(b.Points, p)
		}
	}
	s.add(c)
	b.Repeats = max(b.Repeats, c.Repeat)
}

// Counts are the batch's cells (those in a repeat set) by status.
func (b *Batch) Counts() pipeline.CellCounts {
	var n pipeline.CellCounts
	for _, s := range b.sets {
		n = n.Plus(s.N)
	}
	return n
}

// Batches groups the cells table by batch, variant and point, in batch
// name order; baseline (a --baseline flag) overrides each batch's
// declared baseline.
func Batches(t *Tables, baseline string) []*Batch {
	byName := map[string]*Batch{}
	for i := range t.Cells {
		c := &t.Cells[i]
		b := byName[c.Batch]
		if b == nil {
			b = &Batch{Name: c.Batch, sets: map[string]*RepeatSet{}, cellIDs: map[string]*datasets.Cell{}}
			byName[c.Batch] = b
		}
		b.add(c)
	}
	var out []*Batch
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		b := byName[name]
		b.finish(t)
		b.chooseBaseline(baseline)
		b.takeRows(t.Comparisons)
		out = append(out, b)
	}
	return out
}

// finish orders the batch's points and variants and takes its
// preconditions from the batches table and its windows from the cells.
func (b *Batch) finish(t *Tables) {
	slices.SortFunc(b.Points, ComparePoints)
	slices.SortStableFunc(b.Variants, func(x, y *Variant) int { return cmp.Compare(x.firstSeq, y.firstSeq) })
	for _, s := range b.sets {
		slices.Sort(s.Unfair)
	}
	if t.Plan != nil {
		for i := range t.Plan.Batches {
			if t.Plan.Batches[i].Name == b.Name {
				b.Plan = &t.Plan.Batches[i]
			}
		}
	}
	if b.Plan != nil {
		b.Noise = b.Plan.Fairness.Noise
		b.Description = b.Plan.Description
	}
	b.Windows = WindowsOf(t.Cells, b.Name)
}

// ColorIndex is variant v's place in the batch's colours: the baseline
// first, the others next in plan order.
func (b *Batch) ColorIndex(v *Variant) int {
	i := 0
	if b.Baseline != nil {
		if v == b.Baseline {
			return 0
		}
		i = 1
	}
	for _, o := range b.Variants {
		if o == v {
			return i
		}
		if o != b.Baseline {
			i++
		}
	}
	return i
}

// chooseBaseline picks the batch's baseline: the --baseline flag, else
// the batch's declared baseline; a variant label matches first, then a
// target (its first variant in plan order).
func (b *Batch) chooseBaseline(flag string) {
	name, from := flag, "--baseline"
	if name == "" && b.Plan != nil && b.Plan.Baseline != "" {
		name, from = b.Plan.Baseline, "the batch's declared baseline"
	}
	if name == "" {
		return
	}
	b.BaselineName, b.BaselineFrom = name, from
	cells := make([]*datasets.Cell, 0, len(b.cellIDs))
	for _, c := range b.cellIDs {
		cells = append(cells, c)
	}
	// The same rule as the comparisons table's: a variant label, else the
	// target's first variant in plan order.
	label := decide.BaselineVariant(cells, name)
	for _, v := range b.Variants {
		if label != "" && v.Label == label {
			b.Baseline = v
		}
	}
}

// A Window is one distinct set of a batch's windows, in microseconds: a
// fixed warm-up, or an adaptive one (Auto) that took from Warmup to
// WarmupMax.
type Window struct {
	Auto                 bool
	Warmup, WarmupMax    int64
	Measure, DiscardHead int64
}

// WindowsOf are the distinct windows of the batch's cells (warmup_us,
// measure_us and discard_head_us): each fixed set once, and the adaptive
// warm-ups (warmup_auto) with one measure and discard head as one set,
// with the range the cells took; in the order of their first cell.
func WindowsOf(cells []datasets.Cell, batch string) []Window {
	var out []Window
	for i := range cells {
		c := &cells[i]
		if c.Batch != batch || c.WarmupUS == nil || c.MeasureUS == nil || c.DiscardHeadUS == nil {
			continue
		}
		w := Window{Auto: c.WarmupAuto != nil && *c.WarmupAuto, Warmup: *c.WarmupUS, WarmupMax: *c.WarmupUS, Measure: *c.MeasureUS, DiscardHead: *c.DiscardHeadUS}
		j := slices.IndexFunc(out, func(o Window) bool {
			return o.Auto == w.Auto && o.Measure == w.Measure && o.DiscardHead == w.DiscardHead && (w.Auto || o.Warmup == w.Warmup)
		})
		if j < 0 {
			out = append(out, w)
			continue
		}
		if w.Auto {
			out[j].Warmup, out[j].WarmupMax = min(out[j].Warmup, w.Warmup), max(out[j].WarmupMax, w.WarmupMax)
		}
	}
	return out
}

func rowKey(point, candidate, baseline, metric string) string {
	return strings.Join([]string{point, candidate, baseline, metric}, "\x00")
}

// takeRows keeps the comparisons table's rows of the batch against its
// chosen baseline.
func (b *Batch) takeRows(rows []datasets.Comparison) {
	b.rows = map[string]datasets.Comparison{}
	b.margins = map[string]float64{}
	for _, r := range rows {
		if r.Batch == b.Name {
			// a comparison decided at an earlier look has that look's
			// level: the widest of them stands for the batch
			b.confidence = max(b.confidence, r.Confidence)
			b.margins[r.Metric] = r.Band
		}
	}
	if b.Baseline == nil {
		return
	}
	for _, r := range rows {
		if r.Batch == b.Name && r.Baseline == b.Baseline.Label {
			b.rows[rowKey(r.Point, r.Candidate, r.Baseline, r.Metric)] = r
		}
	}
}
