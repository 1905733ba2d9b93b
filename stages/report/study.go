package report

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"

	"yardstick/decide"
	"yardstick/pipeline"
	"yardstick/stages/report/analysis"
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
// The question and its answer come first after the failed checks, so
// that the answer and its chart are on the first screen; the declared CPU
// shares follow it.
func studySection(d *doc, t *analysis.Tables, batches []*analysis.Batch) {
	defer placementWords(d, t)
	q := t.Question
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
func placementWords(d *doc, t *analysis.Tables) {
	// One line per distinct share, naming every batch that made it.
	shares := analysis.Shares(t.Fairness)
	if len(shares) == 0 {
		return
	}
	var items []string
	for _, s := range shares {
		which := "Batch " + s.Batches[0]
		if len(s.Batches) > 1 {
			which = "Batches " + strings.Join(s.Batches, ", ")
		}
		if s.Pass {
			items = append(items, fmt.Sprintf("%s ran on a machine too small for disjoint CPU sets: %s.", which, s.Detail))
		} else {
			items = append(items, fmt.Sprintf("UNFAIR: %s ran with the target sharing CPUs: %s.", which, s.Detail))
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
func pointWinner(b *analysis.Batch, m analysis.Column, p analysis.Point) (who, why string) {
	o := b.PointWinner(m, p)
	switch {
	case !o.Measured:
		return "", ""
	case o.Winner != nil:
		return label(o.Winner), fmtComparison(o.Decision)
	case o.Verdict == decide.Equivalent:
		return decide.Equivalent, fmtComparison(o.Decision)
	}
	return decide.Undecided, decide.ShortReason(o.Decision)
}

// answerDimensions: per batch, each variant against the baseline on each
// radar dimension, one outcome over its workload points with the ratios
// and reasons; then the matched duties (event loops, access-log bytes per
// request) that make the comparison fair.
func answerDimensions(d *doc, t *analysis.Tables, batches []*analysis.Batch) {
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
			for _, a := range analysis.RadarAxes {
				o, detail := dimension(b, v, columnByKey(a.Key))
				byOutcome[o] = append(byOutcome[o], a.Label)
				rows = append(rows, []string{a.Label, v.Label, o, detail})
			}
			var parts []string
			for _, o := range append(slices.Clone(decide.Outcomes), "not measured") {
				if ls := byOutcome[o]; len(ls) > 0 {
					parts = append(parts, o+" on "+strings.Join(ls, ", "))
				}
			}
			sentences = append(sentences, fmt.Sprintf("%s against %s: %s", v.Label, b.Baseline.Label, strings.Join(parts, "; ")))
		}
		d.p("Batch %s (%d variants, margin %s): better or worse when %s (its 95%% interval) at every workload point, equivalent when the interval lies inside it, otherwise undecided.", b.Name, len(b.Variants), margins(b), b.Design().ClaimWords())
		d.list(sentences)
		decisionChart(d, b)
		d.table(preconditions(b), []string{"dimension", "variant", "outcome", "per workload point (ratio to " + b.Baseline.Label + ", 95% interval, or why undecided)"}, rows)
		duties(d, t, b.Name)
	}
}

// maxForestRows bounds a decision chart's rows.
const maxForestRows = 40

// decisionChart draws the batch's decisions against its baseline on the
// radar dimensions as a forest plot: the answer's picture.
func decisionChart(d *doc, b *analysis.Batch) {
	ch := &forestChart{title: fmt.Sprintf("Batch %s: ratios to %s with 95%% intervals", b.Name, b.Baseline.Label)}
	for _, v := range b.Variants {
		for _, a := range analysis.RadarAxes {
			m := columnByKey(a.Key)
			for _, p := range b.Points {
				base, g := b.RepeatSet(b.Baseline, p), b.RepeatSet(v, p)
				if v == b.Baseline || base == nil || g == nil || len(ch.rows) >= maxForestRows {
					continue
				}
				label := v.Label + " " + a.Label
				if len(b.Points) > 1 {
					label += " " + p.Label()
				}
				ch.rows = append(ch.rows, forestRow{label: label, c: b.Compare(m, base, g)})
			}
		}
	}
	if len(ch.rows) > 0 {
		d.chart(&chartFile{File: "decisions-" + b.Name + ".svg", Title: ch.title, SVG: ch.svg()})
	}
}

// dimension is variant v's decisions against the baseline on metric m
// (analysis.Batch.Dimension) in words: its outcome and the per-point
// detail.
func dimension(b *analysis.Batch, v *analysis.Variant, m analysis.Column) (string, string) {
	dm := b.Dimension(v, m)
	var detail []string
	for i, c := range dm.Decisions {
		s := dm.Points[i].Label() + ": " + fmtComparison(c)
		if c.Verdict == decide.Undecided {
			s += " (" + decide.ShortReason(c) + ")"
		}
		detail = append(detail, s)
	}
	if dm.Split {
		detail = append(detail, "the outcome differs between workload points")
	}
	return dm.Outcome, strings.Join(detail, "; ")
}

// duties says the batch's matched-duty checks in words: event loops per
// variant and access-log and response bytes per request.
func duties(d *doc, t *analysis.Tables, batch string) {
	var items []string
	for _, f := range analysis.Duties(t.Fairness, batch) {
		outcome := "matched"
		if !f.Pass {
			outcome = "NOT matched (UNFAIR)"
		}
		items = append(items, fmt.Sprintf("%s %s: %s", f.Check, outcome, deref(f.Detail)))
	}
	if len(items) == 0 {
		return
	}
	d.p("Matched duties in batch %s (fairness table):", batch)
	d.list(items)
}

// answerCrossover: per batch and payload, the throughput leader at each
// concurrency, and where it changes.
func answerCrossover(d *doc, batches []*analysis.Batch) {
	rps := columnByKey("throughput")
	for _, b := range batches {
		if len(b.Variants) < 2 {
			continue
		}
		byPayload := map[int64][]analysis.Point{}
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
			slices.SortFunc(pts, analysis.ComparePoints)
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
		d.p("Batch %s, throughput leader along concurrency (a leader: against the runner-up, %s of %s; otherwise equivalent or undecided):", b.Name, b.Design().ClaimWords(), margins(b))
		d.list(sentences)
		d.table(preconditions(b), []string{"payload", "throughput leader per concurrency"}, rows)
	}
}

// crossings says where the leader changes along the points: "go leads
// from c1 to c6; the curves cross between c6 and c12; helidon-aot leads
// from c12 to c48".
func crossings(pts []analysis.Point, leaders []string) string {
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
		case decide.Equivalent, decide.Undecided:
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
	return who != decide.Equivalent && who != decide.Undecided && who != "not measured"
}

// answerWinners: per batch and workload point, the winner of throughput
// (closed loop only: an open loop's throughput is its given rate), p99,
// RSS and CPU per request; then RSS at the start and the end of the load
// per variant; then whether every answer varied with {vary}.
func answerWinners(d *doc, t *analysis.Tables, batches []*analysis.Batch) {
	keys := []string{"throughput", "latency_p99", "rss", "cpu_per_request"}
	head := []string{"batch", "workload point"}
	for _, k := range keys {
		head = append(head, columnByKey(k).Title)
	}
	var rows [][]string
	var sentences []string
	for _, b := range batches {
		if len(b.Variants) < 2 {
			continue
		}
		for _, p := range b.Points {
			r := []string{b.Name, caption(p)}
			for _, k := range keys {
				if k == "throughput" && p.Mode == "open" {
					// An open loop's throughput is the rate it was given
					// (a late loop catching up even exceeds it): not ranked.
					r = append(r, "not ranked (open loop)")
					continue
				}
				who, why := pointWinner(b, columnByKey(k), p)
				if who == decide.Undecided {
					who += " (" + why + ")"
				}
				r = append(r, orDash(who))
			}
			rows = append(rows, r)
			if p.Mode == "open" {
				sentences = append(sentences, fmt.Sprintf("%s, %s: p99 %s, CPU/request %s", b.Name, caption(p), orDash(r[3]), orDash(r[5])))
				continue
			}
			sentences = append(sentences, fmt.Sprintf("%s, %s: throughput %s, p99 %s", b.Name, caption(p), orDash(r[2]), orDash(r[3])))
		}
	}
	d.list(sentences)
	d.table("Winners per batch and workload point (a winner: against the runner-up, its 95% interval excludes no difference and its ratio lies beyond the margin, or its whole interval does under the rule beyond-margin; otherwise equivalent or undecided)", head, rows)
	rssStartEnd(d, t, batches)
	varied(d, t)
}

// rssStartEnd tables each variant's RSS at the first sample of its load
// (the timeseries' first sampled interval of each cell), under load and
// after the idle that follows, medians over its cells.
func rssStartEnd(d *doc, t *analysis.Tables, batches []*analysis.Batch) {
	med := func(v float64) string {
		if math.IsNaN(v) {
			return "-"
		}
		return fmtBytes(v)
	}
	var rows [][]string
	for _, r := range analysis.RSSStartEnd(t.Series, batches) {
		rows = append(rows, []string{r.Batch, r.Variant, med(r.Start), med(r.Load), med(r.After)})
	}
	d.table("RSS per variant, medians over its cells: at the first sample of the load, under load (steady), and after the idle that follows",
		[]string{"batch", "variant", "RSS start", "RSS under load", "RSS end (after idle)"}, rows)
}

// varied says whether every variant's answers varied with {vary}: a
// static or cached answer fails response_varies.
func varied(d *doc, t *analysis.Tables) {
	pass, failed := analysis.Varied(t.Fairness)
	switch {
	case pass+len(failed) == 0:
		return
	case len(failed) == 0:
		d.p("Every measured cell's answers varied with {vary} (%d response_varies checks passed): no variant answered from a static or cached body.", pass)
	default:
		d.p("%d of %d cells answered the same body for different {vary} values (UNFAIR response_varies): a static or cached answer was measured.", len(failed), pass+len(failed))
		var details []string
		for _, f := range failed {
			details = append(details, deref(f.Detail))
		}
		d.list(details)
	}
}
