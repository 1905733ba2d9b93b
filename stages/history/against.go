package history

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"yardstick/decide"
	"yardstick/pipeline/safetext"
	"yardstick/stats"
)

// A Verdict decides one series of one run against earlier runs.
type Verdict struct {
	Batch, Variant, Point, Metric string
	// Ratio is the run's mean over the earlier runs' geometric mean;
	// Low and High bound its 95% prediction interval.
	Ratio, Low, High float64
	Margin           float64
	// Outcome is one of stats' four outcomes; Reason says why.
	Outcome, Reason string
	// Runs is how many earlier runs had the series.
	Runs int
}

// Cell is the verdict's cell as <batch>/<variant>/<point>.
func (v *Verdict) Cell() string { return v.Batch + "/" + v.Variant + "/" + v.Point }

// Against decides run cand against the earlier runs base (the last runs
// of its plan), series by series. The uncertainty is the earlier runs'
// spread between runs: on the log scale the run is compared with their
// mean, and its interval is the prediction interval of one more run,
// ± t(N-1) · s · √(1 + 1/N), s the runs' standard deviation. That spread
// holds everything that moves a run's figure (the repeats' noise, the
// machine from day to day), so a run of the same binaries lands inside
// it. A metric measured to a resolution (decide.Metric.Floor: time to
// steady state to a second) widens the interval by that resolution
// over the run's figure: earlier runs that all happened to land on one
// step of it have no spread, and a run one step off is not a change.
// Against the margin the interval gives the four outcomes. A busy
// candidate run, or fewer than decide.MinStarts earlier runs with the
// series, is undecided.
func Against(base []*Run, cand *Run) []Verdict {
	var out []Verdict
	keys := make([]key, 0, len(cand.figures))
	for k := range cand.figures {
		keys = append(keys, k)
	}
	order := MetricNames()
	slices.SortFunc(keys, func(a, b key) int {
		if c := strings.Compare(a.batch+"/"+a.variant+"/"+a.point, b.batch+"/"+b.variant+"/"+b.point); c != 0 {
			return c
		}
		return slices.Index(order, a.metric) - slices.Index(order, b.metric)
	})
	for _, k := range keys {
		var logs []float64
		for _, r := range base {
			if f, ok := r.figures[k]; ok && f.Mean > 0 {
				logs = append(logs, math.Log(f.Mean))
			}
		}
		v := Verdict{Batch: k.batch, Variant: k.variant, Point: k.point, Metric: k.metric, Margin: cand.Margin(k.batch, k.metric), Runs: len(logs),
			Ratio: math.NaN(), Low: math.NaN(), High: math.NaN()}
		m, _ := decide.MetricNamed(k.metric)
		v.decide(logs, cand.figures[k].Mean, m, cand.Busy != "")
		out = append(out, v)
	}
	return out
}

// decide sets the verdict's ratio, interval and outcome.
func (v *Verdict) decide(logs []float64, mean float64, metric decide.Metric, busy bool) {
	lower := metric.LowerIsBetter
	v.Outcome = decide.Undecided
	n := len(logs)
	if n == 0 || !(mean > 0) {
		v.Reason = "no value in the earlier runs or in this run"
		return
	}
	m := stats.Mean(logs)
	v.Ratio = math.Exp(math.Log(mean) - m)
	if n < decide.MinStarts {
		v.Reason = fmt.Sprintf("%d earlier run(s) with this series, fewer than %d: no spread between runs to judge by", n, decide.MinStarts)
		return
	}
	hw := tQuantile(n-1)*math.Sqrt(variance(logs)*(1+1/float64(n))) + math.Log1p(metric.Floor/mean)
	v.Low, v.High = v.Ratio*math.Exp(-hw), v.Ratio*math.Exp(hw)
	lo, hi := 1-v.Margin, 1+v.Margin
	interval := fmt.Sprintf("%.3fx [%.3f, %.3f]", v.Ratio, v.Low, v.High)
	worseSide := func(r float64) bool { return (lower && r > hi) || (!lower && r < lo) }
	betterSide := func(r float64) bool { return (lower && r < lo) || (!lower && r > hi) }
	switch {
	case busy:
		v.Reason = interval + ": this run was on a busy machine, and its difference may be the machine's"
	case worseSide(v.Low) && worseSide(v.High):
		v.Outcome, v.Reason = decide.Worse, fmt.Sprintf("%s lies beyond the margin ±%.1f%%", interval, 100*v.Margin)
	case betterSide(v.Low) && betterSide(v.High):
		v.Outcome, v.Reason = decide.Better, fmt.Sprintf("%s lies beyond the margin ±%.1f%%", interval, 100*v.Margin)
	case v.Low >= lo && v.High <= hi:
		v.Outcome, v.Reason = decide.Equivalent, fmt.Sprintf("%s lies inside the margin ±%.1f%%", interval, 100*v.Margin)
	default:
		v.Reason = fmt.Sprintf("%s straddles the margin ±%.1f%%: the spread between the earlier runs is wider than the margin", interval, 100*v.Margin)
	}
}

// WriteAgainst writes the verdicts of run cand against the runs base as
// text or Markdown: a count per outcome, then one line per series that is
// not equivalent.
func WriteAgainst(w io.Writer, cand *Run, base []*Run, vs []Verdict, markdown bool) error {
	esc, bullet := safetext.Line, ""
	if markdown {
		esc, bullet = safetext.MarkdownInline, "- "
	}
	var b strings.Builder
	ids := make([]string, len(base))
	for i, r := range base {
		ids[i] = r.ID
	}
	if markdown {
		b.WriteString("### yardstick: this run against recent runs\n\n")
	}
	fmt.Fprintf(&b, "run %s against the last %d runs of its plan (%s)\n", esc(cand.ID), len(base), esc(strings.Join(ids, ", ")))
	for _, note := range aroundNotes(cand, base) {
		fmt.Fprintf(&b, "%s%s\n", bullet, esc(note))
	}
	count := map[string]int{}
	for _, v := range vs {
		count[v.Outcome]++
	}
	var parts []string
	for _, o := range decide.Outcomes {
		parts = append(parts, fmt.Sprintf("%d %s", count[o], o))
	}
	fmt.Fprintf(&b, "%s\n", strings.Join(parts, ", "))
	if markdown {
		b.WriteString("\n")
	}
	for _, v := range vs {
		if v.Outcome == decide.Equivalent {
			continue
		}
		fmt.Fprintf(&b, "%s%s %s: %s: %s\n", bullet, esc(v.Cell()), v.Metric, v.Outcome, esc(v.Reason))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// aroundNotes say what differs around the run from the earlier runs: the
// machine (never joined silently), the binaries (what a pull request
// changes), a busy machine.
func aroundNotes(cand *Run, base []*Run) []string {
	var env, bin, busy int
	for _, r := range base {
		if r.Environment != cand.Environment {
			env++
		}
		if r.Binaries != cand.Binaries {
			bin++
		}
		if r.Busy != "" {
			busy++
		}
	}
	var out []string
	if env > 0 {
		out = append(out, fmt.Sprintf("the machine or toolchains differ from %d of the %d earlier runs: the difference may be the machine's (this run: %s)", env, len(base), cand.Environment))
	}
	if bin > 0 {
		out = append(out, fmt.Sprintf("the binaries differ from %d of the %d earlier runs (lock.json)", bin, len(base)))
	}
	if busy > 0 {
		out = append(out, fmt.Sprintf("%d of the %d earlier runs were on a busy machine: their spread is wider for it", busy, len(base)))
	}
	if cand.Busy != "" {
		out = append(out, "this run: "+cand.Busy)
	}
	return out
}
