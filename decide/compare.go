package decide

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"yardstick/datasets"
	"yardstick/pipeline"
)

// Compare compares the candidate cells with the baseline cells on metric
// m with the design's margin and confidence, as one comparisons row. A
// side with an unfair cell is undecided whatever its interval: the
// comparison itself is in doubt. Nothing is drawn at random: the same
// cells always give the same row.
func Compare(batch, point, candidate, baseline string, m Metric, base, cand []*datasets.Cell, design Design) datasets.Comparison {
	o := Options{Margin: design.MarginOf(m.Name), LowerIsBetter: m.LowerIsBetter, Confidence: design.Confidence,
		BeyondMargin: design.BeyondMargin(m.Name)}
	if m.HalfWidth == nil {
		o.MinStarts = MinStarts
	}
	d := Between(StartsOf(base, m), StartsOf(cand, m), o)
	row := datasets.Comparison{Batch: batch, Point: point, Candidate: candidate, Baseline: baseline, Metric: m.Name,
		Ratio: finitePtr(d.Ratio), CILow: finitePtr(d.Low), CIHigh: finitePtr(d.High), Band: d.Margin,
		Verdict: d.Verdict, Reason: d.Reason, RepeatsBaseline: int64(d.StartsBaseline), RepeatsCandidate: int64(d.StartsCandidate),
		WithinOnly: d.WithinOnly, Confidence: d.Confidence}
	row.Repeats = min(row.RepeatsBaseline, row.RepeatsCandidate)
	if d.MoreStarts > 0 {
		n := int64(d.MoreStarts)
		row.MoreRepeats = &n
	}
	if u := unfairChecks(base, cand); u != "" {
		Unfair(&row, u)
	}
	return row
}

// Unfair makes the decision undecided whatever its interval, because the
// comparison itself is in doubt for the reason why (the failed checks of
// an unfair cell; a machine busy in one of two runs): its reason then
// begins "unfair (why): " and keeps the interval's words.
func Unfair(c *datasets.Comparison, why string) {
	c.Verdict = Undecided
	c.Reason = "unfair (" + why + "): " + c.Reason
	c.MoreRepeats = nil
}

// KindOf is the kind of a comparisons row's reason, read from its words
// (ReasonKindOf): the table keeps the reason as text.
func KindOf(c datasets.Comparison) ReasonKind { return ReasonKindOf(c.Reason) }

func finitePtr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// unfairChecks lists the failed checks of the unfair cells on either
// side, or "" (steady_state, a check of older runs, is no doubt about
// the comparison: it is a note on the measurement).
func unfairChecks(sides ...[]*datasets.Cell) string {
	var checks []string
	for _, s := range sides {
		for _, c := range s {
			if c.Status != pipeline.StatusUnfair {
				continue
			}
			var failed string
			if c.UnfairChecks != nil {
				failed = *c.UnfairChecks
			}
			for _, u := range strings.Split(failed, ",") {
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

// Run builds the comparisons table of one run from its cells and
// batches: in every batch with a baseline, every other variant against it
// at every workload point both measured, on every metric of Metrics, as
// the batch's design decides them (Looks); batch gives each batch's plan
// and rounds (nil for a batch of no plan).
func Run(cells []datasets.Cell, batches []datasets.Batch, batch func(name string) (*pipeline.Batch, pipeline.BatchRounds)) []datasets.Comparison {
	var out []datasets.Comparison
	for _, b := range batches {
		var in []*datasets.Cell
		for i := range cells {
			if cells[i].Batch == b.Batch {
				in = append(in, &cells[i])
			}
		}
		var named string
		if b.Baseline != nil {
			named = *b.Baseline
		}
		base := BaselineVariant(in, named)
		if base == "" {
			continue
		}
		pb, st := batch(b.Batch)
		if pb == nil {
			out = append(out, Batch(b.Batch, in, base, Design{Margin: b.NoiseBand})...)
			continue
		}
		out = append(out, Looks(pb, in, base, st)...)
	}
	return out
}

// Looks decides batch b's cells as its design does after the rounds st.
// A batch with adaptive repeats looked after every round from its min
// on, each look at its own confidence (DesignOf): each comparison keeps
// the verdict and interval of the first look that decided it (the
// intervals of the looks are repeated confidence intervals, which hold
// the truth at every look at once with 95% probability, so a verdict
// taken at any look keeps the error rate: Jennison and Turnbull), else
// it is the last look's. A comparison whose cells include an unfair one
// is the last look's, undecided. Any other batch is decided once, at
// 95%.
func Looks(b *pipeline.Batch, cells []*datasets.Cell, baseline string, st pipeline.BatchRounds) []datasets.Comparison {
	last := Batch(b.Name, cells, baseline, DesignOf(b, st))
	if !b.Adaptive() || st.Fixed > 0 {
		return last
	}
	type key struct{ point, candidate, metric string }
	first := map[key]datasets.Comparison{}
	for r := b.RepeatsMin; r < st.Ran; r++ {
		var in []*datasets.Cell
		for _, c := range cells {
			if c.Repeat <= int64(r) {
				in = append(in, c)
			}
		}
		for _, c := range Batch(b.Name, in, baseline, DesignOf(b, pipeline.BatchRounds{Ran: r})) {
			k := key{c.Point, c.Candidate, c.Metric}
			if _, ok := first[k]; !ok && c.Verdict != Undecided {
				c.Reason = fmt.Sprintf("decided at round %d of %d: %s", r, st.Ran, c.Reason)
				first[k] = c
			}
		}
	}
	for i, c := range last {
		if f, ok := first[key{c.Point, c.Candidate, c.Metric}]; ok && KindOf(c) != ReasonUnfair {
			last[i] = f
		}
	}
	return last
}

// Batch compares every variant of a batch's cells with the baseline
// variant at every point, with the batch's design.
func Batch(batch string, cells []*datasets.Cell, baseline string, design Design) []datasets.Comparison {
	type key struct{ variant, point string }
	groups := map[key][]*datasets.Cell{}
	var variants, points []string
	modes := map[string]string{}
	seq := map[string]int64{}
	for _, c := range cells {
		if !datasets.Measured(c) {
			continue
		}
		pt := datasets.CellPoint(c)
		k := key{c.Variant, pt.Label()}
		modes[k.point] = pt.Mode
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
	var out []datasets.Comparison
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
				if m.Applies(modes[p]) {
					out = append(out, Compare(batch, p, v, baseline, m, base, cand, design))
				}
			}
		}
	}
	return out
}

// Guidance says how many more starts per side the undecided rows need,
// at most (MoreStartsWords); "" when none says.
func Guidance(undecided []datasets.Comparison) string {
	more := 0
	for _, c := range undecided {
		if c.MoreRepeats != nil {
			more = max(more, int(*c.MoreRepeats))
		}
	}
	if more == 0 {
		return ""
	}
	return MoreStartsWords(more)
}

// ShortReason is why a decision is undecided, in a few words: "not
// steady", "fewer than 3 starts", "one start a side: ...", "interval
// straddles the margin; about 9 more starts per side would decide it",
// an unfair check.
func ShortReason(c datasets.Comparison) string {
	r := c.Reason
	switch KindOf(c) {
	case ReasonUnfair:
		if i := strings.Index(r, ")"); i > 0 {
			return r[:i+1]
		}
	case ReasonNotSteady:
		return "not steady"
	case ReasonFewStarts:
		return fmt.Sprintf("fewer than %d starts", MinStarts)
	case ReasonOneStart:
		return fmt.Sprintf("one start a side: no noise between starts; %d starts per side would measure it", MinStarts)
	case ReasonStraddles:
		more := 0
		if c.MoreRepeats != nil {
			more = int(*c.MoreRepeats)
		}
		return "interval straddles the margin; " + MoreStartsWords(more)
	}
	return r
}
