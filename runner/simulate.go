package runner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/pipeline"
	"yardstick/stats"
)

// The rounds of adaptive repeats, simulated: synthetic starts drawn from
// variance components (the spread of a start's figure between starts and
// the noise of its own window), decided after every round by [Look], the
// very decision the real rounds make, until every throughput and p99
// comparison is decided or the rounds reach their max. It measures what
// the real rounds cannot afford to measure often: the false-alarm rate of
// the whole adaptive run, the coverage of its intervals, and its power.

// Components are a metric's variance components on a machine: Between
// is the standard deviation of the log of a start's figure from one
// start to the next (0.10: about 10%), Within the 95% half-width a
// start's window measures of itself (its noise, 0.03: ±3%).
type Components struct {
	Between, Within float64
}

// A SimModel is what the simulation draws: a baseline and a candidate
// whose true throughput ratio is Ratio (its p99 ratio 1/Ratio: a slower
// service waits longer), with the components of each metric, decided
// with the batch's margins from Min to Max rounds.
type SimModel struct {
	Min, Max int
	// Until are the metrics whose decisions stop the rounds (repeats.until;
	// empty: throughput and p99).
	Until   []string
	Margin  float64
	Margins map[string]float64
	// Rule is fairness.rule: "" (difference) or pipeline.RuleBeyondMargin.
	Rule       string
	Ratio      float64
	Throughput Components
	P99        Components
}

// SimResult counts what the simulated runs decided.
type SimResult struct {
	Trials int
	// Outcomes counts each metric's final verdicts ("throughput",
	// "latency_p99"), by verdict.
	Outcomes map[string]map[string]int
	// FalseAlarms counts, per metric, the runs with a verdict on the
	// wrong side of the truth: better or worse on the wrong side of the
	// margin, or better/worse at all when the truth lies inside it, or
	// equivalent when it lies beyond it.
	FalseAlarms map[string]int
	// Covered counts, per metric, the runs whose interval at the look
	// they stopped at held the true ratio.
	Covered map[string]int
	// Rounds are the rounds each run took.
	Rounds []int
}

// Rate is n of the result's trials as a fraction.
func (r SimResult) Rate(n int) float64 { return float64(n) / float64(max(r.Trials, 1)) }

// MedianRounds is the median of the rounds the runs took.
func (r SimResult) MedianRounds() float64 {
	xs := make([]float64, len(r.Rounds))
	for i, n := range r.Rounds {
		xs[i] = float64(n)
	}
	return stats.Median(xs)
}

// Simulate runs trials simulated adaptive batches of model m, seeded.
func Simulate(m SimModel, trials int, seed uint64) SimResult {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	b := &pipeline.Batch{Name: "sim", Baseline: "base", Repeats: m.Max, RepeatsMin: m.Min,
		Fairness: pipeline.Fairness{Noise: m.Margin, Margins: m.Margins, Rule: m.Rule}, RepeatsUntil: m.Until}
	if m.Min >= m.Max {
		b.RepeatsMin = 0 // one look: a fixed number of starts
	}
	res := SimResult{Trials: trials, Outcomes: map[string]map[string]int{}, Covered: map[string]int{}, FalseAlarms: map[string]int{}}
	truth := map[string]float64{"throughput": m.Ratio, "latency_p99": 1 / m.Ratio}
	for range trials {
		var cells []datasets.Cell
		var final []datasets.Comparison
		rounds := 0
		for r := 1; r <= m.Max; r++ {
			cells = append(cells, simCell("base", 0, r, 1, m, rng), simCell("cand", 1, r, m.Ratio, m, rng))
			if r < m.Min && m.Min < m.Max {
				continue
			}
			all, undecided := Look(b, cells, r)
			final, rounds = all, r
			if len(undecided) == 0 {
				break
			}
		}
		res.Rounds = append(res.Rounds, rounds)
		for _, c := range final {
			if res.Outcomes[c.Metric] == nil {
				res.Outcomes[c.Metric] = map[string]int{}
			}
			res.Outcomes[c.Metric][c.Verdict]++
			t := truth[c.Metric]
			if c.CILow != nil && c.CIHigh != nil && *c.CILow <= t && t <= *c.CIHigh {
				res.Covered[c.Metric]++
			}
			if wrongVerdict(c, t) {
				res.FalseAlarms[c.Metric]++
			}
		}
	}
	return res
}

// wrongVerdict says a decided verdict contradicts the true ratio t.
func wrongVerdict(c datasets.Comparison, t float64) bool {
	lower := c.Metric != "throughput" // p99: lower is better
	beyondGood, beyondBad := t > 1+c.Band, t < 1-c.Band
	if lower {
		beyondGood, beyondBad = t < 1-c.Band, t > 1+c.Band
	}
	switch c.Verdict {
	case decide.Better:
		return !beyondGood
	case decide.Worse:
		return !beyondBad
	case decide.Equivalent:
		return beyondGood || beyondBad
	}
	return false
}

// simCell is one simulated start of a variant in round r: its figures
// off by a between-start factor, then measured with its window's noise.
func simCell(variant string, seq int64, r int, ratio float64, m SimModel, rng *rand.Rand) datasets.Cell {
	draw := func(mu float64, c Components) float64 {
		return mu * math.Exp(c.Between*rng.NormFloat64()+c.Within/1.959964*rng.NormFloat64())
	}
	conc := int64(8)
	flat := pipeline.SteadyFlat
	rps := draw(10000*ratio, m.Throughput)
	p99 := int64(math.Round(draw(2000/ratio, m.P99)))
	nr, np := m.Throughput.Within, m.P99.Within
	return datasets.Cell{Batch: "sim", Variant: variant, Target: variant, Seq: seq, Repeat: int64(r), Status: pipeline.StatusOK,
		Mode: "closed", Concurrency: &conc, RPS: &rps, NoiseRPS: &nr, LatencyP99US: &p99, NoiseP99: &np, SteadyClass: &flat}
}

// String is the result in one line a metric.
func (r SimResult) String() string {
	var s string
	metrics := make([]string, 0, len(r.Outcomes))
	for m := range r.Outcomes {
		metrics = append(metrics, m)
	}
	slices.Sort(metrics)
	for _, m := range metrics {
		o := r.Outcomes[m]
		s += fmt.Sprintf("%s: better %.3f, worse %.3f, equivalent %.3f, undecided %.3f, false alarms %.3f, coverage %.3f; ", m,
			r.Rate(o[decide.Better]), r.Rate(o[decide.Worse]), r.Rate(o[decide.Equivalent]), r.Rate(o[decide.Undecided]), r.Rate(r.FalseAlarms[m]), r.Rate(r.Covered[m]))
	}
	return s + fmt.Sprintf("median rounds %.1f", r.MedianRounds())
}
