// Package changepoint finds where a cell's per-interval series (requests
// per 100 ms interval, p99 per interval) changes level, and classifies
// whether and where it reached a steady state, the way Barrett et al.
// classify process executions of a benchmark: flat, warm-up, slowdown or
// no steady state.
//
// # Search
//
// [Detect] segments a series x of n points by PELT, the pruned exact
// search of Killick, Fearnhead and Eckley ("Optimal detection of
// changepoints with a linear computational cost", JASA 107(500), 2012):
// of all ways to cut x into segments of at least [Config.MinSize]
// points, it returns the one that minimises the sum of the segments'
// costs plus a penalty per segment, exactly. PELT is the optimal-
// partitioning recursion F(s) = min over t of F(t) + C(x[t:s]) + β with
// candidates t dropped for good once F(t) + C(x[t:s]) > F(s), which
// cannot lose the optimum when splitting a segment never raises its cost
// (true of both costs below). It is arranged as ruptures' Pelt
// (jump 1) is, down to its ties, and a test checks that the two find the
// same changepoints.
//
// Costs: [CostMean] (the default, ruptures' "l2") is the sum of squared
// deviations from the segment's mean, which is minus twice the normal
// log-likelihood of a change in mean at a known variance σ², times σ².
// [CostMeanVar] is minus twice the normal log-likelihood of a change in
// mean and variance, m·(ln v + 1) for a segment of m points and variance
// v, with v held above 1% of the noise variance so that a run of equal
// values cannot have a cost of minus infinity.
//
// Work: segment costs take O(1) from prefix sums. The search evaluates at
// most n²/2 of them (a series without changes prunes nothing) and close
// to a constant times n when the changes are spread along the series;
// memory is O(n). Series longer than [MaxLen] are refused (sum long
// series into coarser intervals first), as are NaN, infinite values and
// values beyond ±[MaxAbs]. BenchmarkDetect times 600 and 6000 points.
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
// nothing), and the odd outlier. It is the larger of two robust scales:
// the median absolute deviation (MAD) of the first differences times
// 1.4826/√2, the estimator of Fryzlewicz ("Wild binary segmentation for
// multiple change-point detection", Annals of Statistics 42(6), 2014)
// and others, in which a level shift moves a single difference; and the
// same MAD of the differences between means of consecutive blocks of
// MinSize points, times √MinSize, which sees noise that is correlated
// from one interval to the next (a closed loop, a collector's rhythm)
// and so moves segment means more than independent noise would.
//
// Why twice SIC: with σ̂ estimated from the series and segments as short
// as five points, plain SIC put a false changepoint in 13 of 200 series
// of 60 points of independent normal noise, 8 of 150 and 1 of 600
// (CostMean); twice SIC put none, and still found a change of 1.5 σ in
// the middle of 150 points in all of 200 (TestDetectNoiseFalsePositives,
// TestDetectStep). The changes that matter here (a JIT warming up, a
// collector falling behind) are many σ deep; warmup_stats charges
// 15·ln n for the same purpose with CostMeanVar.
//
// # Classification
//
// [Classify] runs the search, then merges neighbouring segments whose
// means are at the same level, the closest pair first, until no
// neighbours are: within a relative band ([Options.RelTol], 2%) of the
// larger mean, or within [Options.NoiseTol] noise deviations σ̂ (one), so
// that a difference smaller than the noise is never a change. Of what is
// left, with the metric's [Direction]:
//
//   - one segment: [Flat], steady from the start;
//   - a final segment shorter than [Options.MinSteady] (a quarter of the
//     series by default): [NoSteadyState], the series was still changing;
//   - an earlier segment better than the final one, beyond the same
//     tolerance: [Slowdown];
//   - otherwise the final segment is the best: [Warmup].
//
// [Result.SteadyStart] is where the final segment starts (0 when flat,
// -1 without a steady state). These are the rules of warmup_stats
// (Barrett, Bolz-Tereick, Killick, Mount and Tratt, "Virtual Machine
// Warmup Blows Hot and Cold", OOPSLA 2017), which run PELT on each
// process execution and call two segments equivalent when their means
// differ by less than a small delta or their variance; here the
// equivalence is applied to neighbours before classifying, and no
// steady state is a final segment that is too short rather than changes
// in the last N iterations.
//
// [Result.Window] tells whether a kept window of intervals lies inside
// one segment, and how much it changes from its first third to its last
// relative to its mean, for fairness checks of steady state.
package changepoint
