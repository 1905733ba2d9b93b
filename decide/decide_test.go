package decide

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// synth draws n starts of a figure whose true value is mu: each start is
// off by a between-start factor (sdBetween), and its kept window measures
// it with a within-start noise whose 95% half-width is hw (the start's
// value drawn from it, the half-width reported).
func synth(rng *rand.Rand, n int, mu, sdBetween, hw float64) []Start {
	s := make([]Start, n)
	for i := range s {
		v := mu * (1 + sdBetween*rng.NormFloat64())
		v *= 1 + hw/1.959964*rng.NormFloat64()
		s[i] = Start{Value: v, HalfWidth: hw}
	}
	return s
}

// TestDecideCoverage: on synthetic data with a known ratio, the nominal
// 95% interval covers the true ratio in about 95% of trials, with three
// and with eight starts a side, for between-start noise larger and
// smaller than the within-start noise.
func TestDecideCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 600
	for _, c := range []struct {
		n                 int
		between, within   float64
		lowCover, hiCover float64
	}{
		{3, 0.04, 0.02, 0.92, 0.985},
		// windows noisier than the starts: the variance is the windows',
		// still at the starts' n-1 degrees of freedom (the windows' own
		// half-widths are estimates too), so the interval is conservative
		{3, 0.01, 0.05, 0.92, 0.999},
		{8, 0.04, 0.02, 0.92, 0.985},
		{5, 0.0, 0.03, 0.92, 0.999},
		{1, 0.0, 0.03, 0.92, 0.985}, // one start: within-start noise only, and only that to cover
	} {
		covered := 0
		for range trials {
			base := synth(rng, c.n, 10000, c.between, c.within)
			cand := synth(rng, c.n, 8500, c.between, c.within)
			d := Between(base, cand, Options{Margin: 0.05})
			if d.Low <= 0.85 && 0.85 <= d.High {
				covered++
			}
		}
		got := float64(covered) / trials
		t.Logf("n=%d between %.0f%% within %.0f%%: coverage %.3f", c.n, 100*c.between, 100*c.within, got)
		if got < c.lowCover || got > c.hiCover {
			t.Errorf("n=%d between %.2f within %.2f: coverage %.3f, want %.2f..%.3f", c.n, c.between, c.within, got, c.lowCover, c.hiCover)
		}
	}
}

// TestDecideOutcomes: A/A never better or worse; a 15% difference is
// called in the right direction with enough starts; the four outcomes
// and their reasons.
func TestDecideOutcomes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	wrong, equivalent := 0, 0
	for range 300 {
		a, b := synth(rng, 3, 1000, 0.02, 0.02), synth(rng, 3, 1000, 0.02, 0.02)
		d := Between(a, b, Options{Margin: 0.07})
		switch d.Verdict {
		case Better, Worse:
			wrong++
		case Equivalent:
			equivalent++
		}
	}
	if wrong > 0 {
		t.Errorf("A/A: %d of 300 better or worse", wrong)
	}
	if equivalent < 100 {
		t.Errorf("A/A with ±2%% noise and a ±7%% margin: only %d of 300 equivalent", equivalent)
	}
	called := 0
	for range 100 {
		a, b := synth(rng, 5, 1000, 0.02, 0.02), synth(rng, 5, 850, 0.02, 0.02)
		d := Between(a, b, Options{Margin: 0.05})
		if d.Verdict == Better {
			t.Fatalf("15%% slower called better: %+v", d)
		}
		if d.Verdict == Worse {
			called++
		}
		lower := Between(a, b, Options{Margin: 0.05, LowerIsBetter: true})
		if lower.Verdict == Worse {
			t.Fatalf("a 15%% lower latency called worse: %+v", lower)
		}
	}
	if called < 90 {
		t.Errorf("15%% difference, 5 starts a side: called worse %d of 100", called)
	}

	one := []Start{{Value: 100, HalfWidth: 0.01}}
	d := Between(one, []Start{{Value: 130, HalfWidth: 0.01}}, Options{Margin: 0.05})
	// one start a side: the interval lies beyond the margin, but it holds
	// no between-start noise, so nothing is decided
	if d.Verdict != Undecided || !d.WithinOnly || d.Low < 1.05 || d.MoreStarts != MinStarts-1 ||
		!strings.Contains(d.Reason, "only the noise within a start") || !strings.Contains(d.Reason, "would be better") {
		t.Errorf("one start a side, +30%% at ±1%%: %+v", d)
	}
	d = Between(one, []Start{{Value: 101, HalfWidth: math.NaN()}}, Options{Margin: 0.05})
	if d.Verdict != Undecided || !strings.Contains(d.Reason, "fewer than 3 starts") {
		t.Errorf("one start, no within-start noise: %+v", d)
	}
	d = Between(one, []Start{{Value: 101, HalfWidth: 0.01, NeverSteady: true}}, Options{Margin: 0.05})
	if d.Verdict != Undecided || !strings.HasPrefix(d.Reason, "not steady") {
		t.Errorf("never steady candidate: %+v", d)
	}
	// one start of four never steady: left out, the other three decide
	four := []Start{{Value: 100, HalfWidth: 0.01}, {Value: 101, HalfWidth: 0.01}, {Value: 99, HalfWidth: 0.01}, {Value: 60, HalfWidth: 0.01, NeverSteady: true}}
	d = Between(four, []Start{{Value: 130, HalfWidth: 0.01}, {Value: 131, HalfWidth: 0.01}, {Value: 129, HalfWidth: 0.01}}, Options{Margin: 0.05})
	if d.Verdict != Better || d.StartsBaseline != 3 || !strings.Contains(d.Reason, "left out, never steady: 1 baseline and 0 candidate") {
		t.Errorf("one never steady start of four: %+v", d)
	}
	// a start that drifted inside its window counts, with a wider
	// interval of its own: it is not left out
	drifted := []Start{{Value: 100, HalfWidth: 0.01}, {Value: 101, HalfWidth: 0.01}, {Value: 99, HalfWidth: 0.01}, {Value: 102, HalfWidth: 0.04}}
	if d = Between(drifted, []Start{{Value: 130, HalfWidth: 0.01}, {Value: 131, HalfWidth: 0.01}, {Value: 129, HalfWidth: 0.01}}, Options{Margin: 0.05}); d.StartsBaseline != 4 || d.Verdict != Better {
		t.Errorf("a drifting start: %+v", d)
	}
	wide := []Start{{Value: 100, HalfWidth: 0.2}}
	d = Between(wide, []Start{{Value: 103, HalfWidth: 0.2}}, Options{Margin: 0.05})
	if d.Verdict != Undecided || d.MoreStarts < 2 || !strings.Contains(d.Reason, "straddles") || !strings.Contains(d.Reason, MoreStartsWords(d.MoreStarts)) {
		t.Errorf("±20%% windows, +3%%: %+v", d)
	}
	cold := []Start{{Value: 5, HalfWidth: math.NaN()}, {Value: 6, HalfWidth: math.NaN()}}
	d = Between(cold, cold, Options{Margin: 0.05})
	if d.Verdict != Undecided {
		t.Errorf("two cold starts a side: %+v", d)
	}
	again := Between(synth(rand.New(rand.NewPCG(9, 9)), 4, 10, 0.05, 0.01), synth(rand.New(rand.NewPCG(8, 8)), 4, 10, 0.05, 0.01), Options{Margin: 0.05})
	same := Between(synth(rand.New(rand.NewPCG(9, 9)), 4, 10, 0.05, 0.01), synth(rand.New(rand.NewPCG(8, 8)), 4, 10, 0.05, 0.01), Options{Margin: 0.05})
	if again != same {
		t.Errorf("the same inputs and seed gave two intervals: %+v, %+v", again, same)
	}
}

// TestDecideRule: the default rule claims a difference where the
// interval excludes none and the ratio lies beyond the margin, which the
// rule beyond-margin leaves undecided until the whole interval clears the
// margin; both keep the A/A error rate, and a difference smaller than the
// margin is seldom called better or worse: by the default rule in about
// the interval's error rate (a difference of 3% against a 7% margin, with
// intervals wider than the margin, is called worse when the interval
// excludes 1, as often as a one-sided 2.5% test of a 3% difference
// rejects), seldom better.
func TestDecideRule(t *testing.T) {
	base := []Start{{Value: 1000, HalfWidth: 0.02}, {Value: 1080, HalfWidth: 0.02}, {Value: 940, HalfWidth: 0.02}, {Value: 1010, HalfWidth: 0.02}}
	cand := []Start{{Value: 880, HalfWidth: 0.02}, {Value: 900, HalfWidth: 0.02}, {Value: 830, HalfWidth: 0.02}, {Value: 870, HalfWidth: 0.02}}
	d := Between(base, cand, Options{Margin: 0.07})
	if d.Verdict != Worse || d.High >= 1 || d.High <= 0.93 || !strings.Contains(d.Reason, "excludes no difference and its ratio lies beyond the margin ±7.0%") {
		t.Errorf("0.87x, interval below 1 but across 0.93: %+v", d)
	}
	strict := Between(base, cand, Options{Margin: 0.07, BeyondMargin: true})
	if strict.Verdict != Undecided || strict.Kind != ReasonStraddles || strict.MoreStarts <= 0 || strict.Low != d.Low {
		t.Errorf("the same under beyond-margin: %+v", strict)
	}
	// a ratio inside the margin whose interval excludes 1 and reaches past
	// the margin: undecided, and the starts that would decide are those
	// that fit the interval inside the margin
	tight := []Start{{Value: 1000, HalfWidth: 0.01}, {Value: 1010, HalfWidth: 0.01}, {Value: 990, HalfWidth: 0.01}, {Value: 1005, HalfWidth: 0.01}}
	near := []Start{{Value: 950, HalfWidth: 0.01}, {Value: 925, HalfWidth: 0.01}, {Value: 960, HalfWidth: 0.01}, {Value: 935, HalfWidth: 0.01}}
	if d = Between(tight, near, Options{Margin: 0.07}); d.Verdict != Undecided || d.Ratio < 0.93 || d.High >= 1 || d.Low >= 0.93 || d.MoreStarts <= 0 {
		t.Errorf("a ratio inside the margin, interval below 1: %+v", d)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const trials = 400
	for _, c := range []struct {
		ratio float64
		max   float64 // the most better/worse allowed, as a fraction
	}{{1, 0.05}, {0.97, 0.08}} {
		for _, beyond := range []bool{false, true} {
			claimed := 0
			for range trials {
				a, b := synth(rng, 4, 1000, 0.08, 0.03), synth(rng, 4, 1000*c.ratio, 0.08, 0.03)
				v := Between(a, b, Options{Margin: 0.07, BeyondMargin: beyond}).Verdict
				if v == Better || v == Worse {
					claimed++
				}
			}
			rate := float64(claimed) / trials
			t.Logf("true ratio %.2f, margin 7%%, 4 starts a side at 8%% between, beyond-margin %v: better or worse %.3f", c.ratio, beyond, rate)
			if rate > c.max {
				t.Errorf("true ratio %.2f inside the margin (beyond-margin %v): better or worse in %.3f of %d", c.ratio, beyond, rate, trials)
			}
		}
	}
}
