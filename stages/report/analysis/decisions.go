package analysis

import (
	"maps"
	"math"
	"slices"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/pipeline"
	"yardstick/stats"
)

// At are the repeat sets of every variant measured at point p, in the
// batch's variant order.
func (b *Batch) At(p Point) []*RepeatSet {
	var gs []*RepeatSet
	for _, v := range b.Variants {
		if g := b.RepeatSet(v, p); g != nil {
			gs = append(gs, g)
		}
	}
	return gs
}

// Median is the median of the repeat set's measured values of m; false when
// it has none.
func (s *RepeatSet) Median(m Column) (float64, bool) {
	vs := s.Values(m)
	if len(vs) == 0 {
		return 0, false
	}
	return stats.Median(vs), true
}

// A Summary is a repeat set's values of one metric as the tables show
// them: how many, their median, and half their range relative to the
// median (0 for one value).
type Summary struct {
	N      int
	Median float64
	Spread float64
}

// SummaryOf summarises values.
func SummaryOf(vs []float64) Summary {
	if len(vs) == 0 {
		return Summary{}
	}
	return Summary{N: len(vs), Median: stats.Median(vs), Spread: stats.Spread(vs)}
}

// Summary is the repeat set's values of m, summarised.
func (s *RepeatSet) Summary(m Column) Summary { return SummaryOf(s.Values(m)) }

// CountMedian is the median of the repeat set's tail counts of m (a tail
// share's); false when it has none or m is no tail share.
func (s *RepeatSet) CountMedian(m Column) (float64, bool) {
	if m.Count == nil {
		return 0, false
	}
	vs := s.Counts(m)
	if len(vs) == 0 {
		return 0, false
	}
	return stats.Median(vs), true
}

// A SpectrumPoint is one percentile of a repeat set's latency spectrum:
// the median over its measured starts of the latency at that percentile.
type SpectrumPoint struct {
	Percentile float64
	LatencyUS  float64
}

// Spectrum is the repeat set's latency spectrum from the spectrum table's
// rows by cell id, in percentile order, without the maximum (percentile
// 100, shown in the tables and not plotted).
func (s *RepeatSet) Spectrum(byCell map[string][]datasets.SpectrumPoint) []SpectrumPoint {
	at := map[float64][]float64{}
	var ps []float64
	for _, c := range s.Measured {
		for _, sp := range byCell[c.CellID] {
			if sp.Percentile >= 100 {
				continue
			}
			if _, ok := at[sp.Percentile]; !ok {
				ps = append(ps, sp.Percentile)
			}
			at[sp.Percentile] = append(at[sp.Percentile], float64(sp.LatencyUS))
		}
	}
	slices.Sort(ps)
	out := make([]SpectrumPoint, 0, len(ps))
	for _, pc := range ps {
		out = append(out, SpectrumPoint{Percentile: pc, LatencyUS: stats.Median(at[pc])})
	}
	return out
}

// Winner returns the repeat set with the best median of m among gs, and its
// decision against the runner-up: Better makes it the winner; equivalent
// or undecided leave the point without one. nil when fewer than two
// repeat sets have a value.
func (b *Batch) Winner(m Column, gs []*RepeatSet) (*RepeatSet, datasets.Comparison) {
	type cand struct {
		g   *RepeatSet
		med float64
	}
	var cs []cand
	for _, g := range gs {
		if med, ok := g.Median(m); ok {
			cs = append(cs, cand{g, med})
		}
	}
	if len(cs) < 2 {
		return nil, datasets.Comparison{}
	}
	slices.SortStableFunc(cs, func(x, y cand) int {
		if m.Lower {
			return compareF(x.med, y.med)
		}
		return compareF(y.med, x.med)
	})
	return cs[0].g, b.Compare(m, cs[1].g, cs[0].g)
}

var nan = math.NaN()

func compareF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// WinCount is one metric's wins over a batch's workload points: by
// variant label, and of those the wins at a point with an unfair cell.
type WinCount struct {
	Count, Unfair                 map[string]int
	Equivalent, Undecided, Points int
}

// Wins counts metric m's winners over the batch's points.
func (b *Batch) Wins(m Column) WinCount {
	wc := WinCount{Count: map[string]int{}, Unfair: map[string]int{}}
	for _, p := range b.Points {
		gs := b.At(p)
		anyUnfair := slices.ContainsFunc(gs, func(g *RepeatSet) bool { return len(g.Unfair) > 0 })
		w, c := b.Winner(m, gs)
		if w == nil {
			continue
		}
		wc.Points++
		switch c.Verdict {
		case decide.Better:
			wc.Count[w.Variant.Label]++
			if anyUnfair {
				wc.Unfair[w.Variant.Label]++
			}
		case decide.Equivalent:
			wc.Equivalent++
		default:
			wc.Undecided++
		}
	}
	return wc
}

// A Peak is a variant's highest median throughput over the closed-loop
// concurrencies of one payload.
type Peak struct {
	Payload int64 // -1: no payload axis
	Set     *RepeatSet
	RPS     float64
}

// Peaks are the batch's peaks, by payload, then variant.
func (b *Batch) Peaks() []Peak {
	payloads := map[int64]bool{}
	for _, p := range b.Points {
		if p.Mode == "closed" {
			payloads[p.Payload] = true
		}
	}
	rps := ColumnByKey("throughput")
	var out []Peak
	for _, pl := range slices.Sorted(maps.Keys(payloads)) {
		for _, v := range b.Variants {
			best := Peak{Payload: pl, RPS: math.Inf(-1)}
			for _, p := range b.Points {
				if p.Mode != "closed" || p.Payload != pl {
					continue
				}
				if g := b.RepeatSet(v, p); g != nil {
					if med, ok := g.Median(rps); ok && med > best.RPS {
						best.Set, best.RPS = g, med
					}
				}
			}
			if best.Set != nil {
				out = append(out, best)
			}
		}
	}
	return out
}

// A RadarRow is one variant's radar scores against the baseline, one per
// RadarAxes: 100 + 30 × log10 of the geometric mean advantage over the
// points (NaN: no ratio at any point); Undecided says a candidate's axis
// had an undecided point.
type RadarRow struct {
	Variant   *Variant
	Scores    []float64
	Undecided []bool
	// Unfair says a repeat set of the variant had an unfair cell.
	Unfair bool
}

// Radar scores every variant of a batch with a baseline.
func (b *Batch) Radar() []RadarRow {
	var out []RadarRow
	for _, v := range b.Variants {
		r := RadarRow{Variant: v}
		for _, a := range RadarAxes {
			m := ColumnByKey(a.Key)
			var logSum float64
			var n int
			decided := true
			for _, p := range b.Points {
				base, g := b.RepeatSet(b.Baseline, p), b.RepeatSet(v, p)
				if base == nil || g == nil {
					continue
				}
				r.Unfair = r.Unfair || len(g.Unfair) > 0
				c := b.Compare(m, base, g)
				if c.Ratio == nil || !(*c.Ratio > 0) {
					continue
				}
				adv := *c.Ratio
				if m.Lower {
					adv = 1 / adv
				}
				logSum += math.Log10(adv)
				n++
				decided = decided && c.Verdict != decide.Undecided
			}
			score := math.NaN()
			if n > 0 {
				score = 100 + 30*logSum/float64(n)
			}
			r.Scores = append(r.Scores, score)
			r.Undecided = append(r.Undecided, v != b.Baseline && n > 0 && !decided)
		}
		out = append(out, r)
	}
	return out
}

// Outcome names a point's winner of a metric: the winning repeat set when
// its interval against the runner-up lies beyond the margin, else
// Verdict says equivalent or undecided; Measured is false when fewer than
// two variants were measured there.
type Outcome struct {
	Winner   *RepeatSet
	Verdict  string
	Decision datasets.Comparison
	Measured bool
}

// PointWinner is the winner of metric m at point p.
func (b *Batch) PointWinner(m Column, p Point) Outcome {
	w, c := b.Winner(m, b.At(p))
	if w == nil {
		return Outcome{}
	}
	o := Outcome{Verdict: c.Verdict, Decision: c, Measured: true}
	switch c.Verdict {
	case decide.Better:
		o.Winner = w
	case decide.Equivalent:
	default:
		o.Verdict = decide.Undecided
	}
	return o
}

// Overall folds per-point outcomes into one: the single outcome of every
// measured point ("" is not measured), else "undecided" when any point
// was, else "split"; "not measured" without any.
func Overall(per []string) string {
	var seen []string
	for _, w := range per {
		if w != "" && !slices.Contains(seen, w) {
			seen = append(seen, w)
		}
	}
	switch {
	case len(seen) == 0:
		return "not measured"
	case len(seen) == 1:
		return seen[0]
	case slices.Contains(seen, decide.Undecided):
		return decide.Undecided
	}
	return "split"
}

// A Dimension is variant v's decisions against the baseline on one
// metric over the batch's points, folded into one outcome: the same at
// every point, else undecided (Split says the points disagreed).
type Dimension struct {
	Outcome string
	Split   bool
	// Points and Decisions are the points both were measured at and the
	// decision at each.
	Points    []Point
	Decisions []datasets.Comparison
}

// Dimension folds variant v's decisions on m against the baseline.
func (b *Batch) Dimension(v *Variant, m Column) Dimension {
	var d Dimension
	var outcomes []string
	for _, p := range b.Points {
		base, g := b.RepeatSet(b.Baseline, p), b.RepeatSet(v, p)
		if base == nil || g == nil {
			continue
		}
		c := b.Compare(m, base, g)
		outcomes = append(outcomes, c.Verdict)
		d.Points, d.Decisions = append(d.Points, p), append(d.Decisions, c)
	}
	d.Outcome = Overall(outcomes)
	if d.Outcome == "split" {
		d.Outcome, d.Split = decide.Undecided, true
	}
	return d
}

// Compare decides metric m of candidate repeat set s against baseline
// repeat set base: the comparisons table's row where the run has one (the
// batch's declared baseline), else decided the same way (decide.Compare)
// from the two sets' cells, as for --baseline or between two candidates.
func (b *Batch) Compare(m Column, base, s *RepeatSet) datasets.Comparison {
	if r, ok := b.rows[rowKey(s.Point.Label(), s.Variant.Label, base.Variant.Label, m.Cmp)]; ok {
		return r
	}
	dm, _ := decide.MetricNamed(m.Cmp)
	d := b.Design()
	d.Confidence = b.confidence
	return decide.Compare(b.Name, s.Point.Label(), s.Variant.Label, base.Variant.Label, dm, base.Measured, s.Measured, d)
}

// Confidence is the highest level of the batch's comparisons table
// rows: 0.95, or the widest of its sequential looks'.
func (b *Batch) Confidence() float64 {
	if b.confidence == 0 {
		return 0.95
	}
	return b.confidence
}

// Design is the batch's margins, at 95%: the plain margin (the batches
// table's), and per metric the margin its comparisons table rows were
// decided with (the tables keep no other record of a margin declared
// per metric), else the plan's; and the plan's rule and headline.
func (b *Batch) Design() decide.Design {
	d := decide.Design{Margin: b.Noise, Margins: b.margins}
	if len(d.Margins) == 0 && b.Plan != nil {
		d.Margins = b.Plan.Fairness.Margins
	}
	if b.Plan != nil {
		d.Rule = b.Plan.Fairness.Rule
		d.Headline = decide.DesignOf(b.Plan, pipeline.BatchRounds{}).Headline
	}
	return d
}

// A Candidate is a candidate variant's repeat set at a point, with the
// baseline's repeat set there.
type Candidate struct {
	Point      Point
	Base, Cand *RepeatSet
}

// Candidates are the batch's candidates against its baseline, point by
// point and variant by variant: every variant but the baseline that both
// measured at the point; none without a baseline.
func (b *Batch) Candidates() []Candidate {
	if b.Baseline == nil {
		return nil
	}
	var out []Candidate
	for _, p := range b.Points {
		base := b.RepeatSet(b.Baseline, p)
		if base == nil {
			continue
		}
		for _, v := range b.Variants {
			if g := b.RepeatSet(v, p); g != nil && v != b.Baseline {
				out = append(out, Candidate{Point: p, Base: base, Cand: g})
			}
		}
	}
	return out
}
