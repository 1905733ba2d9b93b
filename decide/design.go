package decide

import (
	"slices"

	"yardstick/pipeline"
)

// A Design is what a batch's decisions take besides the cells: the
// margin of each metric, the confidence of the intervals, and which
// metrics are the batch's headline.
type Design struct {
	// Margin is the margin of every metric not in Margins.
	Margin float64
	// Margins are the margins declared per metric.
	Margins map[string]float64
	// Confidence is the intervals' level; 0 is 0.95.
	Confidence float64
	// Rule is how a difference is claimed (pipeline.RuleDifference, or
	// "", or pipeline.RuleBeyondMargin).
	Rule string
	// Headline are the metrics that lead the batch's answer, those its
	// adaptive repeats stop on (repeats.until); nil is each kind of
	// point's own (the package's Headline: throughput and p99, or a hold
	// point's three). A difference in one of them is claimed by the rule;
	// in any other metric only beyond the margin (BeyondMargin).
	Headline []string
}

// BeyondMargin says whether a difference in the metric called name is
// claimed only when its whole interval lies beyond the margin: under
// the rule beyond-margin, and for every metric outside the batch's
// headline. A batch decides eight metrics or more at every point, each
// at the error rate of its interval; an A/A pair would then be called
// better or worse on one of them far more often than on its headline.
// The other metrics are claimed by the stronger rule, which an A/A
// pair's interval almost never meets.
func (d Design) BeyondMargin(name string) bool {
	if d.Rule == pipeline.RuleBeyondMargin {
		return true
	}
	q := d.Headline
	if q == nil {
		q = slices.Concat(Headline(""), Headline("hold"))
	}
	return !slices.Contains(q, name)
}

// MarginOf is the margin of the metric named name.
func (d Design) MarginOf(name string) float64 {
	return pipeline.Fairness{Noise: d.Margin, Margins: d.Margins}.MarginOf(name)
}

// ClaimWords says when a difference in one of the headline metrics is
// claimed, in words, for the captions that explain the outcomes: "its
// interval excludes no difference and its ratio lies beyond the margin",
// or under the rule beyond-margin "its whole interval lies beyond the
// margin".
func (d Design) ClaimWords() string {
	if d.Rule == pipeline.RuleBeyondMargin {
		return "its whole interval lies beyond the margin"
	}
	return "its interval excludes no difference and its ratio lies beyond the margin"
}

// OthersWords says how the metrics outside the headline are claimed, as
// a parenthesis for the captions (with its leading space); "" under the
// rule beyond-margin, which claims every metric so.
func (d Design) OthersWords() string {
	if d.Rule == pipeline.RuleBeyondMargin {
		return ""
	}
	return " (a metric outside the batch's headline, repeats.until or else throughput and p99: only when its whole interval lies beyond the margin)"
}

// DesignOf is the design of batch b's decisions after its rounds st: a
// batch with adaptive repeats decides at the confidence of its
// sequential look (Sequential, Min to Max starts), any other at 95%; a
// rerun's fixed rounds do not look, and decide at 95% too. A nil batch
// (cells of no plan) has the default margin.
func DesignOf(b *pipeline.Batch, st pipeline.BatchRounds) Design {
	if b == nil {
		return Design{Margin: pipeline.DefaultMargin}
	}
	d := Design{Margin: b.Fairness.Noise, Margins: b.Fairness.Margins, Rule: b.Fairness.Rule}
	if len(b.RepeatsUntil) > 0 && !slices.Equal(b.RepeatsUntil, pipeline.DefaultUntil) {
		d.Headline = b.RepeatsUntil
	}
	if b.Adaptive() && st.Fixed == 0 {
		d.Confidence = Sequential{Min: b.RepeatsMin, Max: b.Repeats}.Confidence(max(st.Ran, b.RepeatsMin))
	}
	return d
}
