package steady

import (
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/stats/hdrstat"
)

// The layout of the load generator's histograms: microseconds, 1 us to
// 60 s, three significant digits.
const (
	histLowest  = 1
	histHighest = 60_000_000
	histDigits  = 3
)

// sameLayout says whether h has the load generator's layout.
func sameLayout(h *hdrhistogram.Histogram) bool {
	return h.LowestTrackableValue() == histLowest && h.HighestTrackableValue() == histHighest && h.SignificantFigures() == histDigits
}

// A merger gives the p99 of some of a window's intervals merged, as
// merging their histograms into one of the load generator's layout and
// reading hdrstat's percentile gives it. The bootstrap asks this hundreds
// of times per cell; with every interval in the same layout a bucket of
// an interval is a bucket of the merge, so the merger adds counts per
// bucket in a small dense array instead of resetting and walking a whole
// histogram each time. Intervals of another layout take that slow way.
type merger struct {
	hists [][]hdrhistogram.Bar
	// The fast way: each bucket's highest equivalent value in value
	// order, each interval's counts by bucket position, and the counts of
	// the merge being made.
	fast   bool
	to     []int64
	sparse [][]entry
	counts []int64
	// The slow way.
	merged *hdrhistogram.Histogram
}

type entry struct {
	pos   int
	count int64
}

// newMerger indexes the intervals' buckets; same says they all have the
// load generator's layout.
func newMerger(hists [][]hdrhistogram.Bar, same bool) *merger {
	m := &merger{hists: hists, fast: same}
	if !same {
		m.merged = hdrhistogram.New(histLowest, histHighest, histDigits)
		return m
	}
	to := map[int64]int64{}
	for _, bars := range hists {
		for _, b := range bars {
			to[b.From] = b.To
		}
	}
	from := make([]int64, 0, len(to))
	for f := range to {
		from = append(from, f)
	}
	slices.Sort(from)
	pos := make(map[int64]int, len(from))
	for i, f := range from {
		pos[f] = i
		m.to = append(m.to, to[f])
	}
	m.sparse = make([][]entry, len(hists))
	for i, bars := range hists {
		for _, b := range bars {
			m.sparse[i] = append(m.sparse[i], entry{pos[b.From], b.Count})
		}
	}
	m.counts = make([]int64, len(from))
	return m
}

// p99 is the p99 of the intervals pick merged; false when they hold no
// value.
func (m *merger) p99(pick []int) (int64, bool) {
	if !m.fast {
		m.merged.Reset()
		for _, i := range pick {
			for _, b := range m.hists[i] {
				m.merged.RecordValues(b.From, b.Count)
			}
		}
		if m.merged.TotalCount() == 0 {
			return 0, false
		}
		return hdrstat.NewDist(m.merged).Percentile(99), true
	}
	clear(m.counts)
	var total int64
	for _, i := range pick {
		for _, e := range m.sparse[i] {
			m.counts[e.pos] += e.count
			total += e.count
		}
	}
	if total == 0 {
		return 0, false
	}
	rank := hdrstat.Rank(99, total)
	var cum int64
	for j, c := range m.counts {
		cum += c
		if cum >= rank {
			return m.to[j], true
		}
	}
	return m.to[len(m.to)-1], true
}
