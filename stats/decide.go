package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// The four outcomes of a decision (docs/methodology.md#decisions).
const (
	// Better: the candidate's 95% interval lies beyond the margin on the
	// metric's good side.
	Better = "better"
	// Worse: the interval lies beyond the margin on the bad side.
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

// Resamples is the number of hierarchical bootstrap resamples of a
// decision.
const Resamples = 2000

// A Start is one process start's figure of a metric: the value its kept
// window measured, with how well that window knows it.
type Start struct {
	Value float64
	// HalfWidth is the relative half-width of a 95% interval of Value
	// within its start (the kept window's block bootstrap, or its drift
	// if larger): 0.05 is ±5%. NaN: unknown. +Inf: the window was not
	// steady, so Value estimates nothing stable.
	HalfWidth float64
	// Round is the round of adaptive repeats (or of a rounds order) the
	// start ran in, from 1; 0: none. Options.ByRound pairs the two sides'
	// starts of the same round.
	Round int
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
	// were steady (the others are left out, and the reason says so).
	StartsBaseline, StartsCandidate int
	// WithinOnly says a side had one start: the interval covers only the
	// noise within a start, not between starts.
	WithinOnly bool
	// MoreStarts estimates how many starts per side in all would decide
	// an undecided comparison whose interval was too wide (the half-width
	// shrinks as one over the square root of the starts); 0 when decided
	// or when more starts would not help (the ratio sits on the margin).
	MoreStarts int
	// Rounds is the number of rounds whose starts were paired (ByRound);
	// 0 when the sides were compared unpaired.
	Rounds int
}

// Options are how Decide compares.
type Options struct {
	// Margin is the smallest relative difference that matters.
	Margin float64
	// LowerIsBetter is true for latency, memory, CPU and times.
	LowerIsBetter bool
	// Seed seeds the resampling, so that the same inputs give the same
	// interval.
	Seed uint64
	// MinStarts, when above 0, is the fewest starts a side needs whatever
	// its within-start uncertainty: a metric whose within-start figure is
	// only a resolution (time to steady state, cold start), not a window's
	// measured noise, says nothing of the variance between starts.
	MinStarts int
	// ByRound says the starts ran in rounds (every variant started once
	// per round, in an order shuffled per round): each side's start is
	// paired with the other side's start of the same round, so that what
	// changes more slowly than a round (the machine's speed) lands on
	// both sides of the ratio. A round where a start was not steady is
	// left out of the pairs; with fewer than MinStarts pairs, or pairs
	// from fewer than half the rounds that ran, the sides are compared
	// unpaired: pairing would throw away more starts than it gains.
	ByRound bool
}

// Decide compares the candidate's starts with the baseline's. The
// interval of the ratio comes from a two-level (hierarchical) bootstrap:
// process starts are resampled with replacement, and each drawn start's
// value is redrawn from its own within-start interval (a normal with the
// start's half-width), so that both the variance between starts and the
// variance within a start are in it. The bootstrap gives the standard
// error of the log of each side's mean (corrected by n/(n-1) for n
// starts); the interval is the log ratio ± Student's t quantile with
// Welch-Satterthwaite degrees of freedom, which keeps its 95% coverage
// with as few as three starts a side, where percentile intervals are far
// too narrow. With one start on a side only the within-start level
// contributes (WithinOnly), and the comparison is undecided whatever its
// interval: the variance between starts is not in it. A start whose kept window was not steady (an
// infinite half-width) is left out; a side left with none is undecided.
func Decide(base, cand []Start, o Options) (d Decision) {
	d = Decision{Ratio: math.NaN(), Low: math.NaN(), High: math.NaN(), Baseline: math.NaN(), Candidate: math.NaN(),
		Margin: max(o.Margin, 0), Verdict: Undecided}
	ran := 0 // rounds that ran, steady or not: counted before the unsteady starts are left out
	if o.ByRound {
		ran = roundsRun(base, cand)
	}
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
		reason = "not steady: no start of a side had a steady kept window, so its figures estimate nothing stable"
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
	if o.ByRound {
		if pairs := roundPairs(base, cand); len(pairs) >= max(MinStarts, o.MinStarts) && 2*len(pairs) >= ran && positive(pairs) {
			d.byRound(pairs, o.LowerIsBetter)
			return d
		}
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	vb, dfb := logMeanVariance(base, rng)
	vc, dfc := logMeanVariance(cand, rng)
	d.WithinOnly = len(base) == 1 || len(cand) == 1
	se := math.Sqrt(vb + vc)
	t := tQuantile975(welchDF(vb, dfb, vc, dfc))
	lr := math.Log(d.Ratio)
	d.Low, d.High = math.Exp(lr-t*se), math.Exp(lr+t*se)
	d.decide(o.LowerIsBetter, t*se, float64(max(len(base), len(cand))), "starts per side")
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

// steadyStarts are the starts whose kept window was steady (a finite
// half-width or none measured), and how many were left out: a start that
// was not steady estimates nothing stable, and more rounds can still
// decide without it.
func steadyStarts(s []Start) ([]Start, int) {
	out := make([]Start, 0, len(s))
	for _, st := range s {
		if !math.IsInf(st.HalfWidth, 1) {
			out = append(out, st)
		}
	}
	return out, len(s) - len(out)
}

// noteDropped says in the reason how many starts were not steady.
func (d *Decision) noteDropped(base, cand int) {
	if base+cand > 0 && d.Kind != ReasonNotSteady {
		d.Reason += fmt.Sprintf(" (left out, not steady: %d baseline and %d candidate start(s))", base, cand)
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

// logMeanVariance is the hierarchical bootstrap's variance of the log of
// the side's mean, and its degrees of freedom (n-1 starts; +Inf with one
// start, whose within-start interval is itself a 95% interval).
//
// The starts' values already carry their within-start noise, so drawing
// each again from its own interval would count that noise twice. As in
// Davison and Hinkley's two-stage bootstrap of hierarchical data, the
// starts are first shrunk towards their mean so that their spread is the
// between-start component alone (the starts' variance less the mean
// within-start variance, at least 0), then drawn with replacement, then
// redrawn from their within-start intervals. Starts that agree better than
// their windows claim are treated as no better known than their windows.
func logMeanVariance(s []Start, rng *rand.Rand) (float64, float64) {
	n := len(s)
	sd := make([]float64, n) // absolute within-start standard deviations
	var within float64
	for i, st := range s {
		if h := st.HalfWidth; !math.IsNaN(h) && h > 0 {
			sd[i] = st.Value * h / 1.959964
		}
		within += sd[i] * sd[i] / float64(n)
	}
	u := shrunk(s, within)
	var total, between moments
	for range Resamples {
		var mb, mt float64
		for range n {
			j := 0
			if n > 1 {
				j = rng.IntN(n)
			}
			mb += u[j]
			mt += u[j] + sd[j]*rng.NormFloat64()
		}
		if mt <= 0 || mb <= 0 {
			continue
		}
		total.add(math.Log(mt / float64(n)))
		between.add(math.Log(mb / float64(n)))
	}
	if total.n < 2 {
		return math.Inf(1), 1
	}
	vt, vb := total.variance(), between.variance()
	if n == 1 {
		return vt, math.Inf(1)
	}
	// Only the between-start part is estimated from the n starts: it
	// gets the n/(n-1) correction and carries the n-1 degrees of freedom;
	// the within-start part is known from the windows' own intervals.
	vb *= float64(n) / float64(n-1)
	vw := max(vt-between.variance(), 0)
	v := vb + vw
	if vb == 0 {
		return v, math.Inf(1)
	}
	return v, float64(n-1) * v * v / (vb * vb)
}

// roundsRun is the number of rounds the two sides' starts ran in.
func roundsRun(base, cand []Start) int {
	seen := map[int]bool{}
	for _, s := range [][]Start{base, cand} {
		for _, st := range s {
			if st.Round > 0 {
				seen[st.Round] = true
			}
		}
	}
	return len(seen)
}

// roundPairs are the two sides' starts of the same round, in round
// order: a round with no start, or more than one, on a side is left out.
func roundPairs(base, cand []Start) [][2]Start {
	byRound := func(s []Start) map[int]Start {
		m := map[int]Start{}
		seen := map[int]int{}
		for _, st := range s {
			if st.Round > 0 {
				m[st.Round] = st
				seen[st.Round]++
			}
		}
		for r, n := range seen {
			if n > 1 {
				delete(m, r)
			}
		}
		return m
	}
	b, c := byRound(base), byRound(cand)
	var rounds []int
	for r := range b {
		if _, ok := c[r]; ok {
			rounds = append(rounds, r)
		}
	}
	slices.Sort(rounds)
	out := make([][2]Start, len(rounds))
	for i, r := range rounds {
		out[i] = [2]Start{b[r], c[r]}
	}
	return out
}

// positive says every paired value is above zero, so that each pair
// has a log ratio.
func positive(pairs [][2]Start) bool {
	for _, p := range pairs {
		if !(p[0].Value > 0) || !(p[1].Value > 0) {
			return false
		}
	}
	return true
}

// byRound decides from starts paired by round (a randomized block
// design: Abedi and Brecht's multiple interleaved trials). Each round
// gives a log ratio of its two starts; the interval is their mean ± the
// t quantile at rounds−1 degrees of freedom times its standard error.
// The log ratios' spread holds the noise between starts that a round does
// not share, and the noise within them; where the rounds agree better
// than the starts' own windows claim, the windows' noise is taken (as in
// the unpaired decision, no start is better known than its window). Ratio
// is the geometric mean of the rounds' ratios.
func (d *Decision) byRound(pairs [][2]Start, lowerIsBetter bool) {
	logs := make([]float64, len(pairs))
	var within float64
	for i, p := range pairs {
		logs[i] = math.Log(p[1].Value / p[0].Value)
		for _, st := range p {
			if h := st.HalfWidth; !math.IsNaN(h) && h > 0 {
				within += (h / 1.959964) * (h / 1.959964) / float64(len(pairs))
			}
		}
	}
	mean, hw := logRatioInterval(logs, within)
	d.Rounds = len(pairs)
	d.Ratio, d.Low, d.High = math.Exp(mean), math.Exp(mean-hw), math.Exp(mean+hw)
	d.decide(lowerIsBetter, hw, float64(len(pairs)), "rounds")
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
	return mean, tQuantile975(n-1) * math.Sqrt(v/n)
}

// moments accumulates a mean and a variance.
type moments struct {
	n         int
	sum, sum2 float64
}

func (m *moments) add(x float64) { m.n++; m.sum += x; m.sum2 += x * x }

func (m *moments) variance() float64 {
	if m.n < 2 {
		return 0
	}
	mean := m.sum / float64(m.n)
	return max(m.sum2/float64(m.n)-mean*mean, 0)
}

// shrunk is the starts' values shrunk towards their mean so that their
// sample variance is the between-start component: the sample variance
// less the mean within-start variance, at least 0.
func shrunk(s []Start, within float64) []float64 {
	n := len(s)
	m := meanValue(s)
	u := make([]float64, n)
	var s2 float64
	for _, st := range s {
		s2 += (st.Value - m) * (st.Value - m)
	}
	if n > 1 {
		s2 /= float64(n - 1)
	}
	c := 0.0
	if s2 > 0 {
		c = math.Sqrt(max(s2-within, 0) / s2)
	}
	for i, st := range s {
		u[i] = m + c*(st.Value-m)
	}
	return u
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

// tTable is Student's t 0.975 quantile at the degrees of freedom in tDF.
var (
	tDF    = []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 25, 30, 40, 60, 120}
	tTable = []float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.179, 2.131, 2.086, 2.060, 2.042, 2.021, 2.000, 1.980}
)

// tQuantile975 is Student's t 0.975 quantile at df degrees of freedom
// (linear in 1/df between the table's entries; 1.96 at infinity).
func tQuantile975(df float64) float64 {
	if math.IsInf(df, 1) || df > 120 {
		x := 0.0
		if !math.IsInf(df, 1) {
			x = 120 / df
		}
		return 1.959964 + x*(1.980-1.959964)
	}
	df = max(df, 1)
	for i := 1; i < len(tDF); i++ {
		if df <= tDF[i] {
			a, b := 1/tDF[i-1], 1/tDF[i]
			f := (1/df - b) / (a - b)
			return tTable[i] + f*(tTable[i-1]-tTable[i])
		}
	}
	return tTable[len(tTable)-1]
}

// ManyStarts is the most starts per side that a reason proposes: beyond
// it, the estimate says that more of the same will not do.
const ManyStarts = 100

// decide sets the verdict from the interval: beyond the margin on one
// side, inside it, or neither. hw is the log interval's half-width and n
// the larger number of starts (or the pairs), for the estimate of how many
// would decide; unit names them in the reason.
func (d *Decision) decide(lowerIsBetter bool, hw, n float64, unit string) {
	lo, hi := 1-d.Margin, 1+d.Margin
	good := func(r float64) bool { return r > hi }
	bad := func(r float64) bool { return r < lo }
	if lowerIsBetter {
		good, bad = bad, good
	}
	interval := fmt.Sprintf("%.3fx [%.3f, %.3f]", d.Ratio, d.Low, d.High)
	if d.Rounds > 0 {
		interval += fmt.Sprintf(" (%d rounds, paired)", d.Rounds)
	}
	switch {
	case good(d.Low) && good(d.High):
		d.Verdict = Better
		d.Reason = fmt.Sprintf("%s lies beyond the margin ±%s", interval, pct(d.Margin))
	case bad(d.Low) && bad(d.High):
		d.Verdict = Worse
		d.Reason = fmt.Sprintf("%s lies beyond the margin ±%s", interval, pct(d.Margin))
	case d.Low >= lo && d.High <= hi:
		d.Verdict = Equivalent
		d.Reason = fmt.Sprintf("%s lies inside the margin ±%s", interval, pct(d.Margin))
	default:
		d.Reason, d.Kind = fmt.Sprintf("%s straddles the margin ±%s", interval, pct(d.Margin)), ReasonStraddles
		// the half-width that would fit: inside the band, or beyond it
		off := math.Abs(math.Log(d.Ratio))
		need := math.Abs(math.Log(hi) - off) // to fit inside the margin, or beyond it
		if need > 1e-3 && hw > 0 {
			d.MoreStarts = int(math.Ceil(min(n*(hw/need)*(hw/need), math.MaxInt32)))
			if d.MoreStarts > ManyStarts {
				d.Reason += fmt.Sprintf("; more than %d %s would be needed: the noise is far wider than the margin, and a quieter machine, longer windows or a wider margin would decide it sooner", ManyStarts, unit)
			} else {
				d.Reason += fmt.Sprintf("; about %d %s would decide it", d.MoreStarts, unit)
			}
		} else {
			d.Reason += "; the ratio sits on the margin, more " + strings.Fields(unit)[0] + " will not decide it"
		}
	}
	if d.WithinOnly {
		d.withinOnly()
	}
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
	if was != Undecided {
		d.MoreStarts = MinStarts
		d.Reason += fmt.Sprintf(" (it would be %s); %d starts per side would measure the noise between starts", was, MinStarts)
	} else if d.MoreStarts > 0 && d.MoreStarts < MinStarts {
		d.MoreStarts = MinStarts
	}
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }
