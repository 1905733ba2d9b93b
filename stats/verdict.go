// Package stats holds the statistics every stage shares: medians and
// spreads of repeats, and verdicts that compare two samples of one metric,
// a baseline and a candidate, the way benchstat does, with two additions
// docs/methodology.md#noise asks for: a declared noise band, and the noise
// each side measured in its own kept window.
//
// A sample is the values of one metric over the repeats of one
// configuration (three repeats of the same cell give three values). The
// comparison takes the median of each sample and their ratio, then decides:
//
//  1. Inside the declared noise: when |ratio - 1| is at most the larger of
//     the declared noise band and the observed spread of the repeats
//     ((max - min) / median of either sample), the verdict is [Tie]. Three
//     identical runs that spread 7.1% cannot tell 1.01x from 1.00x.
//  2. Inside the measured noise: when each side's kept window measured its
//     own noise (the relative half-width of a 95% interval of its figure,
//     see package stats/steady) and |ratio - 1| is at most the two
//     half-widths added, the verdict is [Tie] too: the two sides' 95%
//     intervals overlap (to first order), so identical code measured twice
//     on a noisy machine gets no verdict. A 20% difference between two
//     sides of ±15% each is a tie; between two sides of ±3% it is not.
//     [CompareMeasured] takes the half-widths; [Compare] has none.
//  3. Not significant: when both samples have at least [MinSamples] values,
//     a two-sided Mann-Whitney U test (exact without ties, normal
//     approximation with tie correction otherwise) must reject "same
//     distribution" at [Alpha]; otherwise the verdict is [Tie] too.
//  4. Otherwise the candidate is [Better] or [Worse], by the metric's
//     direction: for a lower-is-better metric (latency, memory) a ratio
//     below 1 is better.
//
// A verdict from fewer than [MinRepeats] values on a side is indicative
// ([Comparison.Indicative]): one or two repeats say nothing of how the
// next run would come out, whatever the bands.
//
// A tie renders as "~", like benchstat's insignificant delta. Caveats (too
// few samples for a test, a zero baseline) are data:
// [Comparison.Warnings].
//
// The package knows nothing of reports, tables or runs; the execute,
// fairness and report stages and the load generator benchmark use it.
package stats

import (
	"fmt"
	"math"
	"slices"
)

// The verdicts.
const (
	Better = "better"
	Worse  = "worse"
	Tie    = "tie"
	// NoData says a side had no usable value: no ratio, no verdict.
	NoData = "n/a"
)

// MinSamples is the number of values each side needs before Compare runs
// the Mann-Whitney U test.
const MinSamples = 5

// Alpha is the significance level of the test.
const Alpha = 0.05

// MinRepeats is the number of values each side needs before a verdict is
// more than indicative.
const MinRepeats = 3

// A Comparison is the outcome of comparing a candidate sample with a
// baseline sample.
type Comparison struct {
	// Baseline and Candidate are the medians of the two samples.
	Baseline, Candidate float64
	// Ratio is Candidate / Baseline, whatever the metric's direction: a
	// p99 ratio of 2 means the candidate's p99 is twice the baseline's.
	// It is NaN when undefined (an empty side, or a zero baseline with a
	// non-zero candidate).
	Ratio float64
	// Delta is Ratio - 1: +0.05 is 5% more than the baseline.
	Delta float64
	// Advantage is how much better the candidate is, as a factor above 1
	// when better: Ratio for a higher-is-better metric, 1 / Ratio for a
	// lower-is-better one.
	Advantage float64
	// Band is the declared tie band that applied: max(noise band, Spread).
	Band float64
	// Measured is the measured-noise tie band that applied: the two
	// sides' 95% half-widths added; NaN when either side's noise is
	// unknown (then only Band applied).
	Measured float64
	// NoiseBaseline and NoiseCandidate are the sides' measured noise, as
	// given (NaN: unknown).
	NoiseBaseline, NoiseCandidate float64
	// Indicative says a side had fewer than MinRepeats values.
	Indicative bool
	// Spread is the larger observed relative spread, (max - min) / median,
	// of the two samples; 0 with single values.
	Spread float64
	// Verdict is Better, Worse, Tie or NoData.
	Verdict string
	// Symbol is "~" for a tie, the signed delta ("+12.3%") for a
	// difference, "" without data.
	Symbol string
	// P is the two-sided Mann-Whitney U p-value; NaN when no test ran
	// (fewer than MinSamples values on a side). See Tested.
	P float64
	// Warnings are caveats about the comparison, in plain words.
	Warnings []string
}

// Unsteady says the verdict is a tie only because a side estimates
// nothing stable (its measured noise is +Inf: a kept window that was not
// steady), not because the two are alike.
func (c Comparison) Unsteady() bool {
	return c.Verdict == Tie && math.IsInf(c.Measured, 1) && math.Abs(c.Delta) > c.Band+1e-12 && (!c.Tested() || c.P <= Alpha)
}

// Tested says whether the Mann-Whitney U test ran.
func (c Comparison) Tested() bool { return !math.IsNaN(c.P) }

// Compare compares candidate with baseline for a metric where lower or
// higher is better, with the declared relative noise band (0.07 for 7%).
// NaN and infinite values are dropped (with a warning).
func Compare(baseline, candidate []float64, lowerIsBetter bool, noiseBand float64) Comparison {
	return CompareMeasured(baseline, candidate, lowerIsBetter, noiseBand, Noise{Baseline: math.NaN(), Candidate: math.NaN()})
}

// Noise is the measured noise of the two sides of a comparison: the
// relative half-width of a 95% interval of each side's figure (0.05 is
// ±5%); NaN or a negative value where it is unknown; +Inf where the
// figure estimates nothing stable (a kept window that was not in a steady
// state), so that no difference from it is a verdict. A caller that knows
// a figure less well than its interval says passes more: the report
// passes the larger of a kept window's noise and its drift.
type Noise struct {
	Baseline, Candidate float64
}

// CompareMeasured is Compare with the sides' measured noise: a difference
// inside the two half-widths added is a tie as well (see the package
// doc). An unknown noise on either side leaves the declared band alone to
// decide (Measured is then NaN: the caller says so where it matters).
func CompareMeasured(baseline, candidate []float64, lowerIsBetter bool, noiseBand float64, noise Noise) Comparison {
	c := Comparison{P: math.NaN(), Ratio: math.NaN(), Delta: math.NaN(), Advantage: math.NaN(),
		Baseline: math.NaN(), Candidate: math.NaN(), Measured: math.NaN(),
		NoiseBaseline: known(noise.Baseline), NoiseCandidate: known(noise.Candidate)}
	base, dropped := finite(baseline)
	cand, d2 := finite(candidate)
	if dropped+d2 > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d non-finite value(s) ignored", dropped+d2))
	}
	if len(base) == 0 || len(cand) == 0 {
		c.Verdict = NoData
		c.Warnings = append(c.Warnings, "no values on one side")
		return c
	}
	if noiseBand < 0 || math.IsNaN(noiseBand) {
		noiseBand = 0
	}
	c.Baseline, c.Candidate = Median(base), Median(cand)
	c.Spread = max(Spread(base), Spread(cand))
	c.Band = max(noiseBand, c.Spread)
	c.Indicative = len(base) < MinRepeats || len(cand) < MinRepeats
	switch {
	case math.IsInf(c.NoiseBaseline, 1) || math.IsInf(c.NoiseCandidate, 1):
		c.Measured = math.Inf(1) // a side that estimates nothing stable
	case !math.IsNaN(c.NoiseBaseline) && !math.IsNaN(c.NoiseCandidate):
		c.Measured = c.NoiseBaseline + c.NoiseCandidate
	}
	switch {
	case c.Baseline == 0 && c.Candidate == 0:
		c.Ratio = 1
	case c.Baseline == 0:
		c.Verdict = NoData
		c.Warnings = append(c.Warnings, "baseline median is zero: no ratio")
		return c
	default:
		c.Ratio = c.Candidate / c.Baseline
	}
	c.Delta = c.Ratio - 1
	c.Advantage = c.Ratio
	if lowerIsBetter {
		c.Advantage = 1 / c.Ratio
	}
	tie := math.Abs(c.Delta) <= c.Band+1e-12
	if !math.IsNaN(c.Measured) && math.Abs(c.Delta) <= c.Measured+1e-12 {
		tie = true
	}
	if len(base) >= MinSamples && len(cand) >= MinSamples {
		c.P = MannWhitneyU(base, cand)
		if c.P > Alpha {
			tie = true
		}
	} else if len(base) > 1 || len(cand) > 1 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d and %d values: no significance test (needs %d each)", len(base), len(cand), MinSamples))
	}
	switch {
	case tie:
		c.Verdict, c.Symbol = Tie, "~"
	case c.Advantage > 1:
		c.Verdict = Better
	default:
		c.Verdict = Worse
	}
	if c.Verdict != Tie {
		c.Symbol = fmt.Sprintf("%+.1f%%", 100*c.Delta)
	}
	return c
}

// known is v when it is a finite measured noise (>= 0), else NaN.
func known(v float64) float64 {
	if math.IsNaN(v) || v < 0 {
		return math.NaN()
	}
	return v
}

// Median is the median of xs (the mean of the middle two for an even
// count); NaN for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Spread is the relative spread of xs, (max - min) / median: 8438, 8871
// and 9066 spread 7.1%. It is 0 for fewer than two values or a zero
// median.
func Spread(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := Median(xs)
	if m == 0 {
		return 0
	}
	return (slices.Max(xs) - slices.Min(xs)) / math.Abs(m)
}

func finite(xs []float64) ([]float64, int) {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		out = append(out, x)
	}
	return out, len(xs) - len(out)
}
