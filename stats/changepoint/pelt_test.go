package changepoint

import (
	"math"
	"strings"
	"testing"
)

// A step of three noise deviations (+9%), at varying places, is found
// within two intervals, and it is the only changepoint. (The location of
// a smaller step is less certain: at 1.5 deviations one in seven seeds
// misses by more than two intervals.)
func TestDetectStep(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		at := 40 + int(seed)*5
		x := stepSeries(seed, 400, at, 1000, 1090, 30)
		cps, err := Detect(x, Config{})
		if err != nil {
			t.Fatal(err)
		}
		if len(cps) != 1 || cps[0] < at-2 || cps[0] > at+2 {
			t.Errorf("seed %d: step at %d, changepoints %v", seed, at, cps)
		}
	}
	// The price of the doubled penalty: a step of 1.5 deviations in the
	// middle of 150 intervals is still found, in all seeds but one (seed
	// 55, whose noise looks correlated: φ = 0.41 by noise's estimate,
	// which then raises the penalty).
	missed := 0
	for seed := uint64(0); seed < 200; seed++ {
		cps, err := Detect(stepSeries(seed, 150, 75, 1000, 1045, 30), Config{})
		if err != nil {
			t.Fatal(err)
		}
		if len(cps) == 0 {
			missed++
		}
	}
	if missed > 1 {
		t.Errorf("a step of 1.5 deviations in 150 intervals missed in %d of 200 seeds", missed)
	}
}

// Pure normal noise has no changepoint at the default penalty: the false
// positives are counted over many seeds and lengths, for both costs. At
// half the penalty (plain SIC) there are some, which is why it is
// doubled.
func TestDetectNoiseFalsePositives(t *testing.T) {
	const seeds = 200
	for _, cost := range []Cost{CostMean, CostMeanVar} {
		sicFP := 0
		for _, n := range []int{60, 150, 600} {
			fp, series, sic, sicSeries := 0, 0, 0, 0
			for seed := uint64(0); seed < seeds; seed++ {
				x := flatSeries(1000+seed, n)
				pen, err := DefaultPenalty(x, Config{Cost: cost})
				if err != nil {
					t.Fatal(err)
				}
				cps, err := Detect(x, Config{Cost: cost})
				if err != nil {
					t.Fatal(err)
				}
				fp += len(cps)
				series += min(len(cps), 1)
				if cps, err = Detect(x, Config{Cost: cost, Penalty: pen / 2}); err != nil {
					t.Fatal(err)
				}
				sic += len(cps)
				sicSeries += min(len(cps), 1)
			}
			t.Logf("cost %v, n=%d: %d false changepoints in %d of %d series (plain SIC: %d in %d)", cost, n, fp, series, seeds, sic, sicSeries)
			if fp != 0 {
				t.Errorf("cost %v, n=%d: %d false changepoints in %d of %d noise-only series, want none", cost, n, fp, series, seeds)
			}
			sicFP += sic
		}
		if sicFP == 0 {
			t.Errorf("cost %v: no false changepoint at plain SIC either: the doubling is not needed", cost)
		}
	}
}

// The penalty scales with the data: the same series in other units has
// the same changepoints.
func TestDetectScaleFree(t *testing.T) {
	x := jitWarmup(11)
	want, err := Detect(x, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		t.Fatal("no changepoint in the JIT warm-up series")
	}
	for _, scale := range []float64{1e-6, 0.1, 10, 1e6} {
		y := make([]float64, len(x))
		for i, v := range x {
			y[i] = v*scale + 3*scale
		}
		got, err := Detect(y, Config{})
		if err != nil {
			t.Fatal(err)
		}
		if !equalInts(got, want) {
			t.Errorf("scale %g: %v, unscaled %v", scale, got, want)
		}
	}
}

// CostMeanVar finds a change of variance alone.
func TestDetectMeanVar(t *testing.T) {
	r := newRand(3)
	x := make([]float64, 400)
	for i := range x {
		sd := 10.0
		if i >= 200 {
			sd = 40
		}
		x[i] = 500 + sd*r.NormFloat64()
	}
	cps, err := Detect(x, Config{Cost: CostMeanVar})
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 1 || math.Abs(float64(cps[0]-200)) > 5 {
		t.Errorf("variance change at 200: changepoints %v", cps)
	}
}

// Segments respect the minimum length, from the ends too.
func TestDetectMinSize(t *testing.T) {
	x := jitWarmup(12)
	for _, m := range []int{2, 5, 10, 40} {
		cps, err := Detect(x, Config{MinSize: m, Penalty: 1})
		if err != nil {
			t.Fatal(err)
		}
		prev := 0
		for _, c := range append(cps, len(x)) {
			if c-prev < m {
				t.Fatalf("min size %d: segment [%d,%d) in %v", m, prev, c, cps)
			}
			prev = c
		}
	}
}

func TestDetectRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		x    []float64
		c    Config
		want string
	}{
		{"nan", []float64{1, 2, math.NaN(), 4}, Config{}, "value 2 is NaN"},
		{"inf", []float64{1, math.Inf(-1)}, Config{}, "value 1 is -Inf"},
		{"too long", make([]float64, MaxLen+1), Config{}, "more than the 20000"},
		{"min size", []float64{1, 2, 3}, Config{MinSize: 1}, "minimum segment length 1"},
		{"negative penalty", []float64{1, 2, 3}, Config{Penalty: -1}, "penalty -1"},
		{"nan penalty", []float64{1, 2, 3}, Config{Penalty: math.NaN()}, "penalty NaN"},
		{"cost", []float64{1, 2, 3}, Config{Cost: 7}, "unknown cost 7"},
		{"huge", []float64{-1.7e308, 1.7e308, -1.7e308, 1.7e308}, Config{}, "value 0 is -1.7e+308, beyond ±1e+150"},
		{"far beyond the noise", far(), Config{}, "spread too far beyond their noise"},
		{"tiny noise", levels(newRand(1), 100, 1e-200, func(int) float64 { return 0 }), Config{}, "below 1e-150: too small to square"},
	} {
		_, err := Detect(tc.x, tc.c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

// A constant series, and series too short to split, have no changepoint
// and no error.
func TestDetectNothingToFind(t *testing.T) {
	for _, x := range [][]float64{nil, {1}, {1, 1000}, {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5}, make([]float64, 9)} {
		cps, err := Detect(x, Config{})
		if err != nil || len(cps) != 0 {
			t.Errorf("%v: %v, %v", x, cps, err)
		}
	}
}

func TestNoise(t *testing.T) {
	// Normal noise of deviation 30 under a step: the step does not count.
	if s := noise(stepSeries(1, 2000, 1000, 0, 500, 30), DefaultMinSize); math.Abs(s-30) > 3 {
		t.Errorf("noise %.1f, want about 30", s)
	}
	// Correlated noise (AR(1), deviation 30): single intervals differ as
	// independent noise of deviation 30·√(1−φ) would, but long means vary
	// as independent noise of deviation 30·√((1+φ)/(1−φ)) would: 52.0 at
	// φ = 0.5, 130.8 at φ = 0.9, and noise is that long-run scale.
	for _, tc := range []struct{ phi, want float64 }{{0.5, 52.0}, {0.9, 130.8}} {
		x := ar1(newRand(2), 3000, tc.phi, 30, func(int) float64 { return 0 })
		if s := noise(x, DefaultMinSize); math.Abs(s-tc.want) > tc.want/10 {
			t.Errorf("AR(1) φ = %g: noise %.1f, want about %.1f", tc.phi, s, tc.want)
		}
	}
	// A ramp is no correlated noise, though its lag-2 differences are
	// larger than its lag-1 ones as AR(1)'s are: a steep one (0.7σ a
	// point) and one of steps, each with noise of deviation 30, keep a
	// scale near 30, where taken as AR(1) they would get several times
	// that, and the search would see no change in them.
	for name, level := range map[string]func(int) float64{
		"ramp":  func(i int) float64 { return 21 * float64(i) },
		"steps": func(i int) float64 { return 150 * float64(i/6) },
	} {
		for _, n := range []int{40, 100, 300} {
			x := levels(newRand(uint64(n)), n, 30, level)
			if s := noise(x, DefaultMinSize); s > 60 {
				t.Errorf("%s of %d points: noise %.1f, want about 30", name, n, s)
			}
		}
	}
	if s := noise([]float64{3, 3, 3, 3}, 2); s != 0 {
		t.Errorf("constant: %v", s)
	}
	// Counts that rarely change still have a noise.
	if s := noise([]float64{1, 1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1}, 2); s <= 0 {
		t.Errorf("rare changes: %v", s)
	}
}

// far is noise of 1e-100 with one value of 1e150 in it.
func far() []float64 {
	x := levels(newRand(1), 100, 1e-100, func(int) float64 { return 0 })
	x[50] = 1e150
	return x
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
