package changepoint

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// checkResult checks the invariants of a Result of x and returns the
// first broken one, "" if none.
func checkResult(x []float64, o Options, r Result) string {
	n := len(x)
	minSize := o.MinSize
	if minSize == 0 {
		minSize = DefaultMinSize
	}
	switch {
	case r.N != n:
		return "N is not the length"
	case !slices.Contains([]string{Flat, Warmup, Slowdown, NoSteadyState}, r.Class):
		return "unknown class " + r.Class
	case !slices.IsSorted(r.Detected) || !slices.IsSorted(r.Changepoints):
		return "changepoints not sorted"
	case len(r.Segments) != len(r.Changepoints)+1:
		return "segments and changepoints do not agree"
	case r.Segments[0].Start != 0 || r.Segments[len(r.Segments)-1].End != n:
		return "segments do not cover the series"
	case (r.Class == Flat) != (len(r.Segments) == 1):
		return "flat with changes, or changes without flat"
	case (r.Class == NoSteadyState) != (r.SteadyStart == -1):
		return "steady start and class disagree"
	}
	prev := 0
	for _, c := range append(slices.Clone(r.Detected), n) {
		if len(r.Detected) > 0 && c-prev < minSize {
			return "a detected segment shorter than the minimum"
		}
		prev = c
	}
	for i, s := range r.Segments {
		if s.Len() < 1 || (i > 0 && s.Start != r.Segments[i-1].End) || (i > 0 && s.Start != r.Changepoints[i-1]) {
			return "segments not contiguous"
		}
		if !slices.Contains(r.Detected, s.Start) && s.Start != 0 {
			return "a changepoint the search did not find"
		}
		if math.IsNaN(s.Mean) || math.IsNaN(s.Spread) || s.Spread < 0 {
			return "a segment without mean or spread"
		}
	}
	final := r.Segments[len(r.Segments)-1]
	if r.SteadyStart >= 0 && (r.SteadyStart < final.Start || r.N-r.SteadyStart < r.MinSteady) {
		return "steady start before the final segment, or too late for a steady state"
	}
	for i, o := range r.Outliers {
		if o < 0 || o >= n || (i > 0 && o <= r.Outliers[i-1]) {
			return "outliers not sorted indexes of the series"
		}
	}
	return ""
}

// check classifies x and checks the result, and a few windows of it.
func check(t *testing.T, x []float64, o Options) {
	t.Helper()
	r, err := Classify(x, o)
	finite := !slices.ContainsFunc(x, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) })
	if err != nil {
		// Besides values that are not finite, only an empty series, a
		// minimum steady length past the end, values beyond MaxAbs, a
		// noise too small to square and values spread too far beyond
		// their noise may fail.
		if finite && len(x) > 0 && o.MinSteady <= len(x) && !isHuge(x) &&
			!strings.Contains(err.Error(), "beyond their noise") && !strings.Contains(err.Error(), "too small to square") {
			t.Fatalf("Classify(%v, %+v): %v", x, o, err)
		}
		return
	}
	if !finite {
		t.Fatalf("Classify(%v): no error for a value that is not finite", x)
	}
	if msg := checkResult(x, o, r); msg != "" {
		t.Fatalf("Classify(%v, %+v) = %+v: %s", x, o, r, msg)
	}
	for _, w := range [][2]int{{0, len(x)}, {len(x) / 3, len(x)}, {0, 3}} {
		if w[1]-w[0] < 3 || w[1] > len(x) {
			continue
		}
		got, err := r.Window(x, w[0], w[1])
		if err != nil {
			t.Fatalf("Window(%d, %d) of %v: %v", w[0], w[1], x, err)
		}
		if got.Steady && got.Segment < 0 {
			t.Fatalf("Window(%d, %d) of %v: steady across a changepoint", w[0], w[1], x)
		}
	}
}

// isHuge says whether x has values beyond MaxAbs.
func isHuge(x []float64) bool {
	return slices.ContainsFunc(x, func(v float64) bool { return math.Abs(v) > MaxAbs })
}

// Random and hostile series: never a panic, always the invariants or a
// clear error.
func TestClassifyProperties(t *testing.T) {
	r := newRand(99)
	hostile := [][]float64{
		nil, {0}, {math.NaN()}, {math.Inf(1)}, {1, math.Inf(-1), 2},
		{5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5},
		{math.MaxFloat64, -math.MaxFloat64, math.MaxFloat64, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{math.SmallestNonzeroFloat64, 0, math.SmallestNonzeroFloat64, 0, 0, 0, 0, 0, 0, 0, 0, 1},
		{1e300, 1e300, 1e300, 1e300, 1e300, 1e300, -1e300, -1e300, -1e300, -1e300, -1e300, -1e300},
		{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1e-300, 1e-300, 1e-300, 1e-300, 1e-300, 1e-300, 1e-300},
	}
	for range 300 {
		hostile = append(hostile, randomSeries(r))
	}
	for i, x := range hostile {
		for _, o := range []Options{
			{Direction: HigherIsBetter},
			{Direction: LowerIsBetter, Config: Config{Cost: CostMeanVar, MinSize: 2}},
			{Direction: HigherIsBetter, Config: Config{MinSize: 3, Penalty: 1e-9}},
		} {
			if i%2 == 1 && len(x) > 0 {
				o.MinSteady = 1 + i%len(x)
			}
			check(t, x, o)
		}
	}
}

// randomSeries is a series of a random length and kind.
func randomSeries(r *rand.Rand) []float64 {
	n := r.IntN(400)
	x := make([]float64, n)
	scale := math.Pow(10, float64(r.IntN(40)-20))
	switch r.IntN(5) {
	case 0: // noise
		for i := range x {
			x[i] = scale * r.NormFloat64()
		}
	case 1: // small counts
		for i := range x {
			x[i] = float64(r.IntN(3))
		}
	case 2: // random steps
		level := 0.0
		for i := range x {
			if r.IntN(20) == 0 {
				level = scale * r.NormFloat64()
			}
			x[i] = level + scale/10*r.NormFloat64()
		}
	case 3: // heavy tails
		for i := range x {
			x[i] = scale / (r.Float64() + 1e-9)
		}
	case 4: // a random point made NaN or infinite
		for i := range x {
			x[i] = r.NormFloat64()
		}
		if n > 0 {
			x[r.IntN(n)] = []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[r.IntN(3)]
		}
	}
	return x
}

// FuzzClassify reads the input as little-endian float64s (every bit
// pattern: NaN, infinities, subnormals) and its first byte as options.
func FuzzClassify(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1})
	f.Add(floats(1, 2, 3))
	f.Add(floats(math.NaN(), 1, 2, 3))
	f.Add(floats(math.Inf(1), 1))
	f.Add(floats(7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7))
	f.Add(floats(1, 1, 1, 1, 1, 1, 9, 9, 9, 9, 9, 9, 9))
	f.Add(floats(-math.MaxFloat64, math.MaxFloat64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		opt, data := data[0], data[1:]
		x := make([]float64, min(len(data)/8, 2000))
		for i := range x {
			x[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
		}
		o := Options{Direction: HigherIsBetter + Direction(opt&1)}
		o.Cost = Cost(opt >> 1 & 1)
		o.MinSize = 2 + int(opt>>2&7)
		check(t, x, o)
	})
}

// floats is the fuzz encoding of x, after an options byte of 0.
func floats(x ...float64) []byte {
	b := []byte{0}
	for _, v := range x {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}
