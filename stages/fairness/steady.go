package fairness

import (
	"fmt"
	"math"
	"strings"

	"yardstick/pipeline"
	"yardstick/stats/changepoint"
)

// steadyState: the cell's kept window lies in a steady state of its
// throughput and of its p99 (see package stats/steady): no changepoint
// inside it, no drift beyond the band, in the final steady segment. A cell
// whose analysis could not run fails too: nothing says it was steady.
func (bc *batchCheck) steadyState(ci cellInfo) {
	st := ci.cp.Steady
	switch {
	case st == nil:
		bc.cellRow(ci, "steady_state", false, nil, nil, nil, "", "no steady-state analysis in the checkpoint (made by an older yardstick?)")
		return
	case st.Error != "":
		bc.cellRow(ci, "steady_state", false, nil, nil, nil, "", st.Error)
		return
	}
	var why []string
	for _, s := range []struct {
		name string
		ss   pipeline.SeriesSteady
	}{{"throughput", st.Throughput}, {"p99", st.P99}} {
		if !s.ss.KeptSteady {
			why = append(why, seriesWhy(s.name, s.ss, ci.cp))
		}
	}
	t := st.Throughput
	measured := math.Abs(t.KeptChange)
	detail := fmt.Sprintf("throughput %s, p99 %s; steady from %s; kept window drift %s (band ±%.1f%%)",
		t.Class, st.P99.Class, steadyFrom(st), changepoint.DriftWords(t.KeptChange), 100*t.KeptBand)
	if ci.cp.Window != nil && ci.cp.Window.WarmupCapped {
		why = append([]string{fmt.Sprintf("the adaptive warm-up reached its cap (%s) without a steady state", ci.cp.Window.WarmupMax)}, why...)
	}
	if len(why) > 0 {
		detail = "NOT STEADY: " + strings.Join(why, "; ") + " — " + detail
		detail += busyWords(ci.cp)
	}
	bc.cellRow(ci, "steady_state", len(why) == 0, num(t.KeptBand), num(measured), nil, "relative drift", detail)
}

// busyWords says that the machine was busy in the cell's window, when
// other work took pipeline.BusyShare of the target's or the load
// generator's CPUs; "" otherwise.
func busyWords(cp *pipeline.Checkpoint) string {
	t, l := cp.Others.Share(), cp.LoadgenOthers.Share()
	var on []string
	if t >= pipeline.BusyShare {
		on = append(on, fmt.Sprintf("%.0f%% of the target's CPUs", 100*t))
	}
	if l >= pipeline.BusyShare {
		on = append(on, fmt.Sprintf("%.0f%% of the load generator's", 100*l))
	}
	if len(on) == 0 {
		return ""
	}
	return "; the machine was busy: other work took " + strings.Join(on, " and ") + " in the window"
}

// seriesWhy says in words why a series' kept window is not steady.
func seriesWhy(name string, s pipeline.SeriesSteady, cp *pipeline.Checkpoint) string {
	var parts []string
	if s.KeptChangepoint {
		var in []string
		for _, c := range s.Changepoints {
			if c < len(cp.Intervals) && cp.Intervals[c].InWindow {
				in = append(in, fmt.Sprintf("%.1f s", float64(cp.Intervals[c].StartUS)/1e6))
			}
		}
		if len(in) == 0 {
			in = []string{"intervals " + strings.Trim(fmt.Sprint(s.Changepoints), "[]")}
		}
		parts = append(parts, "changepoint inside the kept window at "+strings.Join(in, ", "))
	}
	if math.Abs(s.KeptChange) > s.KeptBand {
		parts = append(parts, fmt.Sprintf("drifts %s across the kept window (band ±%.1f%%)", changepoint.DriftWords(s.KeptChange), 100*s.KeptBand))
	}
	if s.SteadyStart < 0 {
		parts = append(parts, "never steady ("+s.Class+")")
	}
	if len(parts) == 0 {
		parts = append(parts, "the kept window starts before the steady segment")
	}
	return name + " " + strings.Join(parts, ", ")
}

// steadyFrom is when the cell's load became steady, in words.
func steadyFrom(st *pipeline.Steady) string {
	if st.StartUS < 0 {
		return "never"
	}
	return fmt.Sprintf("%.1f s", float64(st.StartUS)/1e6)
}
