// Package stats holds the statistics every stage shares: medians, spreads
// and means of repeats, and the cost-optimal measurement window of
// Kalibera and Jones. Decisions (intervals, outcomes, sequential looks)
// are package decide's; changepoints, steady states and HdrHistogram
// percentiles are the subpackages'.
//
// The package knows nothing of reports, tables or runs.
package stats

import (
	"math"
	"slices"
)

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

// Mean is the mean of xs; NaN for none.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// OptimalWindow is the cost-optimal length of a measure window, in
// seconds, of a two-level experiment (Kalibera and Jones, "Rigorous
// Benchmarking in Reasonable Time", ISMM 2013): with startCost seconds
// per start, withinPerSecond the variance of one second of window and
// between the variance between starts, the variance of the mean per
// second of wall time is least at √(startCost·withinPerSecond/between).
// +Inf without variance between starts (one long window is best), 0
// without variance within (the shortest window is).
func OptimalWindow(startCost, withinPerSecond, between float64) float64 {
	switch {
	case between <= 0:
		return math.Inf(1)
	case withinPerSecond <= 0 || startCost <= 0:
		return 0
	}
	return math.Sqrt(startCost * withinPerSecond / between)
}
