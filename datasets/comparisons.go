package datasets

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"

	"yardstick/pipeline"
	"yardstick/stats"
)

// A Comparison is one row of the comparisons table: a candidate variant
// against its batch's baseline at one workload point, on one metric, as
// a ratio with a 95% interval and a verdict of package stats (better,
// worse, equivalent, undecided): one decision.
type Comparison struct {
	Batch     string
	Point     string
	Candidate string
	Baseline  string
	Metric    string
	Ratio     *float64
	CILow     *float64
	CIHigh    *float64
	Band      float64
	Verdict   string
	Reason    string
	// Kind is the reason's kind. It is no column: a row read back from
	// the table gets it from its reason (stats.ReasonKindOf).
	Kind stats.ReasonKind
	// Repeats is the smaller of the two sides' process starts;
	// RepeatsBaseline and RepeatsCandidate are each side's.
	Repeats          int64
	RepeatsBaseline  int64
	RepeatsCandidate int64
	// WithinOnly: a side had one start, so the interval covers only the
	// noise within a start.
	WithinOnly bool
	// MoreRepeats estimates how many more starts per side would decide
	// an undecided comparison whose interval was too wide
	// (stats.MoreStartsWords says it in words); null otherwise.
	MoreRepeats *int64
	// Confidence is the level of the interval: 0.95, or more at a look
	// of adaptive repeats (stats.Sequential).
	Confidence float64
}

// Comparisons is the comparisons table: one row per batch, workload
// point, candidate variant and metric, in batch, point, candidate and
// metric order.
var Comparisons = withKinds(newTable("comparisons",
	dictCol("batch", func(r *Comparison) *string { return &r.Batch }),
	dictCol("point", func(r *Comparison) *string { return &r.Point }),
	dictCol("candidate", func(r *Comparison) *string { return &r.Candidate }),
	dictCol("baseline", func(r *Comparison) *string { return &r.Baseline }),
	dictCol("metric", func(r *Comparison) *string { return &r.Metric }),
	optFloat64Col("ratio", func(r *Comparison) **float64 { return &r.Ratio }),
	optFloat64Col("ci_low", func(r *Comparison) **float64 { return &r.CILow }),
	optFloat64Col("ci_high", func(r *Comparison) **float64 { return &r.CIHigh }),
	float64Col("band", func(r *Comparison) *float64 { return &r.Band }),
	dictCol("verdict", func(r *Comparison) *string { return &r.Verdict }),
	textCol("reason", func(r *Comparison) *string { return &r.Reason }),
	int64Col("repeats", func(r *Comparison) *int64 { return &r.Repeats }),
	int64Col("repeats_baseline", func(r *Comparison) *int64 { return &r.RepeatsBaseline }),
	int64Col("repeats_candidate", func(r *Comparison) *int64 { return &r.RepeatsCandidate }),
	boolCol("within_only", func(r *Comparison) *bool { return &r.WithinOnly }),
	optInt64Col("more_repeats", func(r *Comparison) **int64 { return &r.MoreRepeats }),
	float64Col("confidence", func(r *Comparison) *float64 { return &r.Confidence }),
))

// withKinds gives every row read back from the comparisons table its
// reason's kind, which the table keeps as text only.
func withKinds(t *Table[Comparison]) *Table[Comparison] {
	t.afterRead = func(r *Comparison) { r.Kind = stats.ReasonKindOf(r.Reason) }
	return t
}

// A Metric is one compared metric: its name in the comparisons table,
// its direction, its value in a cell, and how well the cell's kept window
// knows it.
type Metric struct {
	Name          string
	LowerIsBetter bool
	// Load says the figure is of the load in the kept window: a window
	// that was not steady makes it estimate nothing stable.
	Load bool
	// Value is the cell's figure; false when the cell has none.
	Value func(*Cell) (float64, bool)
	// HalfWidth is the window's own relative 95% half-width of the
	// figure (the larger of its bootstrap noise and its drift); NaN when
	// the window measured none.
	HalfWidth func(*Cell) float64
	// Floor is the resolution of a figure measured without a window of
	// its own, in its unit: a value below it is the floor, and each value
	// is known to within ±Floor (a relative half-width Floor / value).
	// Time to steady state is placed by the changepoint search no better
	// than a second; cold start is polled every millisecond.
	Floor float64
}

// Metrics are the compared metrics, in the comparisons table's order.
var Metrics = []Metric{
	{Name: "throughput", Load: true, Value: func(c *Cell) (float64, bool) { return optF(c.RPS) },
		HalfWidth: func(c *Cell) float64 { return windowHalfWidth(c.NoiseRPS, c.KeptChange) }},
	{Name: "latency_p50", LowerIsBetter: true, Load: true, Value: func(c *Cell) (float64, bool) { return optI(c.LatencyP50US) }},
	// p99 is the kept window's merged histogram's, its within-start
	// uncertainty the block bootstrap's alone: the p99 series' drift is
	// that of the worst stalls of groups of intervals, no drift of the
	// window's p99, and the spread between starts is what measures it.
	{Name: "latency_p99", LowerIsBetter: true, Load: true, Value: func(c *Cell) (float64, bool) { return optI(c.LatencyP99US) },
		HalfWidth: func(c *Cell) float64 { return windowHalfWidth(c.NoiseP99, nil) }},
	{Name: "latency_p999", LowerIsBetter: true, Load: true, Value: func(c *Cell) (float64, bool) { return optI(c.LatencyP999US) }},
	{Name: "cpu_per_request", LowerIsBetter: true, Load: true, Value: func(c *Cell) (float64, bool) { return optF(c.CPUPerRequestUS) }},
	{Name: "rss", LowerIsBetter: true, Value: func(c *Cell) (float64, bool) { return optI(c.RSSSteadyBytes) }},
	{Name: "cold_start", LowerIsBetter: true, Value: func(c *Cell) (float64, bool) { return optI(c.ColdStartUS) }, Floor: 1000},
	{Name: "time_to_steady", LowerIsBetter: true, Value: func(c *Cell) (float64, bool) { return optI(c.SteadyStartUS) }, Floor: 1e6},
}

// MetricNamed is the compared metric called name.
func MetricNamed(name string) (Metric, bool) {
	i := slices.IndexFunc(Metrics, func(m Metric) bool { return m.Name == name })
	if i < 0 {
		return Metric{}, false
	}
	return Metrics[i], true
}

func optF(p *float64) (float64, bool) {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return 0, false
	}
	return *p, true
}

func optI(p *int64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return float64(*p), true
}

// windowHalfWidth is the larger of a window's measured noise and the
// size of its drift from its first third to its last: a window that rose
// 29% gives a figure that depends on where it was cut by about as much,
// which a bootstrap of its drifting intervals does not see.
func windowHalfWidth(noise, drift *float64) float64 {
	n, okN := optF(noise)
	d, okD := optF(drift)
	if !okN && !okD {
		return math.NaN()
	}
	return max(n, math.Abs(d))
}

// Starts are the cells' figures of metric m as the starts of one side of
// a decision: each cell is one process start of its variant at its
// point. A load figure of a cell whose load never reached a steady state
// is marked so (stats.Start.NeverSteady), and left out of the decision;
// a cell that drifted inside its kept window counts, its drift in its
// half-width.
func Starts(cells []*Cell, m Metric) []stats.Start {
	var out []stats.Start
	for _, c := range cells {
		v, ok := m.Value(c)
		if !ok {
			continue
		}
		hw := math.NaN()
		if m.HalfWidth != nil {
			hw = m.HalfWidth(c)
		}
		if m.Floor > 0 {
			v = max(v, m.Floor)
			hw = m.Floor / v
		}
		out = append(out, stats.Start{Value: v, HalfWidth: hw, NeverSteady: m.Load && NeverSteady(c)})
	}
	return out
}

// NeverSteady says a cell's load never reached a steady segment of the
// minimum length: its steady-state analysis could not run, or its
// throughput series has no final steady segment (no_steady_state) while
// nothing else saw one either. An adaptive warm-up that ended before its
// cap ended because it saw steadyFor of steady load: such a cell reached
// a steady state, whatever the series does later (a drift inside the
// kept window widens the start's interval). Such cells' load figures are
// left out of the decisions, and the comparisons say how many were;
// nothing else leaves a measured cell out.
func NeverSteady(c *Cell) bool {
	if c.SteadyError != nil {
		return true
	}
	if c.WarmupAuto != nil && *c.WarmupAuto && (c.WarmupCapped == nil || !*c.WarmupCapped) {
		return false
	}
	return c.SteadyClass != nil && *c.SteadyClass == pipeline.SteadyNone
}

// A Design is what a batch's decisions take besides the cells: the
// margin of each metric, and the confidence of the intervals.
type Design struct {
	// Margin is the margin of every metric not in Margins.
	Margin float64
	// Margins are the margins declared per metric.
	Margins map[string]float64
	// Confidence is the intervals' level; 0 is 0.95.
	Confidence float64
}

// MarginOf is the margin of the metric named name.
func (d Design) MarginOf(name string) float64 {
	if m, ok := d.Margins[name]; ok {
		return m
	}
	return d.Margin
}

// DesignOf is the design of batch b's decisions after its rounds st: a
// batch with adaptive repeats decides at the confidence of its
// sequential look (stats.Sequential, Min to Max starts), any other at
// 95%; a rerun's fixed rounds do not look, and decide at 95% too. A nil
// batch (cells of no plan) has the default margin.
func DesignOf(b *pipeline.Batch, st pipeline.BatchRounds) Design {
	if b == nil {
		return Design{Margin: pipeline.DefaultMargin}
	}
	d := Design{Margin: b.Fairness.Noise, Margins: b.Fairness.Margins}
	if b.Adaptive() && st.Fixed == 0 {
		d.Confidence = stats.Sequential{Min: b.RepeatsMin, Max: b.Repeats}.Confidence(max(st.Ran, b.RepeatsMin))
	}
	return d
}

// Decide compares the candidate cells with the baseline cells on metric
// m with the design's margin and confidence, as one comparisons row. A
// side with an unfair cell is undecided whatever its interval: the
// comparison itself is in doubt. The resampling is seeded by the row's
// key, so the same cells always give the same row.
func Decide(batch, point, candidate, baseline string, m Metric, base, cand []*Cell, design Design) Comparison {
	key := strings.Join([]string{batch, point, candidate, baseline, m.Name}, "\x00")
	h := fnv.New64a()
	h.Write([]byte(key))
	o := stats.Options{Margin: design.MarginOf(m.Name), LowerIsBetter: m.LowerIsBetter, Seed: h.Sum64(), Confidence: design.Confidence}
	if m.HalfWidth == nil {
		o.MinStarts = stats.MinStarts
	}
	d := stats.Decide(Starts(base, m), Starts(cand, m), o)
	row := Comparison{Batch: batch, Point: point, Candidate: candidate, Baseline: baseline, Metric: m.Name,
		Ratio: finitePtr(d.Ratio), CILow: finitePtr(d.Low), CIHigh: finitePtr(d.High), Band: d.Margin,
		Verdict: d.Verdict, Reason: d.Reason, Kind: d.Kind, RepeatsBaseline: int64(d.StartsBaseline), RepeatsCandidate: int64(d.StartsCandidate),
		WithinOnly: d.WithinOnly, Confidence: d.Confidence}
	row.Repeats = min(row.RepeatsBaseline, row.RepeatsCandidate)
	if d.MoreStarts > 0 {
		n := int64(d.MoreStarts)
		row.MoreRepeats = &n
	}
	if u := unfairChecks(base, cand); u != "" {
		row.Unfair(u)
	}
	return row
}

// Unfair makes the decision undecided whatever its interval, because the
// comparison itself is in doubt for the reason why (the failed checks of
// an unfair cell; a machine busy in one of two runs): its reason then
// begins "unfair (why): " and keeps the interval's words.
func (c *Comparison) Unfair(why string) {
	c.Verdict = stats.Undecided
	c.Reason, c.Kind = "unfair ("+why+"): "+c.Reason, stats.ReasonUnfair
	c.MoreRepeats = nil
}

func finitePtr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// unfairChecks lists the failed checks of the unfair cells on either
// side, or "" (steady_state, a check of older runs, is no doubt about
// the comparison: it is a note on the measurement).
func unfairChecks(sides ...[]*Cell) string {
	var checks []string
	for _, s := range sides {
		for _, c := range s {
			if c.Status != pipeline.StatusUnfair {
				continue
			}
			for _, u := range strings.Split(deref(c.UnfairChecks), ",") {
				if u = strings.TrimSpace(u); u != "" && u != "steady_state" && !slices.Contains(checks, u) {
					checks = append(checks, u)
				}
			}
			if c.UnfairChecks == nil && !slices.Contains(checks, "unfair") {
				checks = append(checks, "unfair")
			}
		}
	}
	slices.Sort(checks)
	return strings.Join(checks, ", ")
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// CellPoint is the workload point of a cell, as planned: an open-loop cell
// at a fraction of peak is that fraction, not the rate it reached.
func CellPoint(c *Cell) pipeline.Point {
	pt := pipeline.Point{Mode: c.Mode}
	if c.Payload != nil {
		n := int(*c.Payload)
		pt.Payload = &n
	}
	if c.Concurrency != nil {
		pt.Concurrency = int(*c.Concurrency)
	}
	if c.PeakFraction != nil {
		pt.PeakFraction = *c.PeakFraction
	} else if c.RateTarget != nil && c.Mode == "open" {
		pt.Rate = *c.RateTarget
	}
	return pt
}

// Measured says whether a cell has numbers: ok, or measured but unfair.
func Measured(c *Cell) bool {
	return c.Status == pipeline.StatusOK || c.Status == pipeline.StatusUnfair
}

// BaselineVariant is the variant that the name (a variant label, else a
// target whose first variant in plan order is taken) names among the
// batch's cells; "" when none does.
func BaselineVariant(cells []*Cell, name string) string {
	if name == "" {
		return ""
	}
	first := ""
	var firstSeq int64 = math.MaxInt64
	for _, c := range cells {
		if c.Variant == name {
			return name
		}
		if c.Target == name && c.Seq < firstSeq {
			first, firstSeq = c.Variant, c.Seq
		}
	}
	return first
}

// CompareRun builds the comparisons table of one run from its cells and
// batches: in every batch with a baseline, every other variant against it
// at every workload point both measured, on every metric of Metrics, as
// the batch's design decides them (CompareLooks); batch gives each
// batch's plan and rounds (nil for a batch of no plan).
func CompareRun(cells []Cell, batches []Batch, batch func(name string) (*pipeline.Batch, pipeline.BatchRounds)) []Comparison {
	var out []Comparison
	for _, b := range batches {
		var in []*Cell
		for i := range cells {
			if cells[i].Batch == b.Batch {
				in = append(in, &cells[i])
			}
		}
		base := BaselineVariant(in, deref(b.Baseline))
		if base == "" {
			continue
		}
		pb, st := batch(b.Batch)
		if pb == nil {
			out = append(out, CompareBatch(b.Batch, in, base, Design{Margin: b.NoiseBand})...)
			continue
		}
		out = append(out, CompareLooks(pb, in, base, st)...)
	}
	return out
}

// CompareLooks decides batch b's cells as its design does after the
// rounds st. A batch with adaptive repeats looked after every round from
// its min on, each look at its own confidence (DesignOf): each
// comparison keeps the verdict and interval of the first look that
// decided it (the intervals of the looks are repeated confidence
// intervals, which hold the truth at every look at once with 95%
// probability, so a verdict taken at any look keeps the error rate:
// Jennison and Turnbull), else it is the last look's. A comparison whose
// cells include an unfair one is the last look's, undecided. Any other
// batch is decided once, at 95%.
func CompareLooks(b *pipeline.Batch, cells []*Cell, baseline string, st pipeline.BatchRounds) []Comparison {
	last := CompareBatch(b.Name, cells, baseline, DesignOf(b, st))
	if !b.Adaptive() || st.Fixed > 0 {
		return last
	}
	type key struct{ point, candidate, metric string }
	first := map[key]Comparison{}
	for r := b.RepeatsMin; r < st.Ran; r++ {
		var in []*Cell
		for _, c := range cells {
			if c.Repeat <= int64(r) {
				in = append(in, c)
			}
		}
		for _, c := range CompareBatch(b.Name, in, baseline, DesignOf(b, pipeline.BatchRounds{Ran: r})) {
			k := key{c.Point, c.Candidate, c.Metric}
			if _, ok := first[k]; !ok && c.Verdict != stats.Undecided {
				c.Reason = fmt.Sprintf("decided at round %d of %d: %s", r, st.Ran, c.Reason)
				first[k] = c
			}
		}
	}
	for i, c := range last {
		if f, ok := first[key{c.Point, c.Candidate, c.Metric}]; ok && c.Kind != stats.ReasonUnfair {
			last[i] = f
		}
	}
	return last
}

// CompareBatch compares every variant of a batch's cells with the
// baseline variant at every point, with the batch's design.
func CompareBatch(batch string, cells []*Cell, baseline string, design Design) []Comparison {
	type key struct{ variant, point string }
	groups := map[key][]*Cell{}
	var variants, points []string
	seq := map[string]int64{}
	for _, c := range cells {
		if !Measured(c) {
			continue
		}
		k := key{c.Variant, CellPoint(c).Label()}
		groups[k] = append(groups[k], c)
		if _, ok := seq[c.Variant]; !ok {
			variants = append(variants, c.Variant)
			seq[c.Variant] = c.Seq
		}
		seq[c.Variant] = min(seq[c.Variant], c.Seq)
		if !slices.Contains(points, k.point) {
			points = append(points, k.point)
		}
	}
	slices.SortFunc(variants, func(a, b string) int { return cmp.Compare(seq[a], seq[b]) })
	slices.Sort(points)
	var out []Comparison
	for _, p := range points {
		base := groups[key{baseline, p}]
		if len(base) == 0 {
			continue
		}
		for _, v := range variants {
			cand := groups[key{v, p}]
			if v == baseline || len(cand) == 0 {
				continue
			}
			for _, m := range Metrics {
				out = append(out, Decide(batch, p, v, baseline, m, base, cand, design))
			}
		}
	}
	return out
}

// String is the row in words, for logs and tests.
func (c Comparison) String() string {
	return fmt.Sprintf("%s %s %s vs %s %s: %s (%s)", c.Batch, c.Point, c.Candidate, c.Baseline, c.Metric, c.Verdict, c.Reason)
}

// ShortReason is why a decision is undecided, in a few words: "not
// steady", "fewer than 3 starts", "one start a side: ...", "interval
// straddles the margin; about 9 more starts per side would decide it",
// an unfair check.
func (c Comparison) ShortReason() string {
	r := c.Reason
	switch c.Kind {
	case stats.ReasonUnfair:
		if i := strings.Index(r, ")"); i > 0 {
			return r[:i+1]
		}
	case stats.ReasonNotSteady:
		return "not steady"
	case stats.ReasonFewStarts:
		return fmt.Sprintf("fewer than %d starts", stats.MinStarts)
	case stats.ReasonOneStart:
		return fmt.Sprintf("one start a side: no noise between starts; %d starts per side would measure it", stats.MinStarts)
	case stats.ReasonStraddles:
		more := 0
		if c.MoreRepeats != nil {
			more = int(*c.MoreRepeats)
		}
		return "interval straddles the margin; " + stats.MoreStartsWords(more)
	}
	return r
}
