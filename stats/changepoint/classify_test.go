package changepoint

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func classify(t *testing.T, x []float64, o Options) Result {
	t.Helper()
	r, err := Classify(x, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var (
	throughput = Options{Direction: HigherIsBetter}
	latency    = Options{Direction: LowerIsBetter}
)

// Noise only is flat, with no changepoint, over many seeds.
func TestClassifyNoiseIsFlat(t *testing.T) {
	detected := 0
	for seed := uint64(0); seed < 100; seed++ {
		r := classify(t, flatSeries(2000+seed, 600), throughput)
		detected += len(r.Detected)
		if r.Class != Flat || len(r.Changepoints) != 0 || r.SteadyStart != 0 || len(r.Segments) != 1 {
			t.Errorf("seed %d: %s, changepoints %v, steady from %d", seed, r.Class, r.Changepoints, r.SteadyStart)
		}
	}
	if detected != 0 {
		t.Errorf("%d changepoints detected in 100 noise-only series", detected)
	}
}

// A step to a better level is a warm-up that is steady from the step.
func TestClassifyStep(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		r := classify(t, stepSeries(seed, 600, 100, 800, 1000, 30), throughput)
		if r.Class != Warmup || len(r.Changepoints) != 1 || math.Abs(float64(r.SteadyStart-100)) > 2 {
			t.Errorf("seed %d: %s, changepoints %v, steady from %d", seed, r.Class, r.Changepoints, r.SteadyStart)
		}
		s := r.Segments
		if len(s) != 2 || math.Abs(s[0].Mean-800) > 15 || math.Abs(s[1].Mean-1000) > 5 ||
			math.Abs(s[1].Spread-30) > 4 || s[0].Start != 0 || s[1].End != 600 {
			t.Errorf("seed %d: segments %+v", seed, s)
		}
	}
}

// A linear ramp to a plateau is a warm-up, steady from near the knee;
// the same shape upside down is a warm-up of a latency.
func TestClassifyRampThenFlat(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		x := rampSeries(seed, 600, 150, 500, 1000, 25)
		r := classify(t, x, throughput)
		if r.Class != Warmup || r.SteadyStart < 130 || r.SteadyStart > 160 {
			t.Errorf("seed %d: throughput %s, steady from %d (knee at 150), segments %+v", seed, r.Class, r.SteadyStart, r.Segments)
		}
		p99 := rampSeries(seed, 600, 150, 0.020, 0.005, 0.0004)
		if r := classify(t, p99, latency); r.Class != Warmup || r.SteadyStart < 130 || r.SteadyStart > 160 {
			t.Errorf("seed %d: latency %s, steady from %d (knee at 150), segments %+v", seed, r.Class, r.SteadyStart, r.Segments)
		}
	}
}

// The synthetic JIT series warms up in tiers, dips once and settles.
// (The dip's first interval is also a collection's, a third lower; the
// fit of a ramp into the final level then ends a few intervals after
// the dip in some seeds.)
func TestClassifyJITWarmup(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		r := classify(t, jitWarmup(seed), throughput)
		if r.Class != Warmup || r.SteadyStart < 146 || r.SteadyStart > 153 {
			t.Errorf("seed %d: %s, steady from %d (the dip ends at 148), segments %+v", seed, r.Class, r.SteadyStart, r.Segments)
		}
	}
}

// A drop to a worse level that lasts is a slowdown, of a throughput and
// of a latency alike; the same step the other way is a warm-up.
func TestClassifySlowdown(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		drop := stepSeries(seed, 600, 350, 1000, 850, 30)
		if r := classify(t, drop, throughput); r.Class != Slowdown || math.Abs(float64(r.SteadyStart-350)) > 2 {
			t.Errorf("seed %d: throughput drop: %s, steady from %d", seed, r.Class, r.SteadyStart)
		}
		if r := classify(t, drop, latency); r.Class != Warmup {
			t.Errorf("seed %d: latency drop: %s", seed, r.Class)
		}
		// Warm-up first, then a slowdown below the warmed-up level.
		x := levels(newRand(seed), 600, 30, func(i int) float64 {
			switch {
			case i < 60:
				return 600
			case i < 300:
				return 1000
			}
			return 900
		})
		if r := classify(t, x, throughput); r.Class != Slowdown || len(r.Changepoints) != 2 {
			t.Errorf("seed %d: warm-up then slowdown: %s, changepoints %v", seed, r.Class, r.Changepoints)
		}
	}
}

// A series that keeps climbing, or settles too late, has no steady
// state.
func TestClassifyNoSteadyState(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		climb := rampSeries(seed, 600, 600, 500, 1000, 10)
		if r := classify(t, climb, throughput); r.Class != NoSteadyState || r.SteadyStart != -1 {
			t.Errorf("seed %d: climb: %s, steady from %d, segments %+v", seed, r.Class, r.SteadyStart, r.Segments)
		}
		late := stepSeries(seed, 600, 500, 800, 1000, 30)
		r := classify(t, late, throughput)
		if r.Class != NoSteadyState || r.MinSteady != 150 {
			t.Errorf("seed %d: settled at 500 of 600: %s (minimum steady %d)", seed, r.Class, r.MinSteady)
		}
		// Declaring a shorter minimum makes the same series a warm-up.
		o := throughput
		o.MinSteady = 60
		if r := classify(t, late, o); r.Class != Warmup || math.Abs(float64(r.SteadyStart-500)) > 2 {
			t.Errorf("seed %d: settled at 500 of 600, minimum 60: %s from %d", seed, r.Class, r.SteadyStart)
		}
	}
}

// Changes smaller than the relative band, or than the noise, are found
// by the search but merged away.
func TestClassifyMergesSmallChanges(t *testing.T) {
	// +1% with noise of 0.25%: detected, under the 2% band.
	small := stepSeries(1, 600, 300, 1000, 1010, 2.5)
	r := classify(t, small, throughput)
	if len(r.Detected) != 1 || r.Class != Flat || len(r.Changepoints) != 0 {
		t.Errorf("+1%%: detected %v, %s, changepoints %v", r.Detected, r.Class, r.Changepoints)
	}
	o := throughput
	o.RelTol = 0.005
	if r := classify(t, small, o); r.Class != Warmup {
		t.Errorf("+1%% with a 0.5%% band: %s", r.Class)
	}
	// +8% with noise of 10% (0.8σ), 300 intervals either side: the means
	// differ by ten standard errors, a change.
	if r := classify(t, stepSeries(2, 600, 300, 100, 108, 10), throughput); len(r.Detected) != 1 || r.Class != Warmup {
		t.Errorf("+0.8σ over 300 intervals: detected %v, %s", r.Detected, r.Class)
	}
	// Noise searched at a tenth of the penalty: the changes found differ
	// by less than three standard errors of their means and are merged.
	o = throughput
	o.Penalty = 4 * math.Log(600) * 30 * 30 / 10
	r = classify(t, flatSeries(3, 600), o)
	if len(r.Detected) == 0 || r.Class != Flat {
		t.Errorf("noise at a tenth of the penalty: detected %v, %s", r.Detected, r.Class)
	}
	o.NoiseTol = 0.5
	if r := classify(t, flatSeries(3, 600), o); r.Class == Flat {
		t.Errorf("noise at a tenth of the penalty, a band of 0.5 standard errors: %s", r.Class)
	}
}

// A window inside the steady state of a flat series is steady; one with
// a +30% climb in it is not, nor is one across a changepoint.
func TestWindow(t *testing.T) {
	flat := flatSeries(7, 600)
	r := classify(t, flat, throughput)
	w, err := r.Window(flat, 100, 500)
	if err != nil {
		t.Fatal(err)
	}
	if !w.Steady || w.Segment != 0 || !w.InSteadyState || math.Abs(w.Change) > w.Band {
		t.Errorf("flat: %+v", w)
	}

	// Flat at 1000, then a climb of 30% over [300, 420), then flat again.
	climb := levels(newRand(8), 600, 20, func(i int) float64 {
		switch {
		case i < 300:
			return 1000
		case i < 420:
			return 1000 + 300*float64(i-300)/120
		}
		return 1300
	})
	r = classify(t, climb, throughput)
	w, err = r.Window(climb, 300, 420)
	if err != nil {
		t.Fatal(err)
	}
	if w.Steady || w.Change < 0.15 || w.Change > 0.25 {
		t.Errorf("+30%% climb: %+v", w)
	}
	// The climb alone, without the changepoints the search puts in it:
	// the change inside the window still tells.
	one := Result{N: len(climb), Segments: []Segment{{Start: 0, End: len(climb)}}, Noise: r.Noise, RelTol: DefaultRelTol}
	if w, err := one.Window(climb, 300, 420); err != nil || w.Steady || w.Segment != 0 {
		t.Errorf("+30%% climb in one segment: %+v, %v", w, err)
	}
	if w, _ := r.Window(climb, 200, 400); w.Segment != -1 || w.Steady {
		t.Errorf("across changepoints: %+v", w)
	}
	if w, _ := r.Window(climb, 450, 600); !w.Steady || !w.InSteadyState {
		t.Errorf("after the climb: %+v, steady from %d", w, r.SteadyStart)
	}
	if w, _ := r.Window(climb, 0, 290); !w.Steady || w.InSteadyState {
		t.Errorf("before the climb: %+v", w)
	}
}

func TestWindowRefuses(t *testing.T) {
	x := flatSeries(9, 100)
	r := classify(t, x, throughput)
	for _, tc := range []struct {
		x        []float64
		from, to int
		want     string
	}{
		{x[:50], 0, 10, "series of 50 points, the result is of 100"},
		{x, -1, 10, "window [-1,10)"},
		{x, 10, 12, "window [10,12)"},
		{x, 90, 101, "window [90,101)"},
	} {
		if _, err := r.Window(tc.x, tc.from, tc.to); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("[%d,%d): error %v, want %q", tc.from, tc.to, err, tc.want)
		}
	}
}

func TestClassifyRefuses(t *testing.T) {
	x := flatSeries(10, 100)
	for _, tc := range []struct {
		name string
		x    []float64
		o    Options
		want string
	}{
		{"empty", nil, throughput, "empty series"},
		{"nan", []float64{1, math.NaN()}, throughput, "value 1 is NaN"},
		{"no direction", x, Options{}, "direction 0"},
		{"min steady", x, Options{Direction: LowerIsBetter, MinSteady: 101}, "minimum steady length 101"},
		{"tolerance", x, Options{Direction: LowerIsBetter, RelTol: -0.1}, "tolerance -0.1"},
		{"noise tolerance", x, Options{Direction: LowerIsBetter, NoiseTol: math.Inf(1)}, "tolerance +Inf"},
		{"penalty", x, Options{Direction: LowerIsBetter, Config: Config{Penalty: -2}}, "penalty -2"},
	} {
		_, err := Classify(tc.x, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

// Degenerate but valid series classify without error.
func TestClassifyDegenerate(t *testing.T) {
	for _, x := range [][]float64{{7}, {7, 7}, {1, 2}, make([]float64, 50)} {
		r, err := Classify(x, latency)
		if err != nil || r.Class != Flat || r.SteadyStart != 0 {
			t.Errorf("%v: %+v, %v", x, r, err)
		}
	}
}

// The rolling median is the median of each window, ends included.
func TestRollingMedian(t *testing.T) {
	x := flatSeries(4, 97)
	x[10], x[11] = x[12], x[12] // ties
	got := rollingMedian(x, 10)
	for i := range x {
		win := append([]float64(nil), x[max(0, i-10):min(len(x), i+11)]...)
		if want := median(win); got[i] != want {
			t.Fatalf("at %d: %v, want %v", i, got[i], want)
		}
	}
}

// Isolated spikes and dips are marked, and nothing else: not the points
// around a step, not a dip of eight intervals, not the noise.
func TestOutliers(t *testing.T) {
	missed, extra := 0, 0
	for seed := uint64(0); seed < 50; seed++ {
		x := levels(newRand(seed), 600, 50, func(i int) float64 {
			if i >= 300 {
				return 1200 // a step of 4σ
			}
			return 1000
		})
		want := map[int]bool{}
		r := newRand(seed + 1000)
		for k := 0; k < 6; k++ {
			i := 10 + r.IntN(580)
			want[i] = true
			x[i] *= []float64{5, 0.2}[k%2]
		}
		for i := 100; i < 108; i++ { // a dip of eight intervals: a level
			x[i] *= 0.5
			delete(want, i)
		}
		got := outliers(x)
		for _, i := range got {
			if !want[i] {
				extra++
			}
		}
		for i := range want {
			if !slices.Contains(got, i) {
				missed++
			}
		}
	}
	if missed > 0 || extra > 0 {
		t.Errorf("over 50 seeds of 6 outliers each: %d missed, %d marked that are not", missed, extra)
	}
}

// A real throughput series, of guardrails' steady twin (a JIT-like
// warm-up fault of 10 s, 5 s of load) on a loaded machine: requests/s
// per 100 ms, climbing from about 170 to about 600 through heavy noise.
// Its kept window (from 1 s) is not steady.
func TestClassifyNoisyRealRamp(t *testing.T) {
	x := []float64{100, 260, 160, 60, 100, 390, 80, 300, 160, 160, 170, 310, 120, 250, 160, 110, 180, 460, 430, 360,
		500, 660, 180, 400, 80, 0, 630, 350, 170, 90, 360, 590, 190, 310, 470, 240, 350, 430, 1260, 1010,
		210, 340, 590, 640, 1150, 860, 340, 360, 640, 1030}
	r := classify(t, x, Options{Direction: HigherIsBetter, RelTol: 0.15})
	w, err := r.Window(x, 10, len(x))
	if err != nil {
		t.Fatal(err)
	}
	if w.Steady && w.InSteadyState {
		t.Errorf("a climb of x%.2f called steady: %+v; class %s, noise %.1f", 1+w.Change, w, r.Class, r.Noise)
	}
}
