package changepoint

import (
	"math"
	"slices"
)

// fpop is the functional pruning search of Maidstone, Hocking, Rigaill
// and Fearnhead ("On optimal multiple changepoint algorithms for large
// data", Statistics and Computing 27(2), 2017) for CostMean, with
// segments of at least minSize points: it finds the same optimum as the
// unpruned recursion, but prunes far more than PELT where the series
// does not change (PELT prunes nothing there, and is quadratic).
//
// A candidate start t has the function q_t(μ) = f[t] + pen + Σ (x_i − μ)²
// over its segment [t, s): the cost of its last segment at level μ. f[s]
// is the least of their minima. As every candidate's segment grows by the
// same points, the difference between two candidates' functions does not
// change once both are admitted, so each keeps the set of levels μ where
// it is below every candidate admitted before it (intervals, from the
// quadratics' crossings) and is dropped for good when that set is empty.
// A candidate t is admitted minSize points after t, when its segment is
// long enough: candidates admitted later are never compared with it,
// which keeps the search exact with a minimum segment length.
//
// Ties are resolved as pelt resolves them: the earliest start of the
// least cost.
func fpop(n, minSize int, pen float64, c *coster) []int {
	f := make([]float64, n+1)
	last := make([]int, n+1)
	var cands []candidate
	var union []interval
	for s := minSize; s <= n; s++ {
		if t := s - minSize; t == 0 || t >= minSize {
			cands, union = admit(cands, union, t, f, c)
		}
		best, bestT := math.Inf(1), 0
		for _, k := range cands {
			if v := f[k.t] + (c.sse(k.t, s) + pen); v < best {
				best, bestT = v, k.t
			}
		}
		f[s], last[s] = best, bestT
	}
	return backtrack(last, n)
}

// An interval is a closed range of levels [lo, hi].
type interval struct{ lo, hi float64 }

// A candidate is a start t and the levels where its function is below
// those of the candidates admitted before it.
type candidate struct {
	t    int
	sets []interval
}

// admit adds candidate t: each earlier candidate u keeps its levels
// where q_u <= q_t, and t gets the levels where it is below them all.
// Candidates left without a level are dropped. union is scratch space.
func admit(cands []candidate, union []interval, t int, f []float64, c *coster) ([]candidate, []interval) {
	union = union[:0]
	keep := cands[:0]
	for _, u := range cands {
		// q_u − q_t = f[u] − f[t] + sse(u, t) + (t−u)·(μ − m)², m the mean
		// of [u, t): at most 0 within r of m.
		m := float64(t - u.t)
		r2 := (f[t] - f[u.t] - c.sse(u.t, t)) / m
		if r2 < 0 {
			continue
		}
		r := math.Sqrt(r2)
		mid := (c.s1[t] - c.s1[u.t]) / m
		lo, hi := mid-r, mid+r
		u.sets = clip(u.sets, lo, hi)
		if len(u.sets) == 0 {
			continue
		}
		union = append(union, interval{lo, hi})
		keep = append(keep, u)
	}
	return append(keep, candidate{t: t, sets: complement(union)}), union
}

// clip intersects the sorted, disjoint intervals sets with [lo, hi], in
// place.
func clip(sets []interval, lo, hi float64) []interval {
	out := sets[:0]
	for _, iv := range sets {
		iv.lo, iv.hi = max(iv.lo, lo), min(iv.hi, hi)
		if iv.lo <= iv.hi {
			out = append(out, iv)
		}
	}
	return out
}

// complement is the real line less the union of ivs (which it sorts), as
// sorted, disjoint intervals.
func complement(ivs []interval) []interval {
	slices.SortFunc(ivs, func(a, b interval) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	var out []interval
	from := math.Inf(-1)
	for _, iv := range ivs {
		if iv.lo > from {
			out = append(out, interval{from, iv.lo})
		}
		from = max(from, iv.hi)
	}
	if !math.IsInf(from, 1) {
		out = append(out, interval{from, math.Inf(1)})
	}
	if len(out) > maxPieces {
		// The hull holds the set: a candidate kept on more levels than
		// it is best at is pruned later, never wrongly.
		out = []interval{{out[0].lo, out[len(out)-1].hi}}
	}
	return out
}

// maxPieces is the most intervals a candidate keeps; beyond, their hull,
// so that memory stays linear in the series whatever its shape.
const maxPieces = 8
