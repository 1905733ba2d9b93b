package report

import (
	"fmt"
	"math"
	"strings"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/stages/report/analysis"
)

func batchSection(d *doc, t *analysis.Tables, b *analysis.Batch) {
	d.h(2, "Batch %s", b.Name)
	if b.Description != "" {
		d.literal(b.Description)
	}
	d.p("%s", baselineNote(b))
	steadyLead(d, b)
	verdicts(d, b)
	d.p("Preconditions: %s.", preconditions(b))
	if b.Holds() { // no request figures: no radar, curves, spectra or steady state
		results(d, b)
		if b.Baseline != nil {
			ratios(d, b)
		}
		wins(d, b)
		return
	}
	var scoreHead []string
	var scores [][]string
	if b.Baseline != nil {
		scoreHead, scores = radar(d, b)
	}
	curves(d, b)
	spectrumCharts(d, t, b)
	steadySection(d, t, b)
	heapGradient(d, b)

	if b.Baseline != nil {
		d.h(3, "Radar scores against %s", b.Baseline.Label)
		d.table(preconditions(b)+" · baseline "+b.Baseline.Label, scoreHead, scores)
	}
	results(d, b)
	limitsSection(d, b) // limits.go
	if b.Baseline != nil {
		ratios(d, b)
	}
	wins(d, b)
	peaks(d, b)
}

// verdicts puts the batch's headline in words: throughput and p99 at
// each workload point, of every variant against the baseline, or without
// one the best variant if it was decided.
func verdicts(d *doc, b *analysis.Batch) {
	rps, p99 := columnByKey("throughput"), columnByKey("latency_p99")
	var items []string
	if b.Baseline == nil {
		for _, p := range b.Points {
			if s := bestAt(b, p, rps, "highest throughput", p99, "lowest p99"); s != "" {
				items = append(items, s)
			}
		}
	}
	for _, c := range b.Candidates() {
		vs := b.Baseline.Label
		if len(c.Base.Unfair) > 0 {
			vs += " UNFAIR"
		}
		var phrases []string
		for _, m := range analysis.Headline(c.Point) {
			name := m.Title
			if m.Key == "throughput" {
				name = m.Key
			}
			phrases = append(phrases, verdictPhrase(name, b.Compare(m, c.Base, c.Cand)))
		}
		item := fmt.Sprintf("%s vs %s at %s: %s", label(c.Cand), vs, c.Point.Label(), strings.Join(phrases, "; "))
		if note := biasNote(b, c.Base, c.Cand); note != "" {
			item += " (" + note + ")"
		}
		items = append(items, item)
	}
	if len(items) == 0 {
		return
	}
	one := ""
	if b.Repeats < 2 {
		one = " One start per variant and point: the intervals cover only the noise within a start, not between starts."
	}
	what := "throughput and p99 at each workload point"
	if b.Holds() {
		what = "connections held, memory per connection and the heartbeats' p99 delay at the last step"
	}
	if b.Baseline != nil {
		d.p("Decisions against %s, %s: the ratio with its 95%% interval, better or worse when %s of %s, equivalent when the interval lies inside it, otherwise undecided (the reason follows).%s", b.Baseline.Label, what, b.Design().ClaimWords(), margins(b), one)
	} else {
		d.p("The best variant at each point, throughput and p99: named when, against the runner-up, %s of %s, equivalent when the interval lies inside it, else undecided.%s", b.Design().ClaimWords(), margins(b), one)
	}
	d.list(items)
}

// verdictPhrase says one decision in words: "throughput 1.21x [1.15,
// 1.27] better", "p99 undecided (not steady)".
func verdictPhrase(name string, c datasets.Comparison) string {
	s := name + " " + fmtComparison(c)
	if c.Verdict == decide.Undecided {
		s += " (" + decide.ShortReason(c) + ")"
	}
	return s
}

// bestAt says which variant is best at point p on two metrics, if that
// was decided; "" when fewer than two variants were measured there.
func bestAt(b *analysis.Batch, p analysis.Point, m1 analysis.Column, w1 string, m2 analysis.Column, w2 string) string {
	gs := b.At(p)
	var parts []string
	for _, mw := range []struct {
		m    analysis.Column
		word string
	}{{m1, w1}, {m2, w2}} {
		w, c := b.Winner(mw.m, gs)
		switch {
		case w == nil:
			return ""
		case c.Verdict != decide.Better:
			parts = append(parts, mw.word+" "+c.Verdict+" ("+label(w)+" ahead, "+orReason(c)+")")
		default:
			parts = append(parts, mw.word+" "+label(w))
		}
	}
	return "at " + p.Label() + ": " + strings.Join(parts, ", ")
}

// orReason is the decision's short reason, or its interval when decided.
func orReason(c datasets.Comparison) string {
	if c.Verdict == decide.Undecided {
		return decide.ShortReason(c)
	}
	return fmtComparison(c)
}

// results is the main table per workload point: every metric of every
// variant, median ± spread.
func results(d *doc, b *analysis.Batch) {
	d.h(3, "Results")
	if b.Holds() {
		d.p("Median of the measured repeats ± half their range relative to the median, at each cell's last step: connections held, the target's memory growth per connection held, the heartbeats' p99 delay past their schedule, its threads, and the connections at which it first failed (its breaking point; - when it failed none). The holds table has every step.")
	} else {
		d.p("Median of the measured repeats ± half their range relative to the median. Tails: share of the kept window's requests over each threshold (count). `max` is shown, never ranked.")
	}
	for _, p := range b.Points {
		head := []string{"variant", "preconditions", "status", "repeats"}
		for _, m := range b.Columns() {
			head = append(head, m.Title)
		}
		var rows [][]string
		for _, v := range b.Variants {
			g := b.RepeatSet(v, p)
			if g == nil {
				continue
			}
			r := []string{v.Label, orDash(configOf(v)), status(g), fmt.Sprintf("%d/%d", len(g.Measured), len(g.Cells))}
			for _, m := range b.Columns() {
				s := fmtRepeats(g.Summary(m), formatOf(m))
				if n, ok := g.CountMedian(m); ok && s != "-" {
					s += " (" + commas(int64(math.Round(n))) + ")"
				}
				r = append(r, s)
			}
			rows = append(rows, r)
		}
		d.table(preconditions(b)+" · "+caption(p), head, rows)
	}
}

func ratios(d *doc, b *analysis.Batch) {
	d.h(3, "Ratios to the baseline %s", b.Baseline.Label)
	how := "Candidate / baseline of the means over every start that reached a steady state (for latency, memory, cold start, time to steady state and CPU a ratio above 1 is worse), with its 95% interval (from the spread between starts and the noise within each start)"
	if c := b.Confidence(); c > 0.95+1e-9 {
		how = fmt.Sprintf("%s; adaptive repeats looked after every round, so each interval is at the level of the look that decided it or, undecided, of the last look (up to %.1f%%; comparisons.confidence has each), which keeps the false-alarm rate over all looks at 5%%", how, 100*c)
	}
	d.p("%s, and the outcome: better or worse when %s of %s%s, equivalent when the interval lies inside it, undecided otherwise (reasons below the tables).", how, b.Design().ClaimWords(), margins(b), b.Design().OthersWords())
	var undecided []string
	for _, p := range b.Points {
		base := b.RepeatSet(b.Baseline, p)
		if base == nil {
			continue
		}
		head := []string{"variant"}
		for _, m := range b.Columns() {
			if m.Ranked() {
				head = append(head, m.Title)
			}
		}
		var rows [][]string
		for _, v := range b.Variants {
			g := b.RepeatSet(v, p)
			if g == nil || v == b.Baseline {
				continue
			}
			lb := label(g)
			if len(base.Unfair) > 0 {
				lb += " (baseline UNFAIR)"
			}
			if biasNote(b, base, g) != "" {
				lb += " (starts left out: never steady)"
			}
			r := []string{lb}
			for _, m := range b.Columns() {
				if !m.Ranked() {
					continue
				}
				c := b.Compare(m, base, g)
				r = append(r, fmtComparison(c))
				if c.Verdict == decide.Undecided {
					undecided = append(undecided, fmt.Sprintf("%s at %s, %s: %s", v.Label, p.Label(), m.Title, c.Reason))
				}
			}
			rows = append(rows, r)
		}
		if len(rows) > 0 {
			d.table(preconditions(b)+" · "+caption(p)+" · baseline "+b.Baseline.Label, head, rows)
		}
	}
	if len(undecided) > 0 {
		d.p("Undecided, and why:")
		d.list(undecided)
	}
}

func wins(d *doc, b *analysis.Batch) {
	if len(b.Variants) < 2 {
		return
	}
	d.h(3, "Win counts per workload point")
	d.p("A variant wins a workload point when its median is best and, against the runner-up, %s%s: better; otherwise the point has no winner: equivalent (inside the margin) or undecided. Wins at points with an unfair cell are counted in brackets.", b.Design().ClaimWords(), b.Design().OthersWords())
	head := []string{"metric"}
	for _, v := range b.Variants {
		head = append(head, v.Label)
	}
	head = append(head, "equivalent", "undecided", "points")
	var rows [][]string
	var sentence string
	for _, m := range b.Columns() {
		if !m.Ranked() {
			continue
		}
		wc := b.Wins(m)
		if wc.Points == 0 {
			continue
		}
		r := []string{m.Title}
		for _, v := range b.Variants {
			s := fmt.Sprint(wc.Count[v.Label])
			if wc.Unfair[v.Label] > 0 {
				s += fmt.Sprintf(" (%d UNFAIR)", wc.Unfair[v.Label])
			}
			r = append(r, s)
		}
		rows = append(rows, append(r, fmt.Sprint(wc.Equivalent), fmt.Sprint(wc.Undecided), fmt.Sprint(wc.Points)))
		if m.Key == "throughput" {
			var parts []string
			for _, v := range b.Variants {
				if wc.Count[v.Label] > 0 {
					parts = append(parts, fmt.Sprintf("%s had the highest throughput in %d of %d workload points", v.Label, wc.Count[v.Label], wc.Points))
				}
			}
			if wc.Equivalent > 0 {
				parts = append(parts, fmt.Sprintf("%d of %d were equivalent", wc.Equivalent, wc.Points))
			}
			if wc.Undecided > 0 {
				parts = append(parts, fmt.Sprintf("%d of %d undecided", wc.Undecided, wc.Points))
			}
			sentence = strings.Join(parts, "; ") + "."
		}
	}
	if sentence != "" {
		d.p("%s", sentence)
	}
	d.table(preconditions(b)+" · every workload point of the batch", head, rows)
}

func peaks(d *doc, b *analysis.Batch) {
	ps := b.Peaks()
	if len(ps) == 0 {
		return
	}
	d.h(3, "Peak throughput per payload")
	d.p("Each variant's highest median throughput over the closed-loop concurrencies of a payload, with the concurrency it was reached at and the p99 there.")
	var rows [][]string
	for _, pk := range ps {
		pls := "-"
		if pk.Payload >= 0 {
			pls = fmt.Sprintf("%d B", pk.Payload)
		}
		g := pk.Set
		rows = append(rows, []string{pls, label(g), fmtRPS(pk.RPS), fmt.Sprint(g.Point.Concurrency),
			fmtRepeats(g.Summary(columnByKey("latency_p99")), fmtLatency)})
	}
	d.table(preconditions(b), []string{"payload", "variant", "peak rps", "at concurrency", "p99 there"}, rows)
}

// radar draws the batch's radar chart and returns its scores as a table
// head and rows, which the tables part of the batch shows.
func radar(d *doc, b *analysis.Batch) ([]string, [][]string) {
	d.h(3, "Radar: seven dimensions against %s", b.Baseline.Label)
	d.p("Score per axis: 100 + 30 × log10(advantage / baseline advantage), the advantage being the geometric mean over the workload points of baseline/candidate (candidate/baseline for throughput); the baseline is the circle at 100, outward is better. Throughput, latency and memory compare services on the same resources; cold start and CPU per request compare the resources one service needs: read those axes apart.")
	ch := &radarChart{title: fmt.Sprintf("Batch %s: scores against %s", b.Name, b.Baseline.Label)}
	for _, a := range analysis.RadarAxes {
		ch.axes = append(ch.axes, a.Label)
	}
	head := []string{"variant"}
	head = append(head, ch.axes...)
	var rows [][]string
	for _, rr := range b.Radar() {
		v := rr.Variant
		s := radarSeries{name: v.Label, color: color(b, v), baseline: v == b.Baseline, scores: rr.Scores, undecided: rr.Undecided}
		r := []string{v.Label}
		for i, score := range rr.Scores {
			switch {
			case math.IsNaN(score):
				r = append(r, "-")
			case rr.Undecided[i]:
				r = append(r, fmt.Sprintf("%.0f (undecided)", score))
			default:
				r = append(r, fmt.Sprintf("%.0f", score))
			}
		}
		if rr.Unfair {
			r[0] += " UNFAIR"
			s.name += " (unfair)"
		}
		ch.series = append(ch.series, s)
		rows = append(rows, r)
	}
	d.chart(&chartFile{File: "radar-" + b.Name + ".svg", Title: ch.title, SVG: ch.svg()})
	return head, rows
}

// margins is a batch's margin in words: "5%", or with the metrics that
// declare their own, "5% (p99 15%)".
func margins(b *analysis.Batch) string {
	d := b.Design()
	s := fmtPct(d.Margin)
	var own []string
	for _, m := range analysis.Columns() {
		if v, ok := d.Margins[m.Cmp]; ok && m.Cmp != "" && v != d.Margin {
			own = append(own, m.Title+" "+fmtPct(v))
		}
	}
	if len(own) > 0 {
		s += " (" + strings.Join(own, ", ") + ")"
	}
	return s
}
