package stats

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
		{3, 0.01, 0.05, 0.92, 0.985},
		{8, 0.04, 0.02, 0.92, 0.985},
		{5, 0.0, 0.03, 0.92, 0.99},
		{1, 0.0, 0.03, 0.92, 0.985}, // one start: within-start noise only, and only that to cover
	} {
		covered := 0
		for i := range trials {
			base := synth(rng, c.n, 10000, c.between, c.within)
			cand := synth(rng, c.n, 8500, c.between, c.within)
			d := Decide(base, cand, Options{Margin: 0.05, Seed: uint64(i)})
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
	for i := range 300 {
		a, b := synth(rng, 3, 1000, 0.02, 0.02), synth(rng, 3, 1000, 0.02, 0.02)
		d := Decide(a, b, Options{Margin: 0.07, Seed: uint64(i)})
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
	for i := range 100 {
		a, b := synth(rng, 5, 1000, 0.02, 0.02), synth(rng, 5, 850, 0.02, 0.02)
		d := Decide(a, b, Options{Margin: 0.05, Seed: uint64(i)})
		if d.Verdict == Better {
			t.Fatalf("15%% slower called better: %+v", d)
		}
		if d.Verdict == Worse {
			called++
		}
		lower := Decide(a, b, Options{Margin: 0.05, LowerIsBetter: true, Seed: uint64(i)})
		if lower.Verdict == Worse {
			t.Fatalf("a 15%% lower latency called worse: %+v", lower)
		}
	}
	if called < 90 {
		t.Errorf("15%% difference, 5 starts a side: called worse %d of 100", called)
	}

	one := []Start{{Value: 100, HalfWidth: 0.01}}
	d := Decide(one, []Start{{Value: 130, HalfWidth: 0.01}}, Options{Margin: 0.05})
	// one start a side: the interval lies beyond the margin, but it holds
	// no between-start noise, so nothing is decided
	if d.Verdict != Undecided || !d.WithinOnly || d.Low < 1.05 || d.MoreStarts != MinStarts ||
		!strings.Contains(d.Reason, "only the noise within a start") || !strings.Contains(d.Reason, "would be better") {
		t.Errorf("one start a side, +30%% at ±1%%: %+v", d)
	}
	d = Decide(one, []Start{{Value: 101, HalfWidth: math.NaN()}}, Options{Margin: 0.05})
	if d.Verdict != Undecided || !strings.Contains(d.Reason, "fewer than 3 starts") {
		t.Errorf("one start, no within-start noise: %+v", d)
	}
	d = Decide(one, []Start{{Value: 101, HalfWidth: math.Inf(1)}}, Options{Margin: 0.05})
	if d.Verdict != Undecided || !strings.HasPrefix(d.Reason, "not steady") {
		t.Errorf("unsteady candidate: %+v", d)
	}
	// one start of four not steady: left out, the other three decide
	four := []Start{{Value: 100, HalfWidth: 0.01}, {Value: 101, HalfWidth: 0.01}, {Value: 99, HalfWidth: 0.01}, {Value: 60, HalfWidth: math.Inf(1)}}
	d = Decide(four, []Start{{Value: 130, HalfWidth: 0.01}, {Value: 131, HalfWidth: 0.01}, {Value: 129, HalfWidth: 0.01}}, Options{Margin: 0.05})
	if d.Verdict != Better || d.StartsBaseline != 3 || !strings.Contains(d.Reason, "left out, not steady: 1 baseline and 0 candidate") {
		t.Errorf("one unsteady start of four: %+v", d)
	}
	wide := []Start{{Value: 100, HalfWidth: 0.2}}
	d = Decide(wide, []Start{{Value: 103, HalfWidth: 0.2}}, Options{Margin: 0.05})
	if d.Verdict != Undecided || d.MoreStarts < 2 || !strings.Contains(d.Reason, "straddles") {
		t.Errorf("±20%% windows, +3%%: %+v", d)
	}
	cold := []Start{{Value: 5, HalfWidth: math.NaN()}, {Value: 6, HalfWidth: math.NaN()}}
	d = Decide(cold, cold, Options{Margin: 0.05})
	if d.Verdict != Undecided {
		t.Errorf("two cold starts a side: %+v", d)
	}
	again := Decide(synth(rand.New(rand.NewPCG(9, 9)), 4, 10, 0.05, 0.01), synth(rand.New(rand.NewPCG(8, 8)), 4, 10, 0.05, 0.01), Options{Margin: 0.05, Seed: 7})
	same := Decide(synth(rand.New(rand.NewPCG(9, 9)), 4, 10, 0.05, 0.01), synth(rand.New(rand.NewPCG(8, 8)), 4, 10, 0.05, 0.01), Options{Margin: 0.05, Seed: 7})
	if again != same {
		t.Errorf("the same inputs and seed gave two intervals: %+v, %+v", again, same)
	}
}

func TestTQuantile(t *testing.T) {
	for _, c := range []struct{ df, want float64 }{{1, 12.706}, {2, 4.303}, {9, 2.262}, {30, 2.042}, {math.Inf(1), 1.96}, {11, 2.201}} {
		if got := tQuantile975(c.df); math.Abs(got-c.want) > 0.01 {
			t.Errorf("t(%g) = %.3f, want %.3f", c.df, got, c.want)
		}
	}
}

// synthRounds draws n rounds of a baseline and a candidate start whose
// true ratio is ratio: each round's machine runs at a speed shared by its
// two starts (slow, 0.6, with probability pSlow: the bimodal starts of a
// 2-core virtual machine), and each start is off by an independent
// between-start factor (sd) and measured with a within-start half-width.
func synthRounds(rng *rand.Rand, n int, ratio, pSlow, sd, hw float64) (base, cand []Start) {
	for r := 1; r <= n; r++ {
		speed := 1.0
		if rng.Float64() < pSlow {
			speed = 0.6
		}
		for i, mu := range []float64{1000, 1000 * ratio} {
			v := mu * speed * (1 + sd*rng.NormFloat64()) * (1 + hw/1.959964*rng.NormFloat64())
			st := Start{Value: v, HalfWidth: hw, Round: r}
			if i == 0 {
				base = append(base, st)
			} else {
				cand = append(cand, st)
			}
		}
	}
	return base, cand
}

// TestDecideByRound: starts paired by round cover the true ratio about
// 95% of the time whether or not the rounds share a machine speed, never
// call an A/A pair better or worse, and call a 15% difference worse
// under a bimodal machine speed far more often than the unpaired
// decision does from the same starts.
func TestDecideByRound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		n     int
		pSlow float64
	}{{4, 0}, {8, 0}, {4, 0.4}, {12, 0.4}} {
		covered := 0
		const trials = 600
		for i := range trials {
			base, cand := synthRounds(rng, c.n, 0.85, c.pSlow, 0.03, 0.02)
			d := Decide(base, cand, Options{Margin: 0.05, Seed: uint64(i), ByRound: true})
			if d.Rounds != c.n {
				t.Fatalf("%d rounds paired, want %d: %+v", d.Rounds, c.n, d)
			}
			if d.Low <= 0.85 && 0.85 <= d.High {
				covered++
			}
		}
		got := float64(covered) / trials
		t.Logf("%d rounds, slow rounds %.0f%%: coverage %.3f", c.n, 100*c.pSlow, got)
		if got < 0.92 || got > 0.985 {
			t.Errorf("%d rounds, slow %.1f: coverage %.3f, want 0.92..0.985", c.n, c.pSlow, got)
		}
	}
	wrong := 0
	for i := range 300 {
		base, cand := synthRounds(rng, 6, 1, 0.4, 0.02, 0.02)
		if d := Decide(base, cand, Options{Margin: 0.07, Seed: uint64(i), ByRound: true}); d.Verdict == Better || d.Verdict == Worse {
			wrong++
		}
	}
	if wrong > 0 {
		t.Errorf("A/A by round: %d of 300 better or worse", wrong)
	}
	paired, unpaired := 0, 0
	for i := range 100 {
		base, cand := synthRounds(rng, 8, 0.85, 0.4, 0.02, 0.02)
		d := Decide(base, cand, Options{Margin: 0.05, Seed: uint64(i), ByRound: true})
		u := Decide(base, cand, Options{Margin: 0.05, Seed: uint64(i)})
		if d.Verdict == Better || u.Verdict == Better {
			t.Fatalf("15%% slower called better: %+v, %+v", d, u)
		}
		paired += b2i(d.Verdict == Worse)
		unpaired += b2i(u.Verdict == Worse)
	}
	t.Logf("15%% slower, 8 rounds, 40%% of them slow: worse %d of 100 paired, %d unpaired", paired, unpaired)
	if paired < 90 || paired < unpaired+30 {
		t.Errorf("15%% slower under a bimodal machine: worse %d of 100 paired, %d unpaired", paired, unpaired)
	}

	// a round whose candidate start was not steady is left out of the
	// pairs; with fewer than three pairs the sides are compared unpaired
	base, cand := synthRounds(rand.New(rand.NewPCG(7, 7)), 4, 0.85, 0, 0.01, 0.01)
	cand[0].HalfWidth = math.Inf(1)
	if d := Decide(base, cand, Options{Margin: 0.05, ByRound: true}); d.Rounds != 3 || !strings.Contains(d.Reason, "(3 rounds, paired)") {
		t.Errorf("4 rounds, one not steady: %+v", d)
	}
	cand[1].HalfWidth = math.Inf(1)
	if d := Decide(base, cand, Options{Margin: 0.05, ByRound: true}); d.Rounds != 0 || d.StartsCandidate != 2 {
		t.Errorf("4 rounds, two not steady: %+v", d)
	}
	// pairs from fewer than half the rounds: unpaired, which keeps every
	// steady start
	base, cand = synthRounds(rand.New(rand.NewPCG(7, 8)), 8, 0.85, 0, 0.01, 0.01)
	for i := range 5 {
		if i%2 == 0 {
			base[i].HalfWidth = math.Inf(1)
		} else {
			cand[i].HalfWidth = math.Inf(1)
		}
	}
	if d := Decide(base, cand, Options{Margin: 0.05, ByRound: true}); d.Rounds != 0 || d.StartsBaseline != 5 || d.StartsCandidate != 6 {
		t.Errorf("8 rounds, 3 of them with both starts steady: %+v", d)
	}
	// starts that agree better than their windows claim are no better
	// known than their windows
	same := []Start{{Value: 100, HalfWidth: 0.2, Round: 1}, {Value: 100, HalfWidth: 0.2, Round: 2}, {Value: 100, HalfWidth: 0.2, Round: 3}}
	if d := Decide(same, same, Options{Margin: 0.05, ByRound: true}); d.Verdict != Undecided || d.High < 1.2 {
		t.Errorf("identical starts with ±20%% windows: %+v", d)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
