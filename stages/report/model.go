package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"yardstick/datasets"
	"yardstick/pipeline"
)

// A metric is one column of the main table.
type metric struct {
	key   string
	title string
	// lower says lower is better.
	lower bool
	// cmp names the metric in the comparisons table (datasets.Metrics);
	// "" for a column without decisions (tails, RSS after, max: max
	// varies 106-385% between identical runs).
	cmp    string
	get    func(*datasets.Cell) (float64, bool)
	format func(float64) string
	// count is the tail count shown beside a share.
	count func(*datasets.Cell) (float64, bool)
}

// ranked says the metric gets decisions, wins and radar scores.
func (m metric) ranked() bool { return m.cmp != "" }

func i64(p *int64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return float64(*p), true
}

func f64(p *float64) (float64, bool) {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return 0, false
	}
	return *p, true
}

// metrics are the main table's columns, in order.
var metrics = func() []metric {
	ms := []metric{
		{key: "rps", title: "rps", cmp: "throughput", get: func(c *datasets.Cell) (float64, bool) { return f64(c.RPS) }, format: fmtRPS},
		{key: "p50", title: "p50", lower: true, cmp: "latency_p50", get: func(c *datasets.Cell) (float64, bool) { return i64(c.LatencyP50US) }, format: fmtLatency},
		{key: "p99", title: "p99", lower: true, cmp: "latency_p99", get: func(c *datasets.Cell) (float64, bool) { return i64(c.LatencyP99US) }, format: fmtLatency},
		{key: "p999", title: "p99.9", lower: true, cmp: "latency_p999", get: func(c *datasets.Cell) (float64, bool) { return i64(c.LatencyP999US) }, format: fmtLatency},
	}
	for i, us := range datasets.TailThresholdsUS {
		ms = append(ms, metric{
			key: fmt.Sprintf("tail%dms", us/1000), title: fmt.Sprintf(">%d ms", us/1000), lower: true,
			get:    func(c *datasets.Cell) (float64, bool) { return f64(c.Tails[i].Share) },
			count:  func(c *datasets.Cell) (float64, bool) { return i64(c.Tails[i].Count) },
			format: fmtShare,
		})
	}
	return append(ms,
		metric{key: "max", title: "max (not ranked)", lower: true, get: func(c *datasets.Cell) (float64, bool) { return i64(c.LatencyMaxUS) }, format: fmtLatency},
		metric{key: "rss", title: "RSS load", lower: true, cmp: "rss", get: func(c *datasets.Cell) (float64, bool) { return i64(c.RSSSteadyBytes) }, format: fmtBytes},
		metric{key: "rss_after", title: "RSS after", lower: true, get: func(c *datasets.Cell) (float64, bool) { return i64(c.RSSAfterBytes) }, format: fmtBytes},
		metric{key: "cold", title: "cold start", lower: true, cmp: "cold_start", get: func(c *datasets.Cell) (float64, bool) { return i64(c.ColdStartUS) }, format: fmtColdStart},
		metric{key: "steady", title: "time to steady", lower: true, cmp: "time_to_steady", get: func(c *datasets.Cell) (float64, bool) { return i64(c.SteadyStartUS) }, format: fmtSeconds},
		metric{key: "cpu", title: "CPU/req", lower: true, cmp: "cpu_per_request", get: func(c *datasets.Cell) (float64, bool) { return f64(c.CPUPerRequestUS) }, format: fmtCPU},
	)
}()

func metricByKey(k string) metric {
	for _, m := range metrics {
		if m.key == k {
			return m
		}
	}
	panic("report: no metric " + k)
}

// radarAxes are the seven dimensions of the report's radar chart
// (docs/design.md#the-report-and-verdicts).
var radarAxes = []struct{ key, label string }{
	{"rps", "throughput"}, {"p50", "p50"}, {"p99", "p99"}, {"p999", "p99.9"},
	{"rss", "RSS under load"}, {"cold", "cold start"}, {"cpu", "CPU/request"},
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
}

// pointOf is the planned point of a cell. An open-loop cell at a fraction
// of peak is that fraction, not the rate it reached: each repeat measures
// its own peak.
func pointOf(c *datasets.Cell) Point {
	p := Point{Payload: -1, Concurrency: -1, Mode: c.Mode}
	if c.Payload != nil {
		p.Payload = *c.Payload
	}
	if c.Concurrency != nil {
		p.Concurrency = *c.Concurrency
	}
	if c.PeakFraction != nil {
		p.PeakFraction = *c.PeakFraction
	} else if c.RateTarget != nil && c.Mode == "open" {
		p.Rate = *c.RateTarget
	}
	return p
}

func comparePoints(a, b Point) int {
	return cmp.Or(cmp.Compare(a.Payload, b.Payload), cmp.Compare(a.Mode, b.Mode),
		cmp.Compare(a.Concurrency, b.Concurrency), cmp.Compare(a.PeakFraction, b.PeakFraction), cmp.Compare(a.Rate, b.Rate))
}

// plan is the point in the plan's form.
func (p Point) plan() pipeline.Point {
	pt := pipeline.Point{Mode: p.Mode, PeakFraction: p.PeakFraction, Rate: p.Rate}
	if p.Payload >= 0 {
		n := int(p.Payload)
		pt.Payload = &n
	}
	if p.Concurrency >= 0 {
		pt.Concurrency = int(p.Concurrency)
	}
	return pt
}

// Label names the point as cell names do: "c8-p128", "r2000", "r80pct"
// (pipeline.Point.Label). It keys samples, compare's rows and chart files.
func (p Point) Label() string { return p.plan().Label() }

// Caption is the point in words for captions and chart titles: "payload
// 128 B, concurrency 8".
func (p Point) Caption() string {
	var parts []string
	if p.Payload >= 0 {
		parts = append(parts, fmt.Sprintf("payload %d B", p.Payload))
	}
	switch {
	case p.Mode == "closed" && p.Concurrency >= 0:
		parts = append(parts, fmt.Sprintf("concurrency %d", p.Concurrency))
	case p.PeakFraction > 0:
		parts = append(parts, fmt.Sprintf("open loop at %s of peak", trimFloat(100*p.PeakFraction)+"%"))
	default:
		parts = append(parts, fmt.Sprintf("open loop at %s rps", trimFloat(p.Rate)))
	}
	return strings.Join(parts, ", ")
}

// A Variant is a target variant of a batch, with the knobs that are its
// preconditions.
type Variant struct {
	Label, Target, Kind string
	firstSeq            int64
	// Config is its knobs as read from the cells: processors, heap, GC.
	Config string
	// HeapBytes orders a heap gradient: the JVM heap or GOMEMLIMIT, -1
	// when unset.
	HeapBytes int64
	HeapLabel string
	Color     string
}

// newVariant is the variant of cell c, with its knobs.
func newVariant(c *datasets.Cell) *Variant {
	v := &Variant{Label: c.Variant, Target: c.Target, Kind: c.Kind, firstSeq: c.Seq, Config: configOf(c), HeapBytes: -1}
	switch {
	case c.HeapBytes != nil:
		v.HeapBytes, v.HeapLabel = *c.HeapBytes, "heap "+deref(c.Heap)
	case c.GoMemLimit != nil:
		v.HeapLabel = "GOMEMLIMIT " + *c.GoMemLimit
		if c.GoMemLimitBytes != nil {
			v.HeapBytes = *c.GoMemLimitBytes
		} else {
			v.HeapBytes = math.MaxInt64 // off: no limit
		}
	}
	return v
}

// A Sample is the repeats of one variant at one workload point: their
// measured values of a metric are one sample for the verdicts.
type Sample struct {
	Variant *Variant
	Point   Point
	Cells   []*datasets.Cell
	// Measured are the cells with numbers: status ok or unfair.
	Measured []*datasets.Cell
	// Unfair lists the failed fairness checks of any of its cells.
	Unfair                       []string
	OK, UnfairN, Failed, Pending int
}

// add counts cell c, one repeat of the sample, by its status.
func (s *Sample) add(c *datasets.Cell) {
	s.Cells = append(s.Cells, c)
	if datasets.Measured(c) {
		s.Measured = append(s.Measured, c)
	}
	switch c.Status {
	case pipeline.StatusOK:
		s.OK++
	case pipeline.StatusUnfair:
		s.UnfairN++
		for _, u := range strings.Split(deref(c.UnfairChecks), ",") {
			if u = strings.TrimSpace(u); u != "" && !slices.Contains(s.Unfair, u) {
				s.Unfair = append(s.Unfair, u)
			}
		}
	case pipeline.StatusFailed:
		s.Failed++
	default:
		s.Pending++
	}
}

func (s *Sample) values(m metric) []float64 {
	var vs []float64
	for _, c := range s.Measured {
		if v, ok := m.get(c); ok {
			vs = append(vs, v)
		}
	}
	return vs
}

func (s *Sample) counts(m metric) []float64 {
	var vs []float64
	for _, c := range s.Measured {
		if v, ok := m.count(c); ok {
			vs = append(vs, v)
		}
	}
	return vs
}

// A Batch is one batch of the run: reported on its own, never ranked
// against another.
type Batch struct {
	Name        string
	Description string
	Variants    []*Variant
	Points      []Point
	samples     map[string]*Sample
	// Noise is the declared margin: the smallest relative difference
	// that matters (batches table noise_band).
	Noise float64
	// Baseline is the baseline variant; nil leaves the batch without
	// ratios (BaselineNote says why).
	Baseline     *Variant
	BaselineNote string
	Plan         *pipeline.Batch
	Repeats      int64
	Windows      string
	cellIDs      map[string]*datasets.Cell
	// rows are the comparisons table's rows against Baseline, by point,
	// candidate, baseline and metric.
	rows map[string]datasets.Comparison
}

func sampleKey(v string, p Point) string { return v + "\x00" + p.Label() }

// Sample returns the sample of variant v at point p, or nil.
func (b *Batch) Sample(v *Variant, p Point) *Sample { return b.samples[sampleKey(v.Label, p)] }

// add puts cell c into its variant's sample at its point; a cell of a
// round of adaptive repeats that was not needed is in no sample.
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
	k := sampleKey(v.Label, p)
	s := b.samples[k]
	if s == nil {
		s = &Sample{Variant: v, Point: p}
		b.samples[k] = s
		if !slices.ContainsFunc(b.Points, func(q Point) bool { return comparePoints(p, q) == 0 }) {
			b.Points = append(b.Points, p)
		}
	}
	s.add(c)
	b.Repeats = max(b.Repeats, c.Repeat)
}

// palette colours the variants in plan order; the baseline is always the
// first colour.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// buildBatches groups the cells table by batch, variant and point, in
// batch name order.
func buildBatches(t *tables, baseline string) []*Batch {
	byName := map[string]*Batch{}
	for i := range t.cells {
		c := &t.cells[i]
		b := byName[c.Batch]
		if b == nil {
			b = &Batch{Name: c.Batch, samples: map[string]*Sample{}, cellIDs: map[string]*datasets.Cell{}}
			byName[c.Batch] = b
		}
		b.add(c)
	}
	var out []*Batch
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		b := byName[name]
		b.finish(t)
		chooseBaseline(b, baseline)
		b.takeRows(t.comparisons)
		b.colour()
		out = append(out, b)
	}
	return out
}

// finish orders the batch's points and variants and takes its
// preconditions from the batches table and its windows from the cells.
func (b *Batch) finish(t *tables) {
	slices.SortFunc(b.Points, comparePoints)
	slices.SortStableFunc(b.Variants, func(x, y *Variant) int { return cmp.Compare(x.firstSeq, y.firstSeq) })
	for _, s := range b.samples {
		slices.Sort(s.Unfair)
	}
	if t.plan != nil {
		for i := range t.plan.Batches {
			if t.plan.Batches[i].Name == b.Name {
				b.Plan = &t.plan.Batches[i]
			}
		}
	}
	if b.Plan != nil {
		b.Noise = b.Plan.Fairness.Noise
		b.Description = b.Plan.Description
	}
	b.Windows = windowsOf(t.cells, b.Name)
}

// colour gives the baseline the first colour and the others the next
// ones in plan order.
func (b *Batch) colour() {
	ci := 0
	if b.Baseline != nil {
		b.Baseline.Color = palette[0]
		ci = 1
	}
	for _, v := range b.Variants {
		if v != b.Baseline {
			v.Color = palette[ci%len(palette)]
			ci++
		}
	}
}

// chooseBaseline picks the batch's baseline: the --baseline flag, else
// the batch's declared baseline; a variant label matches first, then a
// target (its first variant in plan order).
func chooseBaseline(b *Batch, flag string) {
	name, from := flag, "--baseline"
	if name == "" && b.Plan != nil && b.Plan.Baseline != "" {
		name, from = b.Plan.Baseline, "the batch's declared baseline"
	}
	if name == "" {
		b.BaselineNote = fmt.Sprintf("No baseline declared for batch %s: no ratios, verdicts or radar (pass --baseline TARGET).", b.Name)
		return
	}
	cells := make([]*datasets.Cell, 0, len(b.cellIDs))
	for _, c := range b.cellIDs {
		cells = append(cells, c)
	}
	// The same rule as the comparisons table's: a variant label, else the
	// target's first variant in plan order.
	label := datasets.BaselineVariant(cells, name)
	for _, v := range b.Variants {
		if label != "" && v.Label == label {
			b.Baseline = v
		}
	}
	if b.Baseline == nil {
		b.BaselineNote = fmt.Sprintf("Baseline %q (%s) is not in batch %s: this batch has no ratios, verdicts or radar; ranking across batches is refused.", name, from, b.Name)
		return
	}
	b.BaselineNote = fmt.Sprintf("Baseline: %s (%s).", b.Baseline.Label, from)
}

func configOf(c *datasets.Cell) string {
	var parts []string
	if c.Processors != nil {
		parts = append(parts, fmt.Sprintf("%d proc", *c.Processors))
	}
	if c.GoMaxProcs != nil {
		parts = append(parts, fmt.Sprintf("GOMAXPROCS %d", *c.GoMaxProcs))
	}
	if c.GoMemLimit != nil {
		parts = append(parts, "GOMEMLIMIT "+*c.GoMemLimit)
	}
	if c.GoGC != nil {
		parts = append(parts, "GOGC "+*c.GoGC)
	}
	if c.Heap != nil {
		parts = append(parts, "heap "+*c.Heap)
	}
	if c.GC != nil {
		parts = append(parts, *c.GC)
	}
	if c.Flags != nil {
		parts = append(parts, "flags "+*c.Flags)
	}
	return strings.Join(parts, ", ")
}

// windowsOf describes the batch's windows from the cells table's
// warmup_us, measure_us and discard_head_us, listing each distinct set;
// adaptive warm-ups (warmup_auto) are one set, "warm-up auto", with the
// range the cells took.
func windowsOf(cells []datasets.Cell, batch string) string {
	var seen []string
	auto := map[string][2]int64{} // measure and discard head -> warm-up range
	for i := range cells {
		c := &cells[i]
		if c.Batch != batch || c.WarmupUS == nil || c.MeasureUS == nil || c.DiscardHeadUS == nil {
			continue
		}
		rest := fmt.Sprintf("measure %s, discard head %s", fmtDurUS(*c.MeasureUS), fmtDurUS(*c.DiscardHeadUS))
		if c.WarmupAuto != nil && *c.WarmupAuto {
			r, ok := auto[rest]
			if !ok {
				r = [2]int64{*c.WarmupUS, *c.WarmupUS}
			}
			auto[rest] = [2]int64{min(r[0], *c.WarmupUS), max(r[1], *c.WarmupUS)}
			continue
		}
		s := "warm-up " + fmtDurUS(*c.WarmupUS) + ", " + rest
		if !slices.Contains(seen, s) {
			seen = append(seen, s)
		}
	}
	for rest, r := range auto {
		seen = append(seen, fmt.Sprintf("warm-up auto (%s to %s), %s", fmtDurUS(r[0]), fmtDurUS(r[1]), rest))
	}
	if len(seen) == 0 {
		return "not measured"
	}
	slices.Sort(seen)
	return strings.Join(seen, "; ")
}

// compare decides metric m of candidate sample s against baseline sample
// base: the comparisons table's row where the run has one (the batch's
// declared baseline), else decided the same way (datasets.Decide) from
// the two samples' cells, as for --baseline or between two candidates.
func (b *Batch) compare(m metric, base, s *Sample) datasets.Comparison {
	if r, ok := b.rows[rowKey(s.Point.Label(), s.Variant.Label, base.Variant.Label, m.cmp)]; ok {
		return r
	}
	dm, _ := datasets.MetricNamed(m.cmp)
	return datasets.Decide(b.Name, s.Point.Label(), s.Variant.Label, base.Variant.Label, dm, base.Measured, s.Measured, b.Noise)
}

func rowKey(point, candidate, baseline, metric string) string {
	return strings.Join([]string{point, candidate, baseline, metric}, "\x00")
}

// takeRows keeps the comparisons table's rows of the batch against its
// chosen baseline.
func (b *Batch) takeRows(rows []datasets.Comparison) {
	b.rows = map[string]datasets.Comparison{}
	if b.Baseline == nil {
		return
	}
	for _, r := range rows {
		if r.Batch == b.Name && r.Baseline == b.Baseline.Label {
			b.rows[rowKey(r.Point, r.Candidate, r.Baseline, r.Metric)] = r
		}
	}
}

// preconditions is the batch-wide precondition line every table carries.
func (b *Batch) preconditions() string {
	parts := []string{"batch " + b.Name}
	if b.Plan != nil {
		cpu := "CPU sets: target " + orDash(b.Plan.Placement.Target.String())
		if len(b.Plan.Placement.Services) > 0 {
			cpu += ", services " + b.Plan.Placement.Services.String()
		}
		cpu += ", load generator " + orDash(b.Plan.Placement.Loadgen.String())
		parts = append(parts, cpu, fmt.Sprintf("processors %d", b.Plan.Processors))
	}
	parts = append(parts, b.Windows, fmt.Sprintf("repeats %d", b.Repeats))
	if b.Plan != nil {
		parts = append(parts, "noise band "+fmtPct(b.Noise))
	} else {
		parts = append(parts, "noise band unknown (0)")
	}
	return strings.Join(parts, " · ")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
