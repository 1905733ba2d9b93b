package changepoint

import (
	"math"
	"slices"
)

// Outlier marking, as krun's warmup_stats marks outliers before its
// changepoint analysis: a collector's pause is an outlier of a steady
// state, not a state of its own.
const (
	// outlierHalf is the half-width of the rolling window whose median is
	// the local level: 2·outlierHalf+1 intervals, fewer at the ends.
	outlierHalf = 10
	// outlierZ is how far from the local level an outlier lies, in robust
	// deviations (1.4826·MAD) of all points from their local levels.
	outlierZ = 5
	// MaxOutlierRun is the longest run of consecutive intervals beyond
	// outlierZ that counts as outliers: longer runs are a level of their
	// own (a deoptimisation, a stall), left to the search.
	MaxOutlierRun = 3
)

// outliers are the indexes of x's isolated outliers, in order: runs of
// at most MaxOutlierRun consecutive points further than outlierZ robust
// deviations from the median of the points around them, and as far from
// the median of the points on either side of the run. A level shift is
// no outlier (the points after it are at the level after it), nor is
// anything in a series whose points mostly sit on their local level (a
// robust deviation of 0: small counts).
func outliers(x []float64) []int {
	n := len(x)
	if n < 2*MaxOutlierRun+1 {
		return nil
	}
	dev := make([]float64, n)
	for i, m := range rollingMedian(x, outlierHalf) {
		dev[i] = math.Abs(x[i] - m)
	}
	cut := outlierZ * 1.4826 * median(slices.Clone(dev))
	if cut == 0 {
		return nil
	}
	var out []int
	for i := 0; i < n; {
		if dev[i] <= cut {
			i++
			continue
		}
		j := i
		for j < n && dev[j] > cut {
			j++
		}
		if j-i <= MaxOutlierRun && apart(x, i, j, cut) {
			for k := i; k < j; k++ {
				out = append(out, k)
			}
		}
		i = j
	}
	return out
}

// apart says whether every point of x[i:j] is further than cut from the
// median of the outlierHalf points before the run and from that of the
// outlierHalf points after it (where there are any).
func apart(x []float64, i, j int, cut float64) bool {
	var sides []float64
	if i > 0 {
		sides = append(sides, median(slices.Clone(x[max(0, i-outlierHalf):i])))
	}
	if j < len(x) {
		sides = append(sides, median(slices.Clone(x[j:min(len(x), j+outlierHalf)])))
	}
	for _, v := range x[i:j] {
		for _, m := range sides {
			if math.Abs(v-m) <= cut {
				return false
			}
		}
	}
	return true
}

// rollingMedian is the median of x[i-h : i+h+1] (cut at the ends) for
// each i, from a sorted window that each step adds a point to and drops
// one from.
func rollingMedian(x []float64, h int) []float64 {
	n := len(x)
	out := make([]float64, n)
	win := make([]float64, 0, 2*h+1)
	add := func(v float64) {
		k, _ := slices.BinarySearch(win, v)
		win = slices.Insert(win, k, v)
	}
	for _, v := range x[:min(n, h)] {
		add(v)
	}
	for i := range x {
		if j := i + h; j < n {
			add(x[j])
		}
		if j := i - h - 1; j >= 0 {
			k, _ := slices.BinarySearch(win, x[j])
			win = slices.Delete(win, k, k+1)
		}
		m := len(win)
		if m%2 == 1 {
			out[i] = win[m/2]
		} else {
			out[i] = win[m/2-1]/2 + win[m/2]/2
		}
	}
	return out
}
