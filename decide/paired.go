package decide

import (
	"fmt"
	"math"
)

// A Pair is one paired measurement: the baseline's and the candidate's
// figure from two adjacent short slices of load on processes that were
// both running all along, so that what drifts slower than a pair of
// slices lands on both sides (the alternating-slices design trial,
// docs/methodology.md#design-trial).
type Pair struct {
	Baseline, Candidate float64
}

// MinPairs is the fewest pairs a paired decision needs.
const MinPairs = 3

// Paired compares the candidate with the baseline from paired
// measurements. Each pair gives a log ratio, log(candidate / baseline);
// the pairs are taken as independent draws (the slices' order inside
// each pair random, so that a trend within a pair has no sign), and the
// interval is the mean log ratio ± Student's t quantile at n−1 degrees of
// freedom times its standard error. Ratio is the exponential of the mean
// log ratio (the geometric mean of the pairs' ratios), Low and High bound
// its 95% interval, and the verdict is Decide's: better, worse,
// equivalent or undecided against o.Margin. StartsBaseline and
// StartsCandidate are the number of pairs; o.MinStarts, when above
// MinPairs, raises the fewest pairs.
//
// A paired decision knows only the processes it measured: the noise
// between two starts of one binary is not in its interval.
func Paired(pairs []Pair, o Options) (d Decision) {
	d = Decision{Ratio: math.NaN(), Low: math.NaN(), High: math.NaN(), Baseline: math.NaN(), Candidate: math.NaN(),
		Margin: max(o.Margin, 0), Verdict: Undecided, Confidence: 1 - Alpha}
	n := len(pairs)
	d.StartsBaseline, d.StartsCandidate = n, n
	need := max(MinPairs, o.MinStarts)
	if n < need {
		d.Reason = fmt.Sprintf("fewer than %d pairs (%d)", need, n)
		return d
	}
	var sb, sc float64
	logs := make([]float64, n)
	for i, p := range pairs {
		if !(p.Baseline > 0) || !(p.Candidate > 0) || math.IsInf(p.Baseline, 0) || math.IsInf(p.Candidate, 0) {
			d.Reason = fmt.Sprintf("a pair has an impossible or zero value (%g, %g): no ratio", p.Baseline, p.Candidate)
			return d
		}
		logs[i] = math.Log(p.Candidate / p.Baseline)
		sb, sc = sb+p.Baseline, sc+p.Candidate
	}
	fn := float64(n)
	d.Baseline, d.Candidate = sb/fn, sc/fn
	mean, hw := logRatioInterval(logs, 0)
	d.Ratio, d.Low, d.High = math.Exp(mean), math.Exp(mean-hw), math.Exp(mean+hw)
	d.decide(o.LowerIsBetter, o.BeyondMargin, hw, n)
	return d
}
