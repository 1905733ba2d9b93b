package report

import (
	"fmt"
	"strings"

	"yardstick/decide"
	"yardstick/stages/report/analysis"
)

// The report's first screen is its answer: the headline decisions
// (decide.Headline: throughput and p99, or a connection-holding point's
// own) of every batch with a baseline as a forest plot, then as a
// table (comparison, metric, ratio, interval, outcome), before any caveat
// or number. The decisions are the analysis model's (analysis.Batch's
// Compare); this file only formats them.

// decisionsSection writes the first screen's decisions; nothing when no
// batch has a baseline.
func decisionsSection(d *doc, batches []*analysis.Batch) {
	var rows [][]string
	ch := &forestChart{title: "Decisions: ratios to the baseline with their intervals"}
	conf := 0.95
	for _, b := range batches {
		if b.Baseline != nil {
			conf = max(conf, b.Confidence())
		}
		for _, c := range b.Candidates() {
			who := fmt.Sprintf("%s vs %s at %s", c.Cand.Variant.Label, b.Baseline.Label, c.Point.Label())
			if len(batches) > 1 {
				who = b.Name + ": " + who
			}
			for _, m := range analysis.Headline(c.Point) {
				d := b.Compare(m, c.Base, c.Cand)
				rows = append(rows, decisionRow(who, m.Title, d.Ratio, d.CILow, d.CIHigh, d.Verdict, decide.ShortReason(d)))
				if len(ch.rows) < maxForestRows {
					ch.rows = append(ch.rows, forestRow{label: who + " " + m.Title, c: d})
				}
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	d.h(2, "Decisions")
	level := "95% interval"
	if conf > 0.95+1e-9 {
		level = fmt.Sprintf("interval (up to %.1f%%: adaptive repeats spend the 5%% error over their looks)", 100*conf)
	}
	d.chart(&chartFile{File: "decisions.svg", Title: ch.title, SVG: ch.svg()})
	d.table("Candidate / baseline of the means over the starts, with its "+level+"; better or worse when the interval excludes no difference and the ratio lies beyond the margin (or the whole interval does, where a batch declares the rule beyond-margin), equivalent when the interval lies inside the margin, else undecided (why, in the last column)",
		[]string{"comparison", "metric", "ratio", "interval", "outcome", "why undecided"}, rows)
}

// decisionRow is one row of the decisions table.
func decisionRow(who, metric string, ratio, lo, hi *float64, verdict, why string) []string {
	r, iv := "-", "-"
	if ratio != nil {
		r = fmtRatio(*ratio)
	}
	if lo != nil && hi != nil {
		iv = fmt.Sprintf("[%s, %s]", strings.TrimSuffix(fmtRatio(*lo), "x"), strings.TrimSuffix(fmtRatio(*hi), "x"))
	}
	if verdict != decide.Undecided {
		why = ""
	}
	return []string{who, metric, r, iv, verdict, why}
}
