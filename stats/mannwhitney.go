package stats

import (
	"math"
	"sort"
)

// exactLimit is the largest combined sample size for which MannWhitneyU
// counts the exact null distribution of U (without ties); above it, and
// with ties, it uses the normal approximation.
const exactLimit = 50

// MannWhitneyU returns the two-sided p-value of the Mann-Whitney U test
// (Wilcoxon rank-sum) of the null hypothesis that x and y come from the
// same distribution. Without ties and with at most 50 values in all the
// p-value is exact; otherwise it uses the normal approximation with tie
// and continuity corrections, as R's wilcox.test and SciPy's mannwhitneyu
// do. It returns 1 when the test cannot tell anything (an empty side, or
// every value equal).
func MannWhitneyU(x, y []float64) float64 {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return 1
	}
	u, ties := uStatistic(x, y)
	if len(ties) == 0 && n1+n2 <= exactLimit {
		return pExact(u, n1, n2)
	}
	return pNormal(u, n1, n2, ties)
}

// uStatistic returns U of x (the number of pairs (xi, yj) with xi > yj,
// ties counting a half) from midranks, and the sizes of the tie groups
// (groups of two or more equal values).
func uStatistic(x, y []float64) (u float64, ties []int) {
	type obs struct {
		v    float64
		from int
	}
	all := make([]obs, 0, len(x)+len(y))
	for _, v := range x {
		all = append(all, obs{v, 0})
	}
	for _, v := range y {
		all = append(all, obs{v, 1})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].v < all[j].v })
	var r1 float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		mid := float64(i+1+j) / 2 // mean of ranks i+1 .. j
		for k := i; k < j; k++ {
			if all[k].from == 0 {
				r1 += mid
			}
		}
		if j-i > 1 {
			ties = append(ties, j-i)
		}
		i = j
	}
	n1 := float64(len(x))
	return r1 - n1*(n1+1)/2, ties
}

// pExact is the exact two-sided p-value of U = u for samples of n1 and n2
// distinct values: 2 min(P(U <= u), P(U >= u)), at most 1. It counts the
// ways to pick n1 ranks of 1..n1+n2 by their sum.
func pExact(u float64, n1, n2 int) float64 {
	n := n1 + n2
	maxSum := n * (n + 1) / 2
	// ways[k][s]: subsets of size k of the ranks seen so far summing to s.
	ways := make([][]float64, n1+1)
	for k := range ways {
		ways[k] = make([]float64, maxSum+1)
	}
	ways[0][0] = 1
	for r := 1; r <= n; r++ {
		for k := min(r, n1); k >= 1; k-- {
			for s := maxSum; s >= r; s-- {
				ways[k][s] += ways[k-1][s-r]
			}
		}
	}
	base := n1 * (n1 + 1) / 2
	var total, le, ge float64
	for s := base; s <= maxSum; s++ {
		w := ways[n1][s]
		if w == 0 {
			continue
		}
		us := float64(s - base)
		total += w
		if us <= u+1e-9 {
			le += w
		}
		if us >= u-1e-9 {
			ge += w
		}
	}
	return math.Min(1, 2*math.Min(le, ge)/total)
}

// pNormal is the two-sided p-value of U = u from the normal
// approximation, with the variance corrected for ties and a continuity
// correction of 0.5.
func pNormal(u float64, n1, n2 int, ties []int) float64 {
	fn1, fn2 := float64(n1), float64(n2)
	n := fn1 + fn2
	mu := fn1 * fn2 / 2
	var tc float64
	for _, t := range ties {
		ft := float64(t)
		tc += ft*ft*ft - ft
	}
	variance := fn1 * fn2 / 12 * ((n + 1) - tc/(n*(n-1)))
	if variance <= 0 {
		return 1
	}
	z := (math.Abs(u-mu) - 0.5) / math.Sqrt(variance)
	if z <= 0 {
		return 1
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}
