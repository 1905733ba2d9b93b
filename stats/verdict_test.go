package stats

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// docs/methodology.md#noise: a 1.01x difference with a 7% noise band is a
// tie, not "1% faster".
func TestOnePercentInsideSevenPercentBandIsTie(t *testing.T) {
	c := Compare([]float64{10000}, []float64{10100}, false, 0.07)
	if c.Verdict != Tie || c.Symbol != "~" {
		t.Fatalf("1.01x with a 7%% band: got %s %q, want tie ~", c.Verdict, c.Symbol)
	}
	if !near(c.Ratio, 1.01, 1e-12) || c.Band != 0.07 {
		t.Errorf("ratio %v band %v", c.Ratio, c.Band)
	}
}

func TestTwoTimesGapIsNotTie(t *testing.T) {
	c := Compare([]float64{10000}, []float64{20000}, false, 0.07)
	if c.Verdict != Better || c.Symbol != "+100.0%" || c.Ratio != 2 || c.Advantage != 2 {
		t.Fatalf("2x rps: got %+v", c)
	}
	c = Compare([]float64{20000}, []float64{10000}, false, 0.07)
	if c.Verdict != Worse || c.Ratio != 0.5 {
		t.Fatalf("0.5x rps: got %+v", c)
	}
}

// For a lower-is-better metric the ratio stays candidate / baseline (2x
// the latency reads 2.00x) but the verdict and the advantage turn around.
func TestLowerIsBetterDirection(t *testing.T) {
	c := Compare([]float64{10}, []float64{20}, true, 0.07)
	if c.Verdict != Worse || c.Ratio != 2 || c.Advantage != 0.5 {
		t.Fatalf("p99 doubled: got %s ratio %v advantage %v, want worse 2 0.5", c.Verdict, c.Ratio, c.Advantage)
	}
	c = Compare([]float64{20}, []float64{10}, true, 0.07)
	if c.Verdict != Better || c.Ratio != 0.5 || c.Advantage != 2 || c.Symbol != "-50.0%" {
		t.Fatalf("p99 halved: got %+v", c)
	}
}

// The observed spread of the repeats widens the band: the study's 8438 /
// 8871 / 9066 rps spread 7.1%, so a 5% gap is a tie even with a 1% band.
func TestSpreadOfRepeatsWidensBand(t *testing.T) {
	base := []float64{8438, 8871, 9066}
	if s := Spread(base); !near(s, 0.0708, 0.0001) {
		t.Fatalf("spread %v, want 7.08%%", s)
	}
	c := Compare(base, []float64{9300, 9315, 9330}, false, 0.01)
	if c.Verdict != Tie || !near(c.Band, 0.0708, 0.0001) {
		t.Fatalf("5%% gap inside 7.1%% spread: %+v", c)
	}
	if len(c.Warnings) != 1 {
		t.Errorf("want a no-test warning, got %q", c.Warnings)
	}
}

// With five repeats a side the U test decides: overlapping samples are
// insignificant (~) although their medians differ by more than the band.
func TestMannWhitneyDecidesWithFiveRepeats(t *testing.T) {
	base := []float64{100, 101, 102, 130, 131}
	cand := []float64{99, 100.5, 115, 128, 135}
	c := Compare(base, cand, false, 0.01)
	if !c.Tested() || c.P <= Alpha || c.Verdict != Tie || c.Symbol != "~" {
		t.Fatalf("overlapping: %+v", c)
	}
	c = Compare([]float64{100, 101, 102, 103, 104}, []float64{120, 121, 122, 123, 124}, false, 0.01)
	if !c.Tested() || !near(c.P, 2.0/252, 1e-12) || c.Verdict != Better {
		t.Fatalf("separated: %+v", c)
	}
}

func TestNoData(t *testing.T) {
	c := Compare(nil, []float64{1}, false, 0.07)
	if c.Verdict != NoData || c.Symbol != "" || !math.IsNaN(c.Ratio) {
		t.Fatalf("empty baseline: %+v", c)
	}
	c = Compare([]float64{0}, []float64{3}, true, 0.07)
	if c.Verdict != NoData {
		t.Fatalf("zero baseline: %+v", c)
	}
	c = Compare([]float64{0}, []float64{0}, true, 0.07)
	if c.Verdict != Tie || c.Ratio != 1 {
		t.Fatalf("zero vs zero: %+v", c)
	}
	c = Compare([]float64{math.NaN(), 5}, []float64{5, math.Inf(1)}, true, 0.07)
	if c.Verdict != Tie || len(c.Warnings) == 0 {
		t.Fatalf("non-finite values: %+v", c)
	}
}

// Known p-values of the Mann-Whitney U test.
func TestMannWhitneyKnownValues(t *testing.T) {
	// Completely separated samples of five: the exact two-sided p is
	// 2 / C(10,5) = 2/252 (R: wilcox.test(1:5, 6:10) p-value = 0.007937).
	if p := MannWhitneyU([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}); !near(p, 2.0/252, 1e-12) {
		t.Errorf("separated: p = %v, want %v", p, 2.0/252)
	}
	// R's ?wilcox.test example (Hollander & Wolfe, depression scores):
	// W = 35, one-sided p-value 0.1272, so two-sided 0.2544 (exact).
	x := []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46}
	y := []float64{1.15, 0.88, 0.90, 0.74, 1.21}
	if u, ties := uStatistic(x, y); u != 35 || len(ties) != 0 {
		t.Errorf("U = %v (ties %v), want 35", u, ties)
	}
	if p := MannWhitneyU(x, y); !near(p, 0.2544, 0.0001) {
		t.Errorf("R example: p = %v, want 0.2544", p)
	}
	// SciPy's mannwhitneyu example: U = 17; exact p = 0.1111..., and the
	// asymptotic one with continuity correction 0.11134688653314041.
	males := []float64{19, 22, 16, 29, 24}
	females := []float64{20, 11, 17, 12}
	if u, _ := uStatistic(males, females); u != 17 {
		t.Errorf("U = %v, want 17", u)
	}
	if p := MannWhitneyU(males, females); !near(p, 1.0/9, 1e-12) {
		t.Errorf("exact: p = %v, want 0.1111", p)
	}
	if p := pNormal(17, 5, 4, nil); !near(p, 0.11134688653314041, 1e-12) {
		t.Errorf("asymptotic: p = %v, want 0.11134688653314041", p)
	}
	// Ties switch to the normal approximation with tie correction. By
	// hand: midranks give R1 = 22.5, U = 1.5; ties of 2, 4, 2 and 2 values
	// give sum(t^3 - t) = 78, var = 36/12 (13 - 78/132) = 37.227;
	// z = (16.5 - 0.5) / 6.1014 = 2.6224, p = 0.00873 (R:
	// wilcox.test(x, y, exact = FALSE, correct = TRUE)).
	if p := MannWhitneyU([]float64{1, 2, 2, 3, 3, 3}, []float64{3, 4, 4, 5, 5, 6}); !near(p, 0.00873, 0.00002) {
		t.Errorf("ties: p = %v, want 0.00873", p)
	}
	// Every value equal: nothing to tell.
	if p := MannWhitneyU([]float64{3, 3, 3, 3, 3}, []float64{3, 3, 3, 3, 3}); p != 1 {
		t.Errorf("all equal: p = %v, want 1", p)
	}
	// Interleaved samples are far from significant.
	if p := MannWhitneyU([]float64{1, 4, 5, 8, 9}, []float64{2, 3, 6, 7, 10}); p < 0.5 {
		t.Errorf("interleaved: p = %v", p)
	}
}

// A 20% difference between two sides whose kept windows each measured
// ±15% noise is a tie, even far outside a 7% declared band; the same
// difference between two sides of ±3% is a verdict. The measured-noise
// band applies in both directions and to lower-is-better metrics.
func TestMeasuredNoiseDecides(t *testing.T) {
	for _, tc := range []struct {
		base, cand     float64
		lower          bool
		noise          float64
		want           string
		wantMeasured   float64
		wantIndicative bool
	}{
		{10000, 12000, false, 0.15, Tie, 0.30, true},
		{10000, 12000, false, 0.03, Better, 0.06, true},
		{12000, 10000, false, 0.15, Tie, 0.30, true},
		{12000, 10000, false, 0.03, Worse, 0.06, true},
		{1000, 1200, true, 0.15, Tie, 0.30, true},
		{1000, 1200, true, 0.03, Worse, 0.06, true},
	} {
		c := CompareMeasured([]float64{tc.base}, []float64{tc.cand}, tc.lower, 0.07, Noise{Baseline: tc.noise, Candidate: tc.noise})
		if c.Verdict != tc.want || !near(c.Measured, tc.wantMeasured, 1e-12) || c.Indicative != tc.wantIndicative {
			t.Errorf("%v -> %v (lower %v), noise ±%v each: %s (measured band %v, indicative %v), want %s",
				tc.base, tc.cand, tc.lower, tc.noise, c.Verdict, c.Measured, c.Indicative, tc.want)
		}
	}
	// The declared band still applies when the measured noise is smaller.
	if c := CompareMeasured([]float64{100}, []float64{105}, false, 0.07, Noise{Baseline: 0.01, Candidate: 0.01}); c.Verdict != Tie {
		t.Errorf("5%% inside the 7%% band with ±1%% noise: %s", c.Verdict)
	}
	// Unknown noise on one side (NaN or negative, as "too short"): the
	// declared band alone decides.
	for _, n := range []Noise{{Baseline: math.NaN(), Candidate: 0.15}, {Baseline: 0.15, Candidate: -1}} {
		c := CompareMeasured([]float64{100}, []float64{120}, false, 0.07, n)
		if c.Verdict != Better || !math.IsNaN(c.Measured) {
			t.Errorf("noise %+v: %s, measured band %v; want better, NaN", n, c.Verdict, c.Measured)
		}
	}
	// Compare is CompareMeasured without measured noise.
	if c := Compare([]float64{100}, []float64{120}, false, 0.07); c.Verdict != Better || !math.IsNaN(c.Measured) {
		t.Errorf("Compare: %s, measured %v", c.Verdict, c.Measured)
	}
}

// Fewer than MinRepeats values on either side make a verdict indicative.
func TestIndicativeBelowThreeRepeats(t *testing.T) {
	three := []float64{100, 101, 102}
	if c := Compare(three, []float64{150, 151, 152}, false, 0.07); c.Indicative {
		t.Error("3 and 3 repeats: indicative")
	}
	if c := Compare(three, []float64{150, 151}, false, 0.07); !c.Indicative || c.Verdict != Better {
		t.Errorf("3 and 2 repeats: indicative %v verdict %s, want true better", c.Indicative, c.Verdict)
	}
}
