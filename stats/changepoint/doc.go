// Package changepoint finds where a cell's per-interval series (requests
// per 100 ms interval, p99 per interval) changes level, and classifies
// whether and where it reached a steady state, the way Barrett et al.
// classify process executions of a benchmark: flat, warm-up, slowdown or
// no steady state.
//
// # Search
//
// [Detect] segments a series x of n points exactly: of all ways to cut x
// into segments of at least [Config.MinSize] points, it returns the one
// that minimises the sum of the segments' costs plus a penalty per
// segment. That is the optimal-partitioning recursion F(s) = min over t
// of F(t) + C(x[t:s]) + β, with candidate starts t admitted once s − t
// reaches MinSize.
//
// For [CostMean] the candidates are pruned functionally (FPOP: Maidstone,
// Hocking, Rigaill and Fearnhead, "On optimal multiple changepoint
// algorithms for large data", Statistics and Computing 27(2), 2017): each
// keeps the levels μ at which its last segment's cost is below those of
// the candidates admitted before it, and goes when there are none. On a
// series without changes that keeps a handful of candidates, where PELT
// keeps them all and is quadratic. For [CostMeanVar] the search is PELT
// (Killick, Fearnhead and Eckley, "Optimal detection of changepoints with
// a linear computational cost", JASA 107(500), 2012), with its pruning
// rule deferred: t is dropped MinSize points after the first s with
// F(t) + C(x[t:s]) > F(s), when s has become a candidate itself. Dropping
// it at once, as the original rule and ruptures' Pelt do, is not safe
// with MinSize above 1: on spiky series it loses the optimum. Both are
// exact (TestDetectExact checks them against the unpruned recursion and,
// on short series, against every segmentation), and on the series of
// TestRupturesReference (ruptures' answers recorded in
// testdata/ruptures_ref.json) they find what ruptures' Pelt (jump 1) finds,
// down to its ties (the earliest start of the least cost), except on the
// spiky series where ruptures' pruning loses the optimum: there Detect's
// cost is lower.
//
// Costs: [CostMean] (the default, ruptures' "l2") is the sum of squared
// deviations from the segment's mean, which is minus twice the normal
// log-likelihood of a change in mean at a known variance σ², times σ².
// [CostMeanVar] is minus twice the normal log-likelihood of a change in
// mean and variance, m·(ln v + 1) for a segment of m points and variance
// v, with v held above 1% of the noise variance so that a run of equal
// values cannot have a cost of minus infinity.
//
// Work: segment costs take O(1) from prefix sums; memory is O(n). FPOP
// evaluates a few candidates per point on a flat series; PELT up to n²/2
// costs there. Series longer than [MaxLen] are refused (sum long series
// into coarser intervals first), as are NaN, infinite values and values
// beyond ±[MaxAbs]. BenchmarkDetect times 600 and 6000 points,
// BenchmarkClassify 6000 against the old, inexact search.
//
// # Penalty
//
// The default penalty ([DefaultPenalty]) is twice Schwarz's information
// criterion (SIC, or BIC; Schwarz, "Estimating the dimension of a
// model", Annals of Statistics 6(2), 1978), which charges ln n per
// parameter: a new segment of CostMean adds two (where it starts, its
// mean), so β = 2·2·ln n; of CostMeanVar three, so β = 2·3·ln n. For
// CostMean the likelihood needs the noise variance, which the series
// itself gives: β = 4·ln(n)·σ̂². The cost and the penalty then grow alike
// with the data's units, so the changepoints of requests per interval and
// of requests per second, of microseconds and of seconds, are the same.
//
// σ̂ must ignore the very changes the search looks for (the standard
// deviation of the whole series counts a warm-up as noise, and then finds
// nothing), and the odd outlier; and it must be the scale of segment
// means, which correlated noise (a shared machine's slow wander, a
// closed loop) moves far more than independent noise of the same
// deviation would. It is the largest of three robust scales: the
// deviation of single intervals, √(V₁/2) with V_k the trimmed variance
// of the lag-k differences (which a level shift moves at one or two
// points); the long-run deviation of AR(1) noise, √(V₁/2)·√(1+φ)/(1−φ)
// with φ = V₂/V₁ − 1 (Chakar, Lebarbier, Lévy-Leduc and Robin, "A robust
// approach for estimating change-points in the mean of an AR(1)
// process", Bernoulli 23(2), 2017), counted on series of 200 points or
// more, when above three of its standard errors and the lag-4
// differences are not a trend's, and capped at 0.95; and the MAD of the differences
// between means of consecutive blocks of MinSize points, times
// √MinSize, for correlation of other shapes. At φ = 0.9 the long-run
// deviation is 4.36 times the interval's.
//
// Why twice SIC: with σ̂ estimated from the series and segments as short
// as five points, plain SIC put false changepoints in 10 of 200 series
// of 60 points of independent normal noise, 7 of 150 and 2 of 600
// (CostMean); twice SIC put none, and still found a change of 1.5 σ in
// the middle of 150 points in 199 of 200 (TestDetectNoiseFalsePositives,
// TestDetectStep). The changes that matter here (a JIT warming up, a
// collector falling behind) are many σ deep; warmup_stats charges
// 15·ln n for the same purpose with CostMeanVar.
//
// # Classification
//
// [Classify] first marks isolated outliers, as krun's warmup_stats does
// before its changepoint analysis: runs of at most [MaxOutlierRun]
// intervals further than five robust deviations from the median of the
// 21 intervals around them, and as far from the medians of the intervals
// on either side of the run. A collector's pause is then an outlier of a
// steady state rather than a segment of its own; a level shift is not an
// outlier, since the points after it are at the new level. The outliers
// ([Result.Outliers]) are left out of the search, of σ̂ and of every
// mean below.
//
// It then searches the rest and merges neighbouring segments at the same
// level, the closest pair first, until no neighbours are: means within a
// relative band ([Options.RelTol], 2%) of the larger, or within
// [Options.NoiseTol] (three) standard errors of their difference,
// σ̂·√(1/m₁ + 1/m₂) for segments of m₁ and m₂ points, a difference the data
// cannot tell from noise. Of what is left, with the metric's [Direction]:
//
//   - one segment: [Flat], steady from the start;
//   - a steady part shorter than [Options.MinSteady] (a quarter of the
//     series by default): [NoSteadyState], the series was still changing;
//   - an earlier segment better than the final one, beyond the same
//     tolerance: [Slowdown];
//   - otherwise the final segment is the best: [Warmup].
//
// [Result.SteadyStart] is where the level reached the band of its final
// level (0 when flat, -1 without a steady state): the search cuts a ramp
// into steps, and the last step, the final segment, still holds the end
// of the ramp. So it is the start of the first step the search found in
// the final segment from which all are at the same level as the final
// one, moved past the ramp into it when there is one: a least-squares
// hinge (a line up to a knee, then a level) fitted from the step before
// the final one, used when it fits better than that step does and its
// slope is four standard errors from 0, gives the first point where the
// line is within a quarter of the band of the level.
//
// These are the rules of warmup_stats (Barrett, Bolz-Tereick, Killick,
// Mount and Tratt, "Virtual Machine Warmup Blows Hot and Cold", OOPSLA
// 2017), which run PELT on each process execution and call two segments
// equivalent when their means differ by less than a small delta or their
// variance; here the equivalence is applied to neighbours before
// classifying, and no steady state is a steady part that is too short
// rather than changes in the last N iterations.
//
// On seeded synthetic throughput series (TestRateFlat, TestRateSteps,
// TestRateWarmups: a minute at 100 ms, 5% noise, 100 seeds each) flat
// series are flat with normal noise, AR(1) noise up to φ = 0.7 and
// isolated spikes or dips at up to 2% of the intervals, and 79% of them at
// φ = 0.9; steps of two and three σ get their class in every seed and a
// changepoint within three intervals in 96% or more; warm-ups are warm-ups,
// with the level at the steady start a median of at most 1.9% below the
// final level.
//
// [Result.Window] tells whether a kept window of intervals lies inside
// one segment, and how much it changes from its first third to its last
// relative to the first third's (a ratio in words: [DriftWords]), for
// fairness checks of steady state.
package changepoint
