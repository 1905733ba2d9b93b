package steady

import (
	"math"
	"math/rand/v2"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/pipeline"
	"yardstick/stats/hdrstat"
)

const step = 100_000 // us: 100 ms intervals

// load makes a cell's intervals from a throughput per interval (requests
// per second) and a latency per interval (us), with normal noise of the
// given relative size on both, and real histograms.
func load(t *testing.T, seed uint64, rps, latUS func(i int) float64, n int, noise float64) []pipeline.Interval {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]pipeline.Interval, n)
	for i := range out {
		r := rps(i) * (1 + noise*rng.NormFloat64())
		req := max(int64(r*step/1e6), 0)
		h := hdrhistogram.New(1, 60_000_000, 3)
		lat := latUS(i) * (1 + noise*rng.NormFloat64())
		for range req {
			// an exponential-ish spread around the interval's latency
			v := int64(lat * (0.5 + rng.ExpFloat64()*0.5))
			_ = h.RecordValue(max(v, 1))
		}
		enc, err := hdrstat.Encode(h)
		if err != nil {
			t.Fatal(err)
		}
		d := hdrstat.NewDist(h)
		out[i] = pipeline.Interval{Index: i, StartUS: int64(i) * step, DurationUS: step, Requests: req,
			P50US: d.Percentile(50), P99US: d.Percentile(99), MaxUS: d.Max(), Hist: enc}
	}
	return out
}

func flat(v float64) func(int) float64 { return func(int) float64 { return v } }

// The known series: a flat load is steady from the start; a load that
// steps up during warm-up and is flat through its kept window is a
// warm-up whose window is steady; a load that keeps rising 30% through
// its kept window is not steady; one that steps down inside its window
// has a changepoint there.
func TestAnalyzeKnownSeries(t *testing.T) {
	const n, from = 80, 30 // 8 s: 3 s of warm-up, 5 s kept
	cases := []struct {
		name       string
		rps        func(int) float64
		class      string
		keptSteady bool
	}{
		{"flat", flat(5000), pipeline.SteadyFlat, true},
		{"step in warm-up", func(i int) float64 {
			if i < 15 {
				return 2500
			}
			return 5000
		}, pipeline.SteadyWarmup, true},
		{"ramp through the window", func(i int) float64 { return 4000 * (1 + 0.3*float64(i)/float64(n)) }, "", false},
		{"slowdown inside the window", func(i int) float64 {
			if i < 55 {
				return 5000
			}
			return 3500
		}, pipeline.SteadySlowdown, false},
	}
	for k, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ivs := load(t, uint64(k+1), tc.rps, flat(2000), n, 0.03)
			got, err := Analyze(Input{Intervals: ivs, KeptFrom: from, KeptTo: n, Band: 0.05, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			th := got.Throughput
			t.Logf("class %s changepoints %v steady from %d, kept drift %+.3f band %.3f, noise rps %.3f p99 %.3f",
				th.Class, th.Changepoints, th.SteadyStart, th.KeptChange, th.KeptBand, got.Noise.RPS, got.Noise.P99)
			if tc.class != "" && th.Class != tc.class {
				t.Errorf("class %s, want %s", th.Class, tc.class)
			}
			if th.KeptSteady != tc.keptSteady {
				t.Errorf("kept window steady %v, want %v", th.KeptSteady, tc.keptSteady)
			}
			if !got.P99.KeptSteady {
				t.Errorf("p99 (flat) not steady: %+v", got.P99)
			}
		})
	}
}

// A ramp of +30% through the kept window is reported as a drift of about
// +30% of the window's mean times the share of the window between the
// thirds' centres (2/3): about +20%.
func TestAnalyzeRampDrift(t *testing.T) {
	const n, from = 80, 30
	ivs := load(t, 3, func(i int) float64 {
		if i < from {
			return 4000
		}
		return 4000 * (1 + 0.3*float64(i-from)/float64(n-from))
	}, flat(2000), n, 0.02)
	got, err := Analyze(Input{Intervals: ivs, KeptFrom: from, KeptTo: n, Band: 0.07, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Throughput.KeptChange; c < 0.14 || c > 0.26 {
		t.Errorf("kept drift %+.3f, want about +0.18", c)
	}
	if got.Throughput.KeptSteady {
		t.Error("a +30% ramp through the kept window is called steady")
	}
}

// p99 that steps down (a JIT finishing) inside the kept window, at a
// constant throughput (an open loop), is caught in the p99 series.
func TestAnalyzeLatencyStep(t *testing.T) {
	const n, from = 80, 30
	ivs := load(t, 5, flat(3000), func(i int) float64 {
		if i < 50 {
			return 6000
		}
		return 2000
	}, n, 0.03)
	got, err := Analyze(Input{Intervals: ivs, KeptFrom: from, KeptTo: n, Band: 0.05, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Throughput.KeptSteady {
		t.Errorf("throughput (flat) not steady: %+v", got.Throughput)
	}
	if got.P99.KeptSteady || !got.P99.KeptChangepoint {
		t.Errorf("p99 step inside the window not caught: %+v", got.P99)
	}
	// The p99 series is of groups of intervals (4 here: 300 requests
	// each), so the step is placed to within a group.
	if got.StartUS < 50*step || got.StartUS > 54*step {
		t.Errorf("steady from %d us, want %d to %d", got.StartUS, 50*step, 54*step)
	}
}

// The bootstrap's noise matches the known standard error of a mean of
// independent intervals: with per-interval noise σ (relative) over n
// intervals, the 95% half-width of the mean is about 1.96·σ/√n. Over 20
// seeds its median must be within 35% of that (the block bootstrap is
// slightly conservative for independent data).
func TestNoiseCalibrated(t *testing.T) {
	const n, sigma = 60, 0.10
	want := 1.96 * sigma / math.Sqrt(n)
	var got []float64
	for seed := range uint64(20) {
		ivs := load(t, 100+seed, flat(5000), flat(1000), n, sigma)
		s, err := Analyze(Input{Intervals: ivs, KeptFrom: 0, KeptTo: n, Band: 0.05, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s.Noise.RPS)
	}
	med := median(got)
	t.Logf("noise rps: median %.4f, want about %.4f", med, want)
	if med < 0.65*want || med > 1.35*want {
		t.Errorf("median noise %.4f, want %.4f within 35%%", med, want)
	}
}

// Noise that comes in bursts longer than an interval (a neighbour's
// load for a second at a time) widens the interval beyond what
// independent intervals would: the blocks keep the bursts together.
func TestNoiseSeesCorrelation(t *testing.T) {
	const n = 80
	burst := func(i int) float64 {
		if (i/10)%2 == 0 {
			return 6000
		}
		return 4000
	}
	ivs := load(t, 9, burst, flat(1000), n, 0.01)
	s, err := Analyze(Input{Intervals: ivs, KeptFrom: 0, KeptTo: n, Band: 0.05, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Independent intervals with the same spread (±20%) would give
	// 1.96·0.2/√80 = 4.4%.
	if s.Noise.RPS < 0.05 {
		t.Errorf("noise %.4f with 1 s bursts of ±20%%, want above the 4.4%% of independent intervals", s.Noise.RPS)
	}
}

func TestAnalyzeRefusesShortSeries(t *testing.T) {
	ivs := load(t, 1, flat(1000), flat(1000), 8, 0.01)
	if _, err := Analyze(Input{Intervals: ivs, KeptFrom: 2, KeptTo: 8}); err == nil {
		t.Error("8 intervals analysed")
	}
	ivs = load(t, 1, flat(1000), flat(1000), 40, 0.01)
	if _, err := Analyze(Input{Intervals: ivs, KeptFrom: 38, KeptTo: 40}); err == nil {
		t.Error("a kept window of 2 intervals analysed")
	}
	s, err := Analyze(Input{Intervals: ivs, KeptFrom: 35, KeptTo: 40})
	if err != nil {
		t.Fatal(err)
	}
	if s.Noise.RPS != -1 || s.Noise.P99 != -1 {
		t.Errorf("noise of a 5-interval window: %+v, want -1 (too short to resample)", s.Noise)
	}
}

// A short last interval (the load's end) is left out: its rate is noise.
func TestAnalyzeDropsShortLastInterval(t *testing.T) {
	ivs := load(t, 2, flat(5000), flat(1000), 60, 0.02)
	last := &ivs[len(ivs)-1]
	last.DurationUS, last.Requests = 1000, 50 // 1 ms, 50 requests: 50,000 rps
	s, err := Analyze(Input{Intervals: ivs, KeptFrom: 20, KeptTo: 60, Band: 0.05, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Throughput.KeptSteady {
		t.Errorf("a short last interval made the window unsteady: %+v", s.Throughput)
	}
}

// The detector calls a flat load steady once it has been so for For
// intervals, a load that keeps rising 7% a second never, and a gradual
// warm-up steady only after it has levelled off. (A detector cannot see
// the future: a load flat at a low level before a sudden jump is steady
// until the jump, which the kept window's analysis then catches.)
func TestDetector(t *testing.T) {
	feed := func(ivs []pipeline.Interval) int {
		d := &Detector{For: 30, Band: 0.05}
		for i, iv := range ivs {
			if d.Add(iv) {
				return i + 1
			}
		}
		return -1
	}
	if at := feed(load(t, 1, flat(5000), flat(1000), 100, 0.03)); at < 30 || at > 40 {
		t.Errorf("flat load steady after %d intervals, want 30..40", at)
	}
	for seed := range uint64(5) {
		if at := feed(load(t, 10+seed, func(i int) float64 { return 2000 + 40*float64(i) }, flat(1000), 200, 0.02)); at != -1 {
			t.Errorf("seed %d: a load rising 400 rps a second called steady after %d intervals", seed, at)
		}
	}
	ramp := func(i int) float64 { return 2000 + 3000*min(float64(i)/50, 1) }
	if at := feed(load(t, 3, ramp, flat(1000), 150, 0.02)); at < 70 || at > 95 {
		t.Errorf("warm-up levelling off at interval 50 called steady after %d intervals, want 70..95", at)
	}
}

// The detector watches p99 as the steady_state check does: a load whose
// throughput is flat while its latency still falls (a JIT warming up
// under a closed loop that is not CPU-bound) is not steady until the
// latency has levelled off too.
func TestDetectorWaitsForP99(t *testing.T) {
	lat := func(i int) float64 { return 1000 + 2000*max(1-float64(i)/60, 0) }
	for seed := range uint64(5) {
		ivs := load(t, 20+seed, flat(5000), lat, 200, 0.02)
		d := &Detector{For: 30, Band: 0.05}
		at := -1
		for i, iv := range ivs {
			if d.Add(iv) {
				at = i + 1
				break
			}
		}
		if at < 75 || at > 120 {
			t.Errorf("seed %d: latency levelling off at interval 60 called steady after %d intervals, want 75..120", seed, at)
		}
	}
}

// Whenever the detector calls a load steady, the kept window that follows
// is steady by Analyze, the steady_state check's analysis, as long as the
// load stays as it was: the two agree. The shapes are warm-ups in
// throughput, in latency and in both, with noise.
func TestDetectorAgreesWithAnalyze(t *testing.T) {
	const keep = 30
	shapes := map[string][2]func(int) float64{
		"flat":       {flat(4000), flat(800)},
		"rps ramp":   {func(i int) float64 { return 1500 + 2500*min(float64(i)/40, 1) }, flat(800)},
		"p99 ramp":   {flat(4000), func(i int) float64 { return 800 + 1600*max(1-float64(i)/40, 0) }},
		"both ramps": {func(i int) float64 { return 1000 + 3000*min(float64(i)/40, 1) }, func(i int) float64 { return 800 + 800*max(1-float64(i)/40, 0) }},
	}
	for name, sh := range shapes {
		for seed := range uint64(4) {
			ivs := load(t, 40+seed, sh[0], sh[1], 250, 0.03)
			d := &Detector{For: 20, Band: 0.1}
			at := -1
			for i, iv := range ivs[:200] {
				if d.Add(iv) {
					at = i + 1
					break
				}
			}
			if at < 0 {
				t.Errorf("%s seed %d: never steady", name, seed)
				continue
			}
			st, err := Analyze(Input{Intervals: ivs[:at+keep], KeptFrom: at, KeptTo: at + keep, Band: 0.1, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !st.Throughput.KeptSteady || !st.P99.KeptSteady {
				t.Errorf("%s seed %d: detector steady after %d intervals, but the kept window is not: throughput %+v, p99 %+v", name, seed, at, st.Throughput, st.P99)
			}
		}
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}

// The bootstrap's merged percentile is hdrstat's percentile of the same
// intervals' histograms merged.
func TestBucketsPercentile(t *testing.T) {
	ivs := load(t, 4, func(i int) float64 { return 1000 + 100*float64(i%7) }, func(i int) float64 { return 500 + 300*float64(i%5) }, 20, 0.2)
	b, err := newBuckets(ivs)
	if err != nil {
		t.Fatal(err)
	}
	for _, pick := range [][]int{{0}, {1, 2, 3}, {5, 5, 5, 19}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}} {
		merged := hdrhistogram.New(1, 60_000_000, 3)
		for _, i := range pick {
			h, err := hdrstat.Decode(ivs[i].Hist)
			if err != nil {
				t.Fatal(err)
			}
			merged.Merge(h)
		}
		for _, p := range []float64{50, 99, 99.9, 100} {
			want := hdrstat.NewDist(merged).Percentile(p)
			if got, ok := b.percentile(pick, p); !ok || got != want {
				t.Errorf("intervals %v p%v: %d, want %d", pick, p, got, want)
			}
		}
	}
}

// A load longer than MaxPoints intervals is classified in groups: a step
// in the middle of 20 minutes at 100 ms is found, at a multiple of the
// group's length, and the analysis stays fast.
func TestAnalyzeLongSeries(t *testing.T) {
	const n = 12000
	rng := rand.New(rand.NewPCG(1, 2))
	h := hdrhistogram.New(1, 60_000_000, 3)
	for v := range int64(50) {
		_ = h.RecordValue(1000 + v)
	}
	enc, err := hdrstat.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	ivs := make([]pipeline.Interval, n)
	for i := range ivs {
		r := 500.0
		if i >= 6000 {
			r = 800
		}
		ivs[i] = pipeline.Interval{Index: i, StartUS: int64(i) * step, DurationUS: step,
			Requests: int64(r * (1 + 0.03*rng.NormFloat64())), P99US: 1000 + int64(rng.IntN(50)), Hist: enc}
	}
	s, err := Analyze(Input{Intervals: ivs, KeptFrom: 9000, KeptTo: n, Band: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if s.Throughput.Class != pipeline.SteadyWarmup || len(s.Throughput.Changepoints) != 1 || s.Throughput.Changepoints[0] != 6000 || !s.Throughput.KeptSteady {
		t.Errorf("20 minutes with a step at 10: %+v", s.Throughput)
	}
}

// A p99 that sits on the edge of a tail (1% of requests slow, 400
// requests an interval) jumps between the body and the tail from one
// interval to the next; in groups of 1000 requests it does not, and the
// flat load is steady.
func TestP99OnTheEdgeOfATail(t *testing.T) {
	const n = 80
	rng := rand.New(rand.NewPCG(8, 8))
	ivs := make([]pipeline.Interval, n)
	for i := range ivs {
		h := hdrhistogram.New(1, 60_000_000, 3)
		for range 400 {
			v := int64(800 + rng.IntN(400))
			if rng.Float64() < 0.01 {
				v = 5000 + int64(rng.IntN(20000))
			}
			_ = h.RecordValue(v)
		}
		enc, err := hdrstat.Encode(h)
		if err != nil {
			t.Fatal(err)
		}
		d := hdrstat.NewDist(h)
		ivs[i] = pipeline.Interval{Index: i, StartUS: int64(i) * step, DurationUS: step, Requests: 400,
			P50US: d.Percentile(50), P99US: d.Percentile(99), MaxUS: d.Max(), Hist: enc}
	}
	got, err := Analyze(Input{Intervals: ivs, KeptFrom: 30, KeptTo: n, Band: 0.07, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !got.P99.KeptSteady {
		t.Errorf("p99 on the edge of a tail, flat load: not steady: %+v", got.P99)
	}
}

// Rising judges the last intervals observed after the warm-up: a JIT's
// plateau that the detector took for steady, then a climb to twice the
// rate inside the window, is rising; the same window after the climb
// has levelled off is not, nor is a flat one or one slowing down.
func TestDetectorRising(t *testing.T) {
	plateau := func(i int) float64 {
		switch {
		case i < 30:
			return 6000
		case i < 50:
			return 6000 + 6000*float64(i-30)/20
		}
		return 12000
	}
	ivs := load(t, 21, plateau, flat(1000), 120, 0.04)
	d := &Detector{For: 20, Band: 0.07}
	steadyAt := -1
	for i, iv := range ivs[:30] {
		if d.Add(iv) && steadyAt < 0 {
			steadyAt = i + 1
		}
	}
	if steadyAt < 0 {
		t.Fatalf("the plateau of 3 s was not taken for steady; the case needs it")
	}
	for _, iv := range ivs[30:55] {
		d.Observe(iv)
	}
	if !d.Rising(25, 0.07) {
		t.Errorf("a window holding a climb from 6,000 to 12,000 rps not judged rising")
	}
	for _, iv := range ivs[55:120] {
		d.Observe(iv)
	}
	if d.Rising(25, 0.07) {
		t.Errorf("a window 2 s after the climb levelled off judged rising")
	}
	f := &Detector{For: 20, Band: 0.07}
	for _, iv := range load(t, 22, flat(8000), flat(1000), 80, 0.04) {
		f.Observe(iv)
	}
	if f.Rising(30, 0.07) {
		t.Errorf("a flat window judged rising")
	}
	// a load that slows down through the window is no warm-up
	s := &Detector{For: 20, Band: 0.07}
	for _, iv := range load(t, 23, func(i int) float64 { return 10000 - 60*float64(max(i-40, 0)) }, flat(1000), 80, 0.03) {
		s.Observe(iv)
	}
	if s.Rising(30, 0.07) {
		t.Errorf("a window slowing from 10,000 to 7,600 rps judged rising")
	}
}
