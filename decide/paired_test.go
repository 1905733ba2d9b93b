package decide

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// synthPairs draws n pairs of slices of a figure whose true ratio is
// ratio: the machine drifts (a random walk of sdDrift per pair, shared
// by both slices of a pair), each slice has its own noise (sdSlice), and
// each slice, with probability burst, is hit by another process's burst
// that costs it 30%.
func synthPairs(rng *rand.Rand, n int, ratio, sdDrift, sdSlice, burst float64) []Pair {
	out := make([]Pair, n)
	drift := 1.0
	for i := range out {
		drift *= math.Exp(sdDrift * rng.NormFloat64())
		slice := func(mu float64) float64 {
			v := mu * drift * math.Exp(sdSlice*rng.NormFloat64())
			if rng.Float64() < burst {
				v *= 0.7
			}
			return v
		}
		out[i] = Pair{Baseline: slice(10000), Candidate: slice(10000 * ratio)}
	}
	return out
}

// TestDecidePairedCoverage: on synthetic pairs with a known ratio of 0.85,
// under drift and bursts, the nominal 95% interval covers it in about 95%
// of trials.
func TestDecidePairedCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const trials = 600
	for _, c := range []struct {
		n                   int
		drift, slice, burst float64
		lowCover, hiCover   float64
	}{
		{5, 0.03, 0.02, 0, 0.92, 0.985},
		{10, 0.05, 0.05, 0, 0.92, 0.985},
		{30, 0.03, 0.03, 0.1, 0.92, 0.985},
		{60, 0.10, 0.02, 0.2, 0.92, 0.985},
	} {
		covered := 0
		for range trials {
			d := Paired(synthPairs(rng, c.n, 0.85, c.drift, c.slice, c.burst), Options{Margin: 0.05})
			if d.Low <= 0.85 && 0.85 <= d.High {
				covered++
			}
		}
		got := float64(covered) / trials
		t.Logf("n=%d drift %.0f%% slice %.0f%% bursts %.0f%%: coverage %.3f", c.n, 100*c.drift, 100*c.slice, 100*c.burst, got)
		if got < c.lowCover || got > c.hiCover {
			t.Errorf("n=%d drift %.2f slice %.2f bursts %.2f: coverage %.3f, want %.2f..%.3f", c.n, c.drift, c.slice, c.burst, got, c.lowCover, c.hiCover)
		}
	}
}

// TestDecidePairedOutcomes: A/A pairs are never better or worse and mostly
// equivalent; a 15% difference is called worse, never better; pairing
// cancels a drift that the unpaired decision of the same slices cannot;
// and the undecided cases say why.
func TestDecidePairedOutcomes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	wrong, equivalent, called := 0, 0, 0
	for range 300 {
		d := Paired(synthPairs(rng, 20, 1, 0.05, 0.03, 0), Options{Margin: 0.05})
		switch d.Verdict {
		case Better, Worse:
			wrong++
		case Equivalent:
			equivalent++
		}
		p := synthPairs(rng, 20, 0.85, 0.05, 0.03, 0)
		switch Paired(p, Options{Margin: 0.05}).Verdict {
		case Better:
			t.Fatalf("15%% slower called better: %+v", p)
		case Worse:
			called++
		}
		if v := Paired(p, Options{Margin: 0.05, LowerIsBetter: true}).Verdict; v == Worse {
			t.Fatalf("a 15%% lower latency called worse: %+v", p)
		}
	}
	t.Logf("A/A, 20 pairs: %d of 300 better or worse, %d equivalent; 15%% slower: %d of 300 worse", wrong, equivalent, called)
	if wrong > 0 || equivalent < 200 {
		t.Errorf("A/A, 20 pairs: %d of 300 better or worse (want 0), %d equivalent (want 200 or more)", wrong, equivalent)
	}
	if called < 270 {
		t.Errorf("15%% difference, 20 pairs: called worse %d of 300", called)
	}

	// a strong drift (10% a pair): the unpaired interval of the same
	// slices is wider than the paired one
	p := synthPairs(rand.New(rand.NewPCG(9, 9)), 20, 0.85, 0.10, 0.02, 0)
	base, cand := make([]Start, len(p)), make([]Start, len(p))
	for i, q := range p {
		base[i], cand[i] = Start{Value: q.Baseline, HalfWidth: math.NaN()}, Start{Value: q.Candidate, HalfWidth: math.NaN()}
	}
	paired, unpaired := Paired(p, Options{Margin: 0.05}), Between(base, cand, Options{Margin: 0.05})
	if paired.Verdict != Worse || paired.High/paired.Low >= unpaired.High/unpaired.Low {
		t.Errorf("drift of 10%% a pair: paired %s [%.3f, %.3f], unpaired %s [%.3f, %.3f]", paired.Verdict, paired.Low, paired.High, unpaired.Verdict, unpaired.Low, unpaired.High)
	}

	for _, c := range []struct {
		pairs []Pair
		want  string
	}{
		{[]Pair{{100, 101}, {100, 99}}, "fewer than 3 pairs (2)"},
		{[]Pair{{100, 101}, {0, 99}, {100, 100}}, "impossible or zero value"},
		{[]Pair{{100, 101}, {100, math.Inf(1)}, {100, 100}}, "impossible or zero value"},
		{[]Pair{{100, 80}, {100, 120}, {100, 100}}, "straddles the margin ±5.0%; more than 100 more starts per side would be needed: the noise is far wider than the margin"},
		{[]Pair{{100, 96}, {100, 100}, {100, 98}}, "straddles the margin ±5.0%; about"},
	} {
		d := Paired(c.pairs, Options{Margin: 0.05})
		if d.Verdict != Undecided || !strings.Contains(d.Reason, c.want) {
			t.Errorf("%v: %s %q, want undecided with %q", c.pairs, d.Verdict, d.Reason, c.want)
		}
	}
	if d := Paired([]Pair{{100, 101}, {100, 99}, {100, 100}}, Options{Margin: 0.05, MinStarts: 5}); !strings.Contains(d.Reason, "fewer than 5 pairs") {
		t.Errorf("MinStarts 5 with 3 pairs: %q", d.Reason)
	}
	if d := Paired([]Pair{{100, 100}, {100, 100}, {100, 100}}, Options{Margin: 0.05}); d.Verdict != Equivalent || d.Ratio != 1 {
		t.Errorf("three identical pairs: %+v", d)
	}
}
