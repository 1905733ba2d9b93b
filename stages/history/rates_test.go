package history

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"yardstick/decide"
)

// simulated is a history of n runs of one series, each run five starts:
// a run-level effect of sd between (log scale), each start's own noise
// of sd within with a window half-width of 1.96·within, and a step of
// factor step from run at on (at < 0: none).
func simulated(rng *rand.Rand, n int, between, within, step float64, at int) []*Run {
	k := key{batch: "main", variant: "go", point: "c8", metric: "latency_p99"}
	runs := make([]*Run, n)
	for i := range n {
		lvl := 1000 * math.Exp(between*rng.NormFloat64())
		if at >= 0 && i >= at {
			lvl *= step
		}
		starts := make([]decide.Start, 5)
		for j := range starts {
			starts[j] = decide.Start{Value: lvl * math.Exp(within*rng.NormFloat64()), HalfWidth: 1.96 * within}
		}
		f, _ := figureOf(starts, true)
		runs[i] = &Run{ID: fmt.Sprintf("r%04d", i), figures: map[key]Figure{k: f}, margins: map[string]float64{"main": 0.05}}
	}
	return runs
}

// rates are the share of flat histories with a change (false alarms),
// and of histories with a step at run at whose change is found within
// ±1 of it and called worse (detections), of trials histories each.
func rates(t *testing.T, n, at, trials int, between, within, step float64) (anyChange, falseAlarm, detect float64) {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(1000*step)))
	var anyc, fa, det int
	for range trials {
		h, err := Build("sim", simulated(rng, n, between, within, 1, -1), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Series[0].Changes) > 0 {
			anyc++
		}
		for _, c := range h.Series[0].Changes {
			if v := c.Decision.Verdict; v == decide.Better || v == decide.Worse {
				fa++
				break
			}
		}
		h, err = Build("sim", simulated(rng, n, between, within, step, at), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range h.Series[0].Changes {
			if run := h.Series[0].Points[c.At].Run; run >= at-1 && run <= at+1 && c.Decision.Verdict == decide.Worse {
				det++
				break
			}
		}
	}
	return float64(anyc) / float64(trials), float64(fa) / float64(trials), float64(det) / float64(trials)
}

// TestChangeRates measures the false-alarm rate on flat histories and the
// detection rate of a step (docs/methodology.md#history) and holds them:
// on flat runs at most 10% of histories with a changepoint and 5% with
// one called better or worse (a false alarm), and a 20% step at run 25
// found and called worse in at least 95% of histories, with a between-run
// noise of 3% and a within-run noise of 5% per start. A 10% step, twice
// the margin, is reported too. YARDSTICK_RATES=1 prints the table.
func TestChangeRates(t *testing.T) {
	trials := 400
	if testing.Short() {
		trials = 100
	}
	type row struct {
		n, at           int
		between, within float64
		step            float64
	}
	for _, r := range []row{{40, 25, 0.03, 0.05, 1.2}, {40, 25, 0.03, 0.05, 1.1}, {20, 10, 0.03, 0.05, 1.2}, {100, 50, 0.05, 0.05, 1.2}} {
		anyc, fa, det := rates(t, r.n, r.at, trials, r.between, r.within, r.step)
		if os.Getenv("YARDSTICK_RATES") == "1" {
			fmt.Printf("| %d runs, step x%.2f at run %d | %.0f%% between, %.0f%% within | %d | %.1f%% | %.1f%% | %.1f%% |\n",
				r.n, r.step, r.at, 100*r.between, 100*r.within, trials, 100*anyc, 100*fa, 100*det)
		}
		if fa > 0.05 || anyc > 0.10 {
			t.Errorf("%+v: of %d flat histories %.1f%% had a change and %.1f%% one called better or worse, want at most 10%% and 5%%", r, trials, 100*anyc, 100*fa)
		}
		if r.step >= 1.2 && r.between <= 0.03 && det < 0.95 {
			t.Errorf("%+v: step found and worse in %.1f%% of %d histories, want at least 95%%", r, 100*det, trials)
		}
	}
}
