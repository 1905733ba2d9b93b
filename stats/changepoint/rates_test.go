package changepoint

import (
	"math"
	"slices"
	"testing"
)

// The rates of the classification on seeded synthetic throughput series
// of a minute at 100 ms intervals: 10,000 requests/s (1000 per interval)
// with 5% noise (σ = 50), 100 seeds per setting.
const (
	rateN     = 600
	rateLevel = 1000.0
	rateSigma = 50.0
	rateSeeds = 100
)

// rate is the share of seeds for which ok holds of the classification of
// gen(seed).
func rate(t *testing.T, gen func(seed uint64) []float64, ok func(x []float64, r Result) bool) float64 {
	t.Helper()
	hits := 0
	for seed := uint64(0); seed < rateSeeds; seed++ {
		x := gen(seed)
		if ok(x, classify(t, x, throughput)) {
			hits++
		}
	}
	return float64(hits) / rateSeeds
}

func isFlat(_ []float64, r Result) bool { return r.Class == Flat }

// withOutliers multiplies each point of x by factor with probability p.
func withOutliers(seed uint64, x []float64, p, factor float64) []float64 {
	r := newRand(seed ^ 0xbad)
	for i := range x {
		if r.Float64() < p {
			x[i] *= factor
		}
	}
	return x
}

// Truly flat series are flat: normal noise, correlated noise (AR(1)),
// and noise with isolated spikes (5x, as a burst after a pause) or dips
// (to 20%, as a collector's pause gives).
func TestRateFlat(t *testing.T) {
	flat := func(int) float64 { return rateLevel }
	for _, tc := range []struct {
		name string
		gen  func(seed uint64) []float64
		want float64
	}{
		{"normal", func(s uint64) []float64 { return levels(newRand(s), rateN, rateSigma, flat) }, 0.98},
		{"AR(1) φ=0.3", func(s uint64) []float64 { return ar1(newRand(s), rateN, 0.3, rateSigma, flat) }, 0.95},
		{"AR(1) φ=0.5", func(s uint64) []float64 { return ar1(newRand(s), rateN, 0.5, rateSigma, flat) }, 0.95},
		{"AR(1) φ=0.7", func(s uint64) []float64 { return ar1(newRand(s), rateN, 0.7, rateSigma, flat) }, 0.95},
		{"AR(1) φ=0.9", func(s uint64) []float64 { return ar1(newRand(s), rateN, 0.9, rateSigma, flat) }, 0.70},
	} {
		got := rate(t, tc.gen, isFlat)
		t.Logf("%s: %.0f%% flat", tc.name, 100*got)
		if got < tc.want {
			t.Errorf("%s: %.0f%% flat, want at least %.0f%%", tc.name, 100*got, 100*tc.want)
		}
	}
	for _, p := range []float64{0.005, 0.01, 0.02} {
		want := 0.90
		if p > 0.01 {
			want = 0.80
		}
		for _, o := range []struct {
			name   string
			factor float64
		}{{"spikes of 5x", 5}, {"dips to 20%", 0.2}} {
			outliers := 0
			got := rate(t, func(s uint64) []float64 {
				return withOutliers(s, levels(newRand(s), rateN, rateSigma, flat), p, o.factor)
			}, func(_ []float64, r Result) bool {
				outliers += len(r.Outliers)
				return r.Class == Flat
			})
			t.Logf("%s, p=%g: %.0f%% flat, %.1f outliers a series", o.name, p, 100*got, float64(outliers)/rateSeeds)
			if got < want {
				t.Errorf("%s, p=%g: %.0f%% flat, want at least %.0f%%", o.name, p, 100*got, 100*want)
			}
		}
	}
}

// Steps of 2σ and 3σ, up (a warm-up of a throughput) and down (a
// slowdown), at seeded places: the right class, and a changepoint within
// 3 intervals of the step.
func TestRateSteps(t *testing.T) {
	for _, k := range []float64{2, 3} {
		for _, sign := range []float64{1, -1} {
			want := Warmup
			if sign < 0 {
				want = Slowdown
			}
			at := func(seed uint64) int { return 100 + int(seed*37%300) }
			gen := func(seed uint64) []float64 {
				return stepSeries(seed, rateN, at(seed), rateLevel, rateLevel+sign*k*rateSigma, rateSigma)
			}
			class, found := 0, 0
			for seed := uint64(0); seed < rateSeeds; seed++ {
				r := classify(t, gen(seed), throughput)
				if r.Class == want {
					class++
				}
				if slices.ContainsFunc(r.Changepoints, func(c int) bool { return abs(c-at(seed)) <= 3 }) {
					found++
				}
			}
			t.Logf("step of %+gσ: %d%% %s, %d%% with a changepoint within 3 intervals", sign*k, class, want, found)
			if class < 95 || found < 90 {
				t.Errorf("step of %+gσ: %d%% %s (want 95%%), %d%% with a changepoint within 3 intervals (want 90%%)", sign*k, class, want, found)
			}
		}
	}
}

// Warm-ups, linear ramps from half the final level over 15 s and 30 s
// and exponential approaches from half of it (time constants 4 s and
// 8 s), are warm-ups,
// and the level at the steady start is within 2% of the final level
// (median over the seeds).
func TestRateWarmups(t *testing.T) {
	for _, tc := range []struct {
		name  string
		level func(i int) float64
	}{
		{"linear over 15 s", func(i int) float64 { return rateLevel * (0.5 + 0.5*min(float64(i)/150, 1)) }},
		{"exponential, τ = 4 s", func(i int) float64 { return rateLevel * (1 - 0.5*math.Exp(-float64(i)/40)) }},
		{"exponential, τ = 8 s", func(i int) float64 { return rateLevel * (1 - 0.5*math.Exp(-float64(i)/80)) }},
		{"linear over 30 s", func(i int) float64 { return rateLevel * (0.5 + 0.5*min(float64(i)/300, 1)) }},
	} {
		warm := 0
		var gaps []float64
		for seed := uint64(0); seed < rateSeeds; seed++ {
			r := classify(t, levels(newRand(seed), rateN, rateSigma, tc.level), throughput)
			if r.Class == Warmup {
				warm++
			}
			if r.SteadyStart >= 0 {
				gaps = append(gaps, 1-tc.level(r.SteadyStart)/tc.level(rateN-1))
			} else {
				gaps = append(gaps, 1)
			}
		}
		slices.Sort(gaps)
		med := gaps[len(gaps)/2]
		t.Logf("%s warm-up: %d%% warmup; the level at the steady start is %.2f%% below the final (median), %.2f%% (worst)", tc.name, warm, 100*med, 100*gaps[len(gaps)-1])
		if warm < 95 || med > 0.02 {
			t.Errorf("%s warm-up: %d%% warmup (want 95%%), the level at the steady start %.2f%% below the final (median; want at most 2%%)", tc.name, warm, 100*med)
		}
	}
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}
