package report

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"yardstick/pipeline"
	"yardstick/stats"
)

// This file answers a study's question on the report's first screen
// (question: {text, answer} in the experiment, kept in the run's
// plan.json), and says in words the compromises of a small machine (the
// placement rows of the fairness table).

// readQuestion returns the question the run's plan.json declares; nil
// when dir has no plan.json or the experiment asks none. The question is
// text of the definition, not a measurement, so it is read from the lock
// beside the tables. A plan.json that is refused (a link, a pipe, edited
// after it was made) gives no question and a note saying why.
func readQuestion(ctx context.Context, dir string) (*pipeline.Question, string) {
	rd := (&pipeline.RunDir{Root: dir}).WithContext(ctx)
	p, err := rd.ReadPlan()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, ""
	case err != nil:
		return nil, fmt.Sprintf("the study's question is left out: %v", err)
	}
	return p.Question, ""
}

// studySection is the first screen after the failed checks: the
// placement compromises in words, then the study's question and its
// answer.
func studySection(d *doc, t *tables, batches []*Batch) {
	placementWords(d, t)
	q := t.question
	if q == nil {
		return
	}
	d.h(2, "The question: %s", q.Text)
	switch q.Answer {
	case pipeline.AnswerDimensions:
		answerDimensions(d, t, batches)
	case pipeline.AnswerCrossover:
		answerCrossover(d, batches)
	case pipeline.AnswerWinners:
		answerWinners(d, t, batches)
	default:
		d.p("The experiment asks for an answer of kind %q, which this report does not know.", q.Answer)
	}
}

// placementWords says each declared CPU share (fairness rows of check
// placement) as a sentence.
func placementWords(d *doc, t *tables) {
	// One line per distinct share, naming every batch that made it.
	type share struct {
		pass    bool
		detail  string
		batches []string
	}
	var shares []*share
	for _, f := range t.fairness {
		if f.Check != "placement" {
			continue
		}
		detail := strings.TrimPrefix(deref(f.Detail), "warning: ")
		i := slices.IndexFunc(shares, func(s *share) bool { return s.pass == f.Pass && s.detail == detail })
		if i < 0 {
			shares = append(shares, &share{pass: f.Pass, detail: detail})
			i = len(shares) - 1
		}
		shares[i].batches = append(shares[i].batches, f.Batch)
	}
	if len(shares) == 0 {
		return
	}
	var items []string
	for _, s := range shares {
		which := "Batch " + s.batches[0]
		if len(s.batches) > 1 {
			which = "Batches " + strings.Join(s.batches, ", ")
		}
		if s.pass {
			items = append(items, fmt.Sprintf("%s ran on a machine too small for disjoint CPU sets: %s.", which, s.detail))
		} else {
			items = append(items, fmt.Sprintf("UNFAIR: %s ran with the target sharing CPUs: %s.", which, s.detail))
		}
	}
	d.h(2, "Small machine: CPU sets shared by declaration")
	d.p("The definition declared these overlaps (placement.share); read every number of these batches with them in mind.")
	d.list(items)
}

// pointWinner names the winner of metric m at point p of batch b: the
// best variant when its interval against the runner-up lies beyond the
// margin, else "equivalent" or "undecided" (with the reason in why); ""
// when fewer than two variants were measured there.
func pointWinner(b *Batch, m metric, p Point) (who, why string) {
	var gs []*Sample
	for _, v := range b.Variants {
		if g := b.Sample(v, p); g != nil {
			gs = append(gs, g)
		}
	}
	w, c := winner(b, m, gs)
	switch {
	case w == nil:
		return "", ""
	case c.Verdict == stats.Better:
		return label(w), fmtComparison(c)
	case c.Verdict == stats.Equivalent:
		return stats.Equivalent, fmtComparison(c)
	}
	return stats.Undecided, c.ShortReason()
}

// overall folds per-point outcomes into one: the single outcome of every
// measured point, else "undecided" when any point was, else "split".
func overall(per []string) string {
	var seen []string
	for _, w := range per {
		if w != "" && !slices.Contains(seen, w) {
			seen = append(seen, w)
		}
	}
	switch {
	case len(seen) == 0:
		return "not measured"
	case len(seen) == 1:
		return seen[0]
	case slices.Contains(seen, stats.Undecided):
		return stats.Undecided
	}
	return "split"
}

// answerDimensions: per batch, each variant against the baseline on each
// radar dimension, one outcome over its workload points with the ratios
// and reasons; then the matched duties (event loops, access-log bytes per
// request) that make the comparison fair.
func answerDimensions(d *doc, t *tables, batches []*Batch) {
	for _, b := range batches {
		if b.Baseline == nil {
			// A batch without a baseline (a heap gradient) varies one
			// knob of one service: it answers another question.
			d.p("Batch %s has no baseline: it does not compete on the dimensions (its own section follows).", b.Name)
			continue
		}
		if len(b.Variants) < 2 {
			continue
		}
		var rows [][]string
		var sentences []string
		for _, v := range b.Variants {
			if v == b.Baseline {
				continue
			}
			byOutcome := map[string][]string{}
			for _, a := range radarAxes {
				o, detail := dimension(b, v, metricByKey(a.key))
				byOutcome[o] = append(byOutcome[o], a.label)
				rows = append(rows, []string{a.label, v.Label, o, detail})
			}
			var parts []string
			for _, o := range append(slices.Clone(stats.Outcomes), "not measured") {
				if ls := byOutcome[o]; len(ls) > 0 {
					parts = append(parts, o+" on "+strings.Join(ls, ", "))
				}
			}
			sentences = append(sentences, fmt.Sprintf("%s against %s: %s", v.Label, b.Baseline.Label, strings.Join(parts, "; ")))
		}
		d.p("Batch %s (%d variants, margin %s): better or worse when the 95%% interval of the ratio lies beyond the margin at every workload point, equivalent when inside it, otherwise undecided.", b.Name, len(b.Variants), fmtPct(b.Noise))
		d.list(sentences)
		decisionChart(d, b)
		d.table(b.preconditions(), []string{"dimension", "variant", "outcome", "per workload point (ratio to " + b.Baseline.Label + ", 95% interval, or why undecided)"}, rows)
		duties(d, t, b.Name)
	}
}

// maxForestRows bounds a decision chart's rows.
const maxForestRows = 40

// decisionChart draws the batch's decisions against its baseline on the
// radar dimensions as a forest plot: the answer's picture.
func decisionChart(d *doc, b *Batch) {
	ch := &forestChart{title: fmt.Sprintf("Batch %s: ratios to %s with 95%% intervals", b.Name, b.Baseline.Label)}
	for _, v := range b.Variants {
		for _, a := range radarAxes {
			m := metricByKey(a.key)
			for _, p := range b.Points {
				base, g := b.Sample(b.Baseline, p), b.Sample(v, p)
				if v == b.Baseline || base == nil || g == nil || len(ch.rows) >= maxForestRows {
					continue
				}
				label := v.Label + " " + a.label
				if len(b.Points) > 1 {
					label += " " + p.Label()
				}
				ch.rows = append(ch.rows, forestRow{label: label, c: b.compare(m, base, g)})
			}
		}
	}
	if len(ch.rows) > 0 {
		d.chart(&chartFile{File: "decisions-" + b.Name + ".svg", Title: ch.title, SVG: ch.svg()})
	}
}

// dimension folds variant v's decisions against the baseline on metric m
// over the batch's points into one outcome (the same at every point, else
// undecided) and the per-point detail.
func dimension(b *Batch, v *Variant, m metric) (string, string) {
	var outcomes, detail []string
	for _, p := range b.Points {
		base, g := b.Sample(b.Baseline, p), b.Sample(v, p)
		if base == nil || g == nil {
			continue
		}
		c := b.compare(m, base, g)
		outcomes = append(outcomes, c.Verdict)
		s := p.Label() + ": " + fmtComparison(c)
		if c.Verdict == stats.Undecided {
			s += " (" + c.ShortReason() + ")"
		}
		detail = append(detail, s)
	}
	o := overall(outcomes)
	if o == "split" {
		o = stats.Undecided
		detail = append(detail, "the outcome differs between workload points")
	}
	return o, strings.Join(detail, "; ")
}

// duties says the batch's matched-duty checks in words: event loops per
// variant and access-log and response bytes per request.
func duties(d *doc, t *tables, batch string) {
	var items []string
	for _, f := range t.fairness {
		if f.Batch != batch || f.Scope != "batch" {
			continue
		}
		switch f.Check {
		case "event_loops", "log_bytes", "response_bytes":
			verdict := "matched"
			if !f.Pass {
				verdict = "NOT matched (UNFAIR)"
			}
			items = append(items, fmt.Sprintf("%s %s: %s", f.Check, verdict, deref(f.Detail)))
		}
	}
	if len(items) == 0 {
		return
	}
	d.p("Matched duties in batch %s (fairness table):", batch)
	d.list(items)
}

// answerCrossover: per batch and payload, the throughput leader at each
// concurrency, and where it changes.
func answerCrossover(d *doc, batches []*Batch) {
	rps := metricByKey("rps")
	for _, b := range batches {
		if len(b.Variants) < 2 {
			continue
		}
		byPayload := map[int64][]Point{}
		var payloads []int64
		for _, p := range b.Points {
			if p.Mode != "closed" {
				continue
			}
			if _, ok := byPayload[p.Payload]; !ok {
				payloads = append(payloads, p.Payload)
			}
			byPayload[p.Payload] = append(byPayload[p.Payload], p)
		}
		slices.Sort(payloads)
		var rows [][]string
		var sentences []string
		for _, pl := range payloads {
			pts := byPayload[pl]
			slices.SortFunc(pts, comparePoints)
			var leaders, cells []string
			for _, p := range pts {
				w, _ := pointWinner(b, rps, p)
				leaders = append(leaders, w)
				cells = append(cells, fmt.Sprintf("c%d: %s", p.Concurrency, orDash(w)))
			}
			name := "no payload"
			if pl >= 0 {
				name = fmt.Sprintf("payload %d B", pl)
			}
			sentences = append(sentences, name+": "+crossings(pts, leaders))
			rows = append(rows, []string{name, strings.Join(cells, "; ")})
		}
		d.p("Batch %s, throughput leader along concurrency (a leader: its interval against the runner-up lies beyond the margin of %s; otherwise equivalent or undecided):", b.Name, fmtPct(b.Noise))
		d.list(sentences)
		d.table(b.preconditions(), []string{"payload", "throughput leader per concurrency"}, rows)
	}
}

// crossings says where the leader changes along the points: "go leads
// from c1 to c6; the curves cross between c6 and c12; helidon-aot leads
// from c12 to c48".
func crossings(pts []Point, leaders []string) string {
	type run struct {
		who      string
		from, to int64
	}
	var runs []run
	for i, p := range pts {
		w := leaders[i]
		if w == "" {
			w = "not measured"
		}
		if n := len(runs); n > 0 && runs[n-1].who == w {
			runs[n-1].to = p.Concurrency
			continue
		}
		runs = append(runs, run{w, p.Concurrency, p.Concurrency})
	}
	var parts []string
	crossed := false
	for i, r := range runs {
		span := fmt.Sprintf("c%d", r.from)
		if r.to != r.from {
			span = fmt.Sprintf("c%d to c%d", r.from, r.to)
		}
		switch r.who {
		case stats.Equivalent, stats.Undecided:
			parts = append(parts, r.who+" at "+span)
		case "not measured":
			parts = append(parts, "not measured at "+span)
		default:
			parts = append(parts, r.who+" leads at "+span)
		}
		if i > 0 && leader(r.who) {
			for j := i - 1; j >= 0; j-- {
				if prev := runs[j].who; leader(prev) {
					if prev != r.who {
						parts = append(parts, fmt.Sprintf("the curves cross between c%d and c%d", runs[j].to, r.from))
						crossed = true
					}
					break
				}
			}
		}
	}
	s := strings.Join(parts, "; ")
	if !crossed {
		s += " (the curves do not cross in this range)"
	}
	return s
}

// leader says whether a crossing run's who names a variant.
func leader(who string) bool {
	return who != stats.Equivalent && who != stats.Undecided && who != "not measured"
}

// answerWinners: per batch and workload point, the winner of throughput
// (closed loop only: an open loop's throughput is its given rate), p99,
// RSS and CPU per request; then RSS at the start and the end of the load
// per variant; then whether every answer varied with {vary}.
func answerWinners(d *doc, t *tables, batches []*Batch) {
	keys := []string{"rps", "p99", "rss", "cpu"}
	head := []string{"batch", "workload point"}
	for _, k := range keys {
		head = append(head, metricByKey(k).title)
	}
	var rows [][]string
	var sentences []string
	for _, b := range batches {
		if len(b.Variants) < 2 {
			continue
		}
		for _, p := range b.Points {
			r := []string{b.Name, p.Caption()}
			for _, k := range keys {
				if k == "rps" && p.Mode == "open" {
					// An open loop's throughput is the rate it was given
					// (a late loop catching up even exceeds it): not ranked.
					r = append(r, "not ranked (open loop)")
					continue
				}
				who, why := pointWinner(b, metricByKey(k), p)
				if who == stats.Undecided {
					who += " (" + why + ")"
				}
				r = append(r, orDash(who))
			}
			rows = append(rows, r)
			if p.Mode == "open" {
				sentences = append(sentences, fmt.Sprintf("%s, %s: p99 %s, CPU/request %s", b.Name, p.Caption(), orDash(r[3]), orDash(r[5])))
				continue
			}
			sentences = append(sentences, fmt.Sprintf("%s, %s: throughput %s, p99 %s", b.Name, p.Caption(), orDash(r[2]), orDash(r[3])))
		}
	}
	d.list(sentences)
	d.table("Winners per batch and workload point (a winner: its 95% interval against the runner-up lies beyond the margin; otherwise equivalent or undecided)", head, rows)
	rssStartEnd(d, t, batches)
	varied(d, t)
}

// rssStartEnd tables each variant's RSS at the first sample of its load
// (the timeseries' first sampled interval of each cell), under load and
// after the idle that follows, medians over its cells.
func rssStartEnd(d *doc, t *tables, batches []*Batch) {
	first := map[string]int64{}
	seen := map[string]int64{}
	for _, s := range t.series {
		if s.RSSBytes == nil {
			continue
		}
		if at, ok := seen[s.CellID]; !ok || s.Interval < at {
			seen[s.CellID], first[s.CellID] = s.Interval, *s.RSSBytes
		}
	}
	var rows [][]string
	for _, b := range batches {
		for _, v := range b.Variants {
			var start, load, after []float64
			for _, p := range b.Points {
				g := b.Sample(v, p)
				if g == nil {
					continue
				}
				for _, c := range g.Measured {
					if r, ok := first[c.CellID]; ok && r > 0 {
						start = append(start, float64(r))
					}
					if x, ok := i64(c.RSSSteadyBytes); ok {
						load = append(load, x)
					}
					if x, ok := i64(c.RSSAfterBytes); ok {
						after = append(after, x)
					}
				}
			}
			med := func(vs []float64) string {
				if len(vs) == 0 {
					return "-"
				}
				return fmtBytes(stats.Median(vs))
			}
			rows = append(rows, []string{b.Name, v.Label, med(start), med(load), med(after)})
		}
	}
	d.table("RSS per variant, medians over its cells: at the first sample of the load, under load (steady), and after the idle that follows",
		[]string{"batch", "variant", "RSS start", "RSS under load", "RSS end (after idle)"}, rows)
}

// varied says whether every variant's answers varied with {vary}: a
// static or cached answer fails response_varies.
func varied(d *doc, t *tables) {
	var pass, fail int
	var failed []string
	for _, f := range t.fairness {
		if f.Check != "response_varies" {
			continue
		}
		if f.Pass {
			pass++
			continue
		}
		fail++
		failed = append(failed, deref(f.Detail))
	}
	switch {
	case pass+fail == 0:
		return
	case fail == 0:
		d.p("Every measured cell's answers varied with {vary} (%d response_varies checks passed): no variant answered from a static or cached body.", pass)
	default:
		d.p("%d of %d cells answered the same body for different {vary} values (UNFAIR response_varies): a static or cached answer was measured.", fail, pass+fail)
		d.list(failed)
	}
}
