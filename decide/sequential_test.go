package decide

import (
	"math/rand/v2"
	"testing"
)

// TestSequentialLevels: the looks' levels spend 5% in all, more of it
// early (Pocock-type), each look's confidence between 95% and 99.5%.
func TestSequentialLevels(t *testing.T) {
	s := Sequential{Min: 3, Max: 8}
	prev := 0.0
	for n := 3; n <= 8; n++ {
		c := s.Confidence(n)
		t.Logf("look at %d starts: %.4f", n, c)
		if c < 0.95 || c > 0.995 {
			t.Errorf("look at %d starts: confidence %.4f", n, c)
		}
		if n == 4 && c <= prev {
			t.Errorf("the first look spends more than the second: %.4f then %.4f", prev, c)
		}
		prev = c
	}
	if c := (Sequential{Min: 5, Max: 5}).Confidence(5); c != 1-Alpha {
		t.Errorf("one look: confidence %.4f, want 0.95", c)
	}
	// the same design, the same levels, in any process: a fixed seed
	if a, b := calibratedLevels(3, 6, 2000), calibratedLevels(3, 6, 2000); a[0] != b[0] || a[3] != b[3] {
		t.Errorf("levels differ from one calibration to the next: %v, %v", a, b)
	}
}

// TestSequentialAA: A/A pairs looked at after every start from 3 to 8 a
// side, each look's interval from Between at its look's confidence: some
// look's interval excludes 1 in about 5% of them (at most 6.5% of these
// 1,000 seeded runs), where two looks at 95% each, at 3 and 8 starts,
// already exclude it in 7% to 8%; for between-start noise larger and
// smaller than the windows' own.
func TestSequentialAA(t *testing.T) {
	if testing.Short() {
		t.Skip("about 7 s")
	}
	s := Sequential{Min: 3, Max: 8}
	rng := rand.New(rand.NewPCG(12, 9))
	const trials = 1000
	for _, comp := range [][2]float64{{0.10, 0.03}, {0.03, 0.06}} {
		excluded, naive := 0, 0
		for range trials {
			a, b := synth(rng, 8, 1000, comp[0], comp[1]), synth(rng, 8, 1000, comp[0], comp[1])
			ex, nv := false, false
			for n := 3; n <= 8; n++ {
				d := Between(a[:n], b[:n], Options{Margin: 0.05, Confidence: s.Confidence(n)})
				ex = ex || d.Low > 1 || d.High < 1
				if n == 3 || n == 8 { // two of the naive looks are enough to show it
					d = Between(a[:n], b[:n], Options{Margin: 0.05})
					nv = nv || d.Low > 1 || d.High < 1
				}
			}
			if ex {
				excluded++
			}
			if nv {
				naive++
			}
		}
		rate, naiveRate := float64(excluded)/trials, float64(naive)/trials
		t.Logf("between %.2f within %.2f: some look excludes 1 in %.4f (two looks at 95%%: %.4f)", comp[0], comp[1], rate, naiveRate)
		if rate > 0.065 {
			t.Errorf("between %.2f within %.2f: some look excluded 1 in %.4f of %d A/A runs", comp[0], comp[1], rate, trials)
		}
		if naiveRate <= rate {
			t.Errorf("two looks at 95%% excluded 1 in %.4f, no more than the design's six (%.4f)", naiveRate, rate)
		}
	}
}
