package changepoint

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// A Cost is the segment cost PELT minimises, the model of what changes at
// a changepoint.
type Cost int

const (
	// CostMean models a change in mean with a constant, known variance:
	// the cost of a segment is its sum of squared deviations from its
	// mean (ruptures' "l2"), in the squared units of the data.
	CostMean Cost = iota
	// CostMeanVar models a change in mean and variance: the cost of a
	// segment of length m and variance v is m·(ln s² + v/s²), where s² is
	// v held above 1% of the series' noise variance; that is minus twice
	// the normal log-likelihood maximised over s² in that range, up to a
	// constant per point. It has no units.
	CostMeanVar
)

// String names the cost as the package doc does.
func (c Cost) String() string {
	switch c {
	case CostMean:
		return "mean"
	case CostMeanVar:
		return "meanvar"
	}
	return fmt.Sprintf("Cost(%d)", int(c))
}

// MaxLen is the longest series Detect accepts. PELT is quadratic in the
// worst case (a series without changes prunes nothing), so the limit
// bounds the work to 2·10⁸ segment costs, seconds; a longer series should
// be summed into coarser intervals first.
const MaxLen = 20000

// DefaultMinSize is the minimum segment length when Config.MinSize is 0.
const DefaultMinSize = 5

// varFloor is the smallest variance CostMeanVar lets a segment have, as a
// fraction of the series' noise variance: without it a run of equal
// values would have a cost of minus infinity.
const varFloor = 1e-2

// Config sets up a changepoint search.
type Config struct {
	// Cost is the segment model; the zero value is CostMean.
	Cost Cost
	// MinSize is the minimum segment length, at least 2; 0 means
	// DefaultMinSize.
	MinSize int
	// Penalty is the cost of one more segment, in the cost's units
	// (squared data units for CostMean); 0 means DefaultPenalty.
	Penalty float64
}

// resolve validates c, fills in its defaults for x and returns x's noise
// scale. x must have passed checkSeries.
func (c Config) resolve(x []float64) (Config, float64, error) {
	switch c.Cost {
	case CostMean, CostMeanVar:
	default:
		return c, 0, fmt.Errorf("changepoint: unknown cost %d", int(c.Cost))
	}
	if c.MinSize == 0 {
		c.MinSize = DefaultMinSize
	}
	if c.MinSize < 2 {
		return c, 0, fmt.Errorf("changepoint: minimum segment length %d, want at least 2", c.MinSize)
	}
	if math.IsNaN(c.Penalty) || math.IsInf(c.Penalty, 0) || c.Penalty < 0 {
		return c, 0, fmt.Errorf("changepoint: penalty %v, want a finite value >= 0", c.Penalty)
	}
	s := noise(x, c.MinSize) // at most about 2·MaxAbs: finite
	if s > 0 && s < 1/MaxAbs {
		return c, 0, fmt.Errorf("changepoint: noise scale %g, below %g: too small to square (rescale the series)", s, 1/MaxAbs)
	}
	if c.Penalty == 0 && len(x) >= 2 && s > 0 {
		switch c.Cost {
		case CostMean:
			c.Penalty = 4 * math.Log(float64(len(x))) * s * s
		case CostMeanVar:
			c.Penalty = 6 * math.Log(float64(len(x)))
		}
	}
	return c, s, nil
}

// MaxAbs is the largest magnitude of a value the package accepts, so
// that sums of squares stay finite.
const MaxAbs = 1e150

// checkSeries refuses what the search cannot handle: too many points, or
// a value that is not a finite number within ±MaxAbs.
func checkSeries(x []float64) error {
	if len(x) > MaxLen {
		return fmt.Errorf("changepoint: %d points, more than the %d the search accepts (sum them into coarser intervals)", len(x), MaxLen)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("changepoint: value %d is %v, want a finite number", i, v)
		}
		if math.Abs(v) > MaxAbs {
			return fmt.Errorf("changepoint: value %d is %g, beyond ±%g", i, v, MaxAbs)
		}
	}
	return nil
}

// DefaultPenalty is the penalty Detect uses when c.Penalty is 0 (see the
// package doc): 4·ln(n)·σ̂² for CostMean, σ̂ the series' robust noise
// scale, and 6·ln(n) for CostMeanVar; 0 for a constant series and for
// fewer than two points. c.Penalty is ignored.
func DefaultPenalty(x []float64, c Config) (float64, error) {
	if err := checkSeries(x); err != nil {
		return 0, err
	}
	c.Penalty = 0
	c, _, err := c.resolve(x)
	return c.Penalty, err
}

// Detect finds the changepoints of x that minimise the sum of the segment
// costs plus the penalty per segment, exactly, by PELT. A changepoint is
// the index of the first point of a new segment, so 0 < c < len(x); they
// are sorted, at least MinSize apart and from either end. A series
// shorter than two segments, or constant, has none. Detect refuses (with
// an error) a value that is NaN, infinite or beyond ±MaxAbs, a series
// longer than MaxLen and an invalid Config.
//
// Work: at most n²/2 segment costs of O(1) each, O(n) memory; close to
// linear when the changes are spread along the series.
func Detect(x []float64, c Config) ([]int, error) {
	if err := checkSeries(x); err != nil {
		return nil, err
	}
	c, s, err := c.resolve(x)
	if err != nil {
		return nil, err
	}
	return detect(x, c, s)
}

// detect runs the search on a checked series with a resolved Config and
// the series' noise scale s.
func detect(x []float64, c Config, s float64) ([]int, error) {
	n := len(x)
	if n < 2*c.MinSize || s == 0 || c.Penalty == 0 {
		return nil, nil
	}
	cost, err := newCoster(x, c.Cost, s)
	if err != nil {
		return nil, err
	}
	pen := c.Penalty
	if c.Cost == CostMean {
		pen = pen / s / s // the costs are in units of the noise variance
	}
	if c.Cost == CostMean {
		return fpop(n, c.MinSize, pen, cost), nil
	}
	return pelt(n, c.MinSize, pen, cost), nil
}

// pelt is the pruned search of Killick, Fearnhead and Eckley (2012),
// arranged as ruptures' Pelt with jump 1 arranges it: f[s] is the least
// penalised cost of x[0:s], summed segment by segment from the left; a
// candidate start t is admitted once s-t reaches minSize. Their pruning
// rule (K = 0: splitting a segment never raises its cost) drops t once
// f[t] + cost(t, s) exceeds f[s], which is safe only when s is itself a
// candidate for every later end; with segments of at least minSize it is
// not until minSize points later, and dropping t at once can lose the
// optimum (ruptures has that defect). Here t is dropped minSize points
// after the first s that dominates it, which is exact.
func pelt(n, minSize int, pen float64, c *coster) []int {
	f := make([]float64, n+1)
	last := make([]int, n+1) // start of the last segment of the best x[0:s]
	adm := make([]int, 0, 64)
	vals := make([]float64, 0, 64)
	dominated := make([]int, n+1) // the first s that dominated t, 0 if none yet
	for s := minSize; s <= n; s++ {
		if t := s - minSize; t == 0 || t >= minSize {
			adm = append(adm, t)
		}
		vals = vals[:0]
		best, bestT := math.Inf(1), 0
		for _, t := range adm {
			v := f[t] + (c.cost(t, s) + pen)
			vals = append(vals, v)
			if v < best {
				best, bestT = v, t
			}
		}
		f[s], last[s] = best, bestT
		keep := adm[:0]
		for i, t := range adm {
			if vals[i] > best+pen && dominated[t] == 0 {
				dominated[t] = s
			}
			if dominated[t] == 0 || s+1 < dominated[t]+minSize {
				keep = append(keep, t)
			}
		}
		adm = keep
	}
	return backtrack(last, n)
}

// backtrack lists the changepoints of the best x[0:n] from the starts of
// the last segments of the best prefixes.
func backtrack(last []int, n int) []int {
	var cps []int
	for t := last[n]; t > 0; t = last[t] {
		cps = append(cps, t)
	}
	slices.Reverse(cps)
	return cps
}

// coster computes segment costs in O(1) from prefix sums of the series,
// centred on its median and scaled by its noise so that the sums keep
// their precision.
type coster struct {
	s1, s2 []float64 // prefix sums of z and z², z = (x - median)/noise
	model  Cost
}

func newCoster(x []float64, model Cost, noise float64) (*coster, error) {
	c := &coster{s1: make([]float64, len(x)+1), s2: make([]float64, len(x)+1), model: model}
	mid := median(slices.Clone(x))
	for i, v := range x {
		z := (v - mid) / noise
		c.s1[i+1] = c.s1[i] + z
		c.s2[i+1] = c.s2[i] + z*z
	}
	if math.IsInf(c.s2[len(x)], 0) || math.IsNaN(c.s2[len(x)]) {
		return nil, errors.New("changepoint: values spread too far beyond their noise to sum their squares")
	}
	return c, nil
}

// sse is the CostMean cost of the segment [a, b): its sum of squared
// deviations from its mean, in units of the noise variance.
func (c *coster) sse(a, b int) float64 {
	d := c.s1[b] - c.s1[a]
	return max(c.s2[b]-c.s2[a]-d*d/float64(b-a), 0)
}

// cost is the segment cost of [a, b) of c's model.
func (c *coster) cost(a, b int) float64 {
	if c.model == CostMean {
		return c.sse(a, b)
	}
	return c.meanVar(a, b)
}

// meanVar is the CostMeanVar cost of the segment [a, b).
func (c *coster) meanVar(a, b int) float64 {
	m := float64(b - a)
	v := c.sse(a, b) / m
	s2 := max(v, varFloor)
	return m * (math.Log(s2) + v/s2)
}
