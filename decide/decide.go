package decide

import (
	"fmt"
	"math"

	"yardstick/stats"
)

// The four outcomes of a decision (docs/methodology.md#decisions).
const (
	// Better: the candidate's 95% interval lies wholly on the metric's
	// good side of 1 (a difference) and its ratio beyond the margin on
	// that side (a difference that matters).
	Better = "better"
	// Worse: the same on the bad side.
	Worse = "worse"
	// Equivalent: the interval lies inside ±margin: the two differ by less
	// than the smallest difference that matters, and that was measured.
	Equivalent = "equivalent"
	// Undecided: anything else; Decision.Reason says why.
	Undecided = "undecided"
)

// Outcomes are the four outcomes in their order of presentation.
var Outcomes = []string{Better, Worse, Equivalent, Undecided}

// MinStarts is the number of process starts each side needs for an
// interval from the starts alone: a metric with no within-start
// uncertainty (cold start, time to steady, RSS, CPU per request, p50,
// p99.9) and fewer starts on a side is undecided.
const MinStarts = 3

// A Start is one process start's figure of a metric: the value its kept
// window measured, with how well that window knows it.
type Start struct {
	Value float64
	// HalfWidth is the relative half-width of a 95% interval of Value
	// within its start (the kept window's block bootstrap, or its drift
	// if larger): 0.05 is ±5%. NaN: unknown. Drift inside a window is
	// noise within the start: it widens the start's interval, it never
	// leaves the start out.
	HalfWidth float64
	// NeverSteady says the start's load never reached a steady segment:
	// its figure is of a load still changing, and the start is left out
	// (the decision says how many were). It is the one reason besides a
	// failure to leave a start out.
	NeverSteady bool
}

// Decision is a candidate compared with a baseline on one metric.
type Decision struct {
	// Baseline and Candidate are the means of the two sides' starts.
	Baseline, Candidate float64
	// Ratio is Candidate / Baseline whatever the metric's direction;
	// Low and High bound its 95% interval. All NaN without an interval.
	Ratio, Low, High float64
	// Margin is the smallest relative difference that matters (0.05:
	// ±5%), as declared.
	Margin float64
	// Verdict is one of Better, Worse, Equivalent, Undecided.
	Verdict string
	// Reason says, in words, why the verdict is what it is, and Kind
	// what kind of reason it is.
	Reason string
	Kind   ReasonKind
	// StartsBaseline and StartsCandidate are the starts on each side that
	// count: all but those that never reached a steady state (left out,
	// and the reason says how many).
	StartsBaseline, StartsCandidate int
	// WithinOnly says a side had one start: the interval covers only the
	// noise within a start, not between starts.
	WithinOnly bool
	// MoreStarts estimates how many more starts per side would decide an
	// undecided comparison whose interval was too wide ([MoreStarts]);
	// 0 when decided or when more starts would not help (the ratio sits
	// on the margin).
	MoreStarts int
	// Confidence is the level of the interval: 0.95 for a fixed number of
	// starts, more at a look of a sequential design
	// ([Sequential.Confidence]).
	Confidence float64
}

// Options are how Decide compares.
type Options struct {
	// Margin is the smallest relative difference that matters.
	Margin float64
	// LowerIsBetter is true for latency, memory, CPU and times.
	LowerIsBetter bool
	// MinStarts, when above 0, is the fewest starts a side needs whatever
	// its within-start uncertainty: a metric whose within-start figure is
	// only a resolution (time to steady state, cold start), not a window's
	// measured noise, says nothing of the variance between starts.
	MinStarts int
	// Confidence is the interval's level; 0 is 0.95. A look of a
	// sequential design takes its level from Sequential.Confidence.
	Confidence float64
	// BeyondMargin claims a difference (better or worse) only when the
	// whole interval lies beyond the margin (fairness.rule
	// "beyond-margin"), not when it excludes no difference and the ratio
	// lies beyond the margin.
	BeyondMargin bool
}

// Between compares the candidate's starts with the baseline's. The
// interval of the ratio is two-level (hierarchical): the variance of the
// log of each side's mean counts the spread between process starts and
// the noise within each start's kept window (logMeanVariance: the closed
// form of resampling the starts, then each start within its own
// interval), and the interval is the log ratio ± Student's t quantile
// with Welch-Satterthwaite degrees of freedom, which keeps its coverage
// with as few as three starts a side, where percentile intervals are far
// too narrow. With one start on a side only the within-start level
// contributes (WithinOnly), and the comparison is undecided whatever its
// interval: the variance between starts is not in it. Every start counts
// but one whose load never reached a steady state (NeverSteady): leaving
// starts out by what they measured would select on the outcome.
func Between(base, cand []Start, o Options) (d Decision) {
	conf := o.Confidence
	if !(conf > 0 && conf < 1) {
		conf = 1 - Alpha
	}
	d = Decision{Ratio: math.NaN(), Low: math.NaN(), High: math.NaN(), Baseline: math.NaN(), Candidate: math.NaN(),
		Margin: max(o.Margin, 0), Verdict: Undecided, Confidence: conf}
	base, dropB := steadyStarts(base)
	cand, dropC := steadyStarts(cand)
	d.StartsBaseline, d.StartsCandidate = len(base), len(cand)
	defer d.noteDropped(dropB, dropC)
	reason, kind := undecidable(base, cand)
	if reason == "" && o.MinStarts > 0 && (len(base) < o.MinStarts || len(cand) < o.MinStarts) {
		reason = fmt.Sprintf("fewer than %d starts on a side (%d and %d): this metric has no within-start uncertainty beyond its resolution", o.MinStarts, len(base), len(cand))
		kind = ReasonFewStarts
	}
	if (dropB > 0 && len(base) == 0) || (dropC > 0 && len(cand) == 0) {
		reason = "not steady: no start of a side reached a steady state, so its figures estimate nothing stable"
		kind = ReasonNotSteady
	}
	if len(base) > 0 && len(cand) > 0 && kind != ReasonImpossible {
		d.Baseline, d.Candidate = meanValue(base), meanValue(cand)
		if d.Baseline > 0 {
			d.Ratio = d.Candidate / d.Baseline // the estimate, even undecided
		}
	}
	if reason != "" {
		d.Reason, d.Kind = reason, kind
		return d
	}
	if d.Baseline == 0 && d.Candidate == 0 {
		// every start of both sides measured exactly zero (steady from
		// the first interval, no tail at all): no difference, known
		d.Ratio, d.Low, d.High = 1, 1, 1
		d.Verdict, d.Reason = Equivalent, "every start of both sides measured 0"
		return d
	}
	if d.Baseline <= 0 || d.Candidate <= 0 {
		d.Reason = "one side's mean is zero, the other's not: no ratio"
		return d
	}
	d.Ratio = d.Candidate / d.Baseline
	vb, dfb := logMeanVariance(base)
	vc, dfc := logMeanVariance(cand)
	d.WithinOnly = len(base) == 1 || len(cand) == 1
	se := math.Sqrt(vb + vc)
	t := stats.TQuantile(1-(1-conf)/2, welchDF(vb, dfb, vc, dfc))
	lr := math.Log(d.Ratio)
	d.Low, d.High = math.Exp(lr-t*se), math.Exp(lr+t*se)
	d.decide(o.LowerIsBetter, o.BeyondMargin, t*se, max(len(base), len(cand)))
	return d
}

// undecidable is why no interval can be had, and its kind; "" when one
// can.
func undecidable(base, cand []Start) (string, ReasonKind) {
	if len(base) == 0 || len(cand) == 0 {
		return "no value on one side", ReasonOther
	}
	for _, side := range []struct {
		name string
		s    []Start
	}{{"baseline", base}, {"candidate", cand}} {
		for _, st := range side.s {
			if math.IsNaN(st.Value) || math.IsInf(st.Value, 0) || st.Value < 0 {
				return fmt.Sprintf("the %s has an impossible value (%g)", side.name, st.Value), ReasonImpossible
			}
		}
		if len(side.s) < MinStarts && !knownWithin(side.s) {
			return fmt.Sprintf("fewer than %d starts on a side (%d and %d) and no within-start uncertainty for this metric", MinStarts, len(base), len(cand)), ReasonFewStarts
		}
	}
	return "", ReasonOther
}

// steadyStarts are the starts whose load reached a steady state, and
// how many were left out.
func steadyStarts(s []Start) ([]Start, int) {
	out := make([]Start, 0, len(s))
	for _, st := range s {
		if !st.NeverSteady {
			out = append(out, st)
		}
	}
	return out, len(s) - len(out)
}

// noteDropped says in the reason how many starts were not steady.
func (d *Decision) noteDropped(base, cand int) {
	if base+cand > 0 && d.Kind != ReasonNotSteady {
		d.Reason += fmt.Sprintf(" (left out, never steady: %d baseline and %d candidate start(s))", base, cand)
	}
}

// knownWithin says whether every start has a within-start half-width.
func knownWithin(s []Start) bool {
	for _, st := range s {
		if math.IsNaN(st.HalfWidth) || st.HalfWidth < 0 {
			return false
		}
	}
	return true
}

func meanValue(s []Start) float64 {
	var sum float64
	for _, st := range s {
		sum += st.Value
	}
	return sum / float64(len(s))
}

// logMeanVariance is the variance of the log of the side's mean under
// the two-level (hierarchical) resampling of its starts, and its degrees
// of freedom (n-1 starts; +Inf with one start, whose within-start
// interval is itself a 95% interval).
//
// The starts' values already carry their within-start noise, so drawing
// each again from its own interval would count that noise twice. As in
// Davison and Hinkley's two-stage bootstrap of hierarchical data, the
// starts are shrunk towards their mean so that their spread is the
// between-start component alone (the starts' variance less the mean
// within-start variance, at least 0), drawn with replacement, then
// redrawn from their within-start intervals. That resampling's variance
// of the mean is known in closed form: the between-start component over
// n (with the n/(n-1) correction of a variance estimated from n starts)
// plus the mean within-start variance over n, which is the starts' own
// variance over n, or the windows' where the starts agree better than
// their windows claim; the log's variance is that over the mean squared.
// An earlier version drew 2,000 resamples instead: the same figure to
// within ±3%, but drawn from a seed fixed by the comparison's key, so
// every comparison of one name carried the same few percent of error in
// its width, and simulated A/A batches excluded 1 in 5.2% of 20,000
// runs where the design allows 5%.
//
// The sum is the starts' own spread, an estimate with n-1 degrees of
// freedom (an earlier version gave the within-start part infinite
// degrees of freedom by Welch and Satterthwaite, which rated the sum
// better known than the n starts it comes from). Where the starts agree
// better than their windows claim, the within-start part alone is the
// variance, with n-1 degrees of freedom too: the windows' half-widths
// are estimates of their own (at infinite degrees of freedom, A/A
// batches whose windows were noisier than their starts excluded 1 in
// 6.7% of 1,000 runs).
func logMeanVariance(s []Start) (float64, float64) {
	n := len(s)
	m := meanValue(s)
	var within float64 // mean within-start variance, absolute
	for _, st := range s {
		if h := st.HalfWidth; !math.IsNaN(h) && h > 0 {
			sd := st.Value * h / 1.959964
			within += sd * sd / float64(n)
		}
	}
	if !(m > 0) {
		return math.Inf(1), 1
	}
	if n == 1 {
		return within / (m * m), math.Inf(1)
	}
	var s2 float64
	for _, st := range s {
		s2 += (st.Value - m) * (st.Value - m)
	}
	s2 /= float64(n - 1)
	return max(s2, within) / float64(n) / (m * m), float64(n - 1)
}

// logRatioInterval is the mean of paired log ratios and the half-width of
// its 95% interval: Student's t quantile at n−1 degrees of freedom times
// the standard error, from the log ratios' sample variance, or from
// floor (a variance per log ratio known otherwise) where that is larger.
// It needs at least two log ratios.
func logRatioInterval(logs []float64, floor float64) (mean, hw float64) {
	n := float64(len(logs))
	var sum, sum2 float64
	for _, l := range logs {
		sum, sum2 = sum+l, sum2+l*l
	}
	mean = sum / n
	v := max((sum2/n-mean*mean)*n/(n-1), floor, 0)
	return mean, stats.TQuantile(0.975, n-1) * math.Sqrt(v/n)
}

// welchDF is the Welch-Satterthwaite degrees of freedom of a sum of two
// variances with dfa and dfb degrees of freedom each.
func welchDF(va, dfa, vb, dfb float64) float64 {
	num := (va + vb) * (va + vb)
	den := 0.0
	if va > 0 && !math.IsInf(dfa, 1) {
		den += va * va / dfa
	}
	if vb > 0 && !math.IsInf(dfb, 1) {
		den += vb * vb / dfb
	}
	if den == 0 {
		return math.Inf(1)
	}
	return max(num/den, 1)
}

// ManyStarts is the most starts per side that a reason proposes: beyond
// it, the estimate says that more of the same will not do.
const ManyStarts = 100

// decide sets the verdict from the interval and the ratio. hw is the log
// interval's half-width and n the larger number of starts, for the
// estimate of how many more would decide.
//
// Better or worse takes two things: the interval lies wholly on one side
// of 1 (the data show a difference: at a sequential look, at that look's
// confidence) and the ratio lies beyond the margin on that side (by its
// best estimate, the difference is one that matters). The interval need
// not clear the margin as well: a rule that asked for that (an earlier
// version) left a ratio of 0.87x [0.80, 0.96] against a 7% margin
// undecided after eight rounds, on starts that differed by a few percent
// and a difference nobody doubted. The error rate on an A/A pair is the
// interval's, since a difference is claimed only where the interval
// excludes none; what a difference smaller than the margin risks is
// measured too (docs/methodology.md#decisions). Equivalent takes the
// whole interval inside ±margin, as before (two one-sided tests). With
// beyondMargin (fairness.rule "beyond-margin") a difference is claimed
// only when the whole interval lies beyond the margin.
func (d *Decision) decide(lowerIsBetter, beyondMargin bool, hw float64, n int) {
	lo, hi := 1-d.Margin, 1+d.Margin
	good := func(r float64) bool { return r > hi }
	bad := func(r float64) bool { return r < lo }
	above := func(r float64) bool { return r > 1 }
	below := func(r float64) bool { return r < 1 }
	if lowerIsBetter {
		good, bad = bad, good
		above, below = below, above
	}
	if beyondMargin {
		above, below = good, bad
	}
	interval := fmt.Sprintf("%.3fx [%.3f, %.3f]", d.Ratio, d.Low, d.High)
	if math.Abs(d.Confidence-(1-Alpha)) > 1e-9 {
		interval += fmt.Sprintf(" (%.1f%% interval of a sequential look)", 100*d.Confidence)
	}
	// why words a decided difference: the whole interval beyond the
	// margin, or an interval beyond 1 around a ratio beyond the margin.
	why := func() string {
		if (good(d.Low) && good(d.High)) || (bad(d.Low) && bad(d.High)) {
			return fmt.Sprintf("%s lies beyond the margin ±%s", interval, pct(d.Margin))
		}
		return fmt.Sprintf("%s excludes no difference and its ratio lies beyond the margin ±%s", interval, pct(d.Margin))
	}
	switch {
	case good(d.Ratio) && above(d.Low) && above(d.High):
		d.Verdict, d.Reason = Better, why()
	case bad(d.Ratio) && below(d.Low) && below(d.High):
		d.Verdict, d.Reason = Worse, why()
	case d.Low >= lo && d.High <= hi:
		d.Verdict = Equivalent
		d.Reason = fmt.Sprintf("%s lies inside the margin ±%s", interval, pct(d.Margin))
	default:
		d.Reason, d.Kind = fmt.Sprintf("%s straddles the margin ±%s", interval, pct(d.Margin)), ReasonStraddles
		d.MoreStarts = moreStarts(d.Ratio, d.Margin, hw, n, beyondMargin)
		d.Reason += "; " + MoreStartsWords(d.MoreStarts)
	}
	if d.WithinOnly {
		d.withinOnly()
	}
}

// moreStarts is how many more starts per side would decide a comparison
// whose interval of half-width hw (in logs) straddles the margin, from n
// starts a side: the half-width shrinks as one over the square root of
// the starts, and it must shrink to the distance that decides. A ratio
// beyond the margin is decided once the interval excludes 1, so that
// distance is the ratio's from 1; a ratio inside the margin is decided
// (equivalent) once the interval fits inside the margin, so it is the
// ratio's distance from the nearer edge (and so it is for every ratio
// under the rule beyond-margin, where a difference is decided once the
// interval clears the margin). 0 when the ratio sits on the margin: more
// starts will not decide it.
func moreStarts(ratio, margin, hw float64, n int, beyondMargin bool) int {
	lr := math.Log(ratio)
	need := min(math.Abs(lr-math.Log(1+margin)), math.Abs(lr-math.Log(1-margin)))
	if (ratio > 1+margin || ratio < 1-margin) && !beyondMargin {
		need = math.Abs(lr)
	}
	if need <= 1e-3 || !(hw > 0) {
		return 0
	}
	all := float64(n) * (hw / need) * (hw / need)
	return max(int(math.Ceil(min(all, math.MaxInt32)))-n, 1)
}

// MoreStartsWords is the one way every output says how many more starts
// per side would decide a comparison (MoreStarts): the progress line,
// the summary, the comparisons table's reason and the report.
func MoreStartsWords(more int) string {
	switch {
	case more <= 0:
		return "the ratio sits on the margin, more starts will not decide it"
	case more > ManyStarts:
		return fmt.Sprintf("more than %d more starts per side would be needed: the noise is far wider than the margin, and a quieter machine or a wider margin would decide it sooner", ManyStarts)
	}
	if more == 1 {
		return "about 1 more start per side would decide it"
	}
	return fmt.Sprintf("about %d more starts per side would decide it", more)
}

// withinOnly leaves a comparison with one start on a side undecided,
// whatever its interval: that interval covers only the noise within the
// starts, and two starts of the same binary differ by more than that (an
// A/A of the demo, a run against its rerun, gave p99 1.56x [1.19, 2.06]).
// The interval is kept, for what it shows.
func (d *Decision) withinOnly() {
	was := d.Verdict
	d.Verdict = Undecided
	d.Reason = fmt.Sprintf("one start on a side (%d and %d), so the interval covers only the noise within a start, not between starts: %s",
		d.StartsBaseline, d.StartsCandidate, d.Reason)
	d.Kind = ReasonOneStart
	if missing := MinStarts - min(d.StartsBaseline, d.StartsCandidate); was != Undecided || d.MoreStarts < missing {
		d.MoreStarts = missing
	}
	if was != Undecided {
		d.Reason += fmt.Sprintf(" (it would be %s); %d starts per side would measure the noise between starts", was, MinStarts)
	}
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }
