package runner

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/pipeline"
	"yardstick/stages/execute"
	"yardstick/stages/tabulate"
)

// Adaptive repeats (repeats: {min, max}) run a batch in rounds: round r
// is repeat r of every variant, each a new start. From round min on, after
// each round the batch's comparisons against its baseline are decided
// from the checkpoints so far ([Look]: decide.Batch, the same
// decisions as the comparisons table's, at the confidence of the round's
// look of the sequential design, decide.Sequential), and the batch stops
// once every comparison of the metrics it names (repeats.until:
// throughput and p99 by default) is better, worse or equivalent, at max rounds, or when its budget is spent.
// A point whose comparisons are all decided before then is settled: its
// cells of the later rounds do not run (a start then measures only the
// points still undecided), so that the rounds' time goes where the
// comparisons still need starts. A decision at a look is kept by the
// later looks (decide.Looks), so the settled point's figures are those
// its starts up to then measured, at that look's confidence.
// rounds/<batch>.json records how many ran and which points settled.

// runCells runs the plan's cells without a checkpoint: the batches with a
// fixed number of repeats in one pass, then each batch with adaptive
// repeats round by round. allowDrift lets a rebuilt binary differ from
// the lock (execute.Options.AllowDrift).
func runCells(ctx context.Context, rd *pipeline.RunDir, p *pipeline.Plan, allowDrift bool, o Options) (execute.Summary, error) {
	eo := execute.Options{Self: o.Self, Workdir: o.Workdir, Only: o.Only, Progress: o.Stderr, Terminal: o.Terminal, Hosts: o.Hosts, AllowDrift: allowDrift}
	rounds, err := rd.ReadRounds(p)
	if err != nil {
		return execute.Summary{}, err
	}
	fixed := eo
	fixed.Filter = func(c *pipeline.Cell) bool { b := p.Batch(c.Batch); return b == nil || !b.Adaptive() }
	sum, err := execute.Run(ctx, rd, p, fixed)
	if err != nil || sum.Interrupted {
		return sum, err
	}
	for i := range p.Batches {
		b := &p.Batches[i]
		if !b.Adaptive() {
			continue
		}
		bs, err := runRounds(ctx, rd, p, b, rounds[b.Name], eo)
		sum.Add(bs)
		if err != nil || bs.Interrupted {
			return sum, err
		}
	}
	return sum, nil
}

// runRounds runs batch b round by round from st, its rounds so far.
func runRounds(ctx context.Context, rd *pipeline.RunDir, p *pipeline.Plan, b *pipeline.Batch, st pipeline.BatchRounds, eo execute.Options) (execute.Summary, error) {
	st.Min, st.Max = b.RepeatsMin, b.Repeats
	last := b.Repeats
	if st.Fixed > 0 {
		last = st.Fixed
	}
	var sum execute.Summary
	var lastTook time.Duration // the last round's wall time
	lastCells := 0             // and the cells it measured
	for r := 1; r <= last && (st.Stopped == "" || r <= st.Ran); r++ {
		began := time.Now()
		eo.Filter = func(c *pipeline.Cell) bool { return c.Batch == b.Name && c.Repeat == r && !st.Skips(c) }
		eo.Stage = fmt.Sprintf("%s round %d of %d to %d:", b.Name, r, st.Min, last)
		if st.Fixed > 0 {
			eo.Stage = fmt.Sprintf("%s round %d of %d:", b.Name, r, last)
		}
		rp, err := roundPlan(rd, p, b, &st, r, eo.Progress)
		if err != nil {
			return sum, err
		}
		rs, err := execute.Run(ctx, rd, rp, eo)
		sum.Add(rs)
		if err != nil || rs.Interrupted {
			return sum, err
		}
		if n := rs.Done + rs.Failed; n > 0 {
			lastTook, lastCells = time.Since(began), n
			st.Elapsed += pipeline.Duration(lastTook)
		}
		st.Ran = max(st.Ran, r)
		if st.Stopped == "" {
			if err := decideRound(rd, p, b, &st, r, last, roundTime{lastTook, lastCells}, eo.Progress); err != nil {
				return sum, err
			}
		}
		if err := rd.WriteRounds(b.Name, st); err != nil {
			return sum, err
		}
		if st.Stopped != "" {
			break
		}
	}
	if st.Stopped != "" {
		for i := range p.Cells {
			c := &p.Cells[i]
			if c.Batch == b.Name && st.Skips(c) && eo.Only.Selects(c) {
				sum.NotNeeded++
			}
		}
	}
	return sum, nil
}

// A roundTime is a round's wall time and the cells it measured.
type roundTime struct {
	took  time.Duration
	cells int
}

// nextRound estimates the wall time of round r from the last round's,
// scaled to the cells round r will run (a point that settled runs no
// cells in it); 0 without a last round.
func nextRound(p *pipeline.Plan, b *pipeline.Batch, st *pipeline.BatchRounds, r int, last roundTime) time.Duration {
	if last.cells == 0 {
		return 0
	}
	n := 0
	for i := range p.Cells {
		c := &p.Cells[i]
		if c.Batch == b.Name && c.Repeat == r && !st.Skips(c) {
			n++
		}
	}
	return time.Duration(float64(last.took) * float64(n) / float64(last.cells))
}

// decideRound decides batch b's comparisons after round r and sets why
// its rounds stop, if they do; it says so on w.
func decideRound(rd *pipeline.RunDir, p *pipeline.Plan, b *pipeline.Batch, st *pipeline.BatchRounds, r, last int, took roundTime, w io.Writer) error {
	if st.Fixed > 0 {
		if r >= st.Fixed {
			st.Stopped = pipeline.RoundsRerun
			fmt.Fprintf(w, "batch %s: %d round(s), as many as the run this reruns\n", b.Name, r)
		}
		return nil
	}
	rows, err := tabulate.CellRows(rd, p, b.Name)
	if err != nil {
		return fmt.Errorf("batch %s, round %d: %w", b.Name, r, err)
	}
	all, undecided := Look(b, rows, r)
	st.Comparisons, st.Undecided = len(all), len(undecided)
	u := b.UntilWords()
	if r >= st.Min && r < last && len(undecided) > 0 && settles(p, b) {
		for _, pt := range settle(st, all, r) {
			fmt.Fprintf(w, "batch %s: %s decided after round %d (%s); its later rounds run without it\n", b.Name, pt, r, u)
		}
	}
	// The budget bounds the rounds' time: a round that would not end
	// within it does not start.
	next := nextRound(p, b, st, r+1, took)
	// No comparison at all (every cell of the baseline, or of every
	// candidate, failed so far) decides nothing: more starts may measure.
	none := st.Comparisons == 0
	switch {
	case none && r >= last:
		st.Stopped = pipeline.RoundsMax
		fmt.Fprintf(w, "batch %s: no comparison of %s after %d rounds (max): no measured cell of the baseline or of any candidate\n", b.Name, u, r)
	case none && r >= st.Min && b.Over(st.Elapsed.D(), next):
		st.Stopped = pipeline.RoundsBudget
		fmt.Fprintf(w, "batch %s: budget %s spent after %d rounds; no comparison of %s (no measured cell of the baseline or of any candidate)\n", b.Name, b.RepeatsBudget.D(), r, u)
	case none:
		fmt.Fprintf(w, "batch %s: round %d of %d to %d: no comparison of %s yet (no measured cell of the baseline or of any candidate); next round\n", b.Name, r, st.Min, last, u)
	case r >= st.Min && st.Undecided == 0:
		st.Stopped = pipeline.RoundsDecided
		fmt.Fprintf(w, "batch %s: round %d: all %d %s comparisons decided; no more rounds\n", b.Name, r, st.Comparisons, u)
	case r >= last:
		st.Stopped = pipeline.RoundsMax
		fmt.Fprintf(w, "batch %s: %d of %d %s comparisons still undecided after %d rounds (max):\n", b.Name, st.Undecided, st.Comparisons, u, r)
		for _, u := range undecided {
			fmt.Fprintf(w, "  %s %s vs %s, %s: %s\n", u.Point, u.Candidate, u.Baseline, u.Metric, u.Reason)
		}
	case r >= st.Min && b.Over(st.Elapsed.D(), next):
		st.Stopped = pipeline.RoundsBudget
		fmt.Fprintf(w, "batch %s: budget %s: %s after %d rounds, and round %d would take about %s more; %d of %d %s comparisons undecided%s\n",
			b.Name, b.RepeatsBudget.D(), st.Elapsed.D().Round(time.Second), r, r+1, next.Round(time.Second), st.Undecided, st.Comparisons, u, parenthesised(decide.Guidance(undecided)))
	default:
		fmt.Fprintf(w, "batch %s: round %d of %d to %d: %d of %d %s comparisons undecided%s; next round\n", b.Name, r, st.Min, last, st.Undecided, st.Comparisons, u, parenthesised(decide.Guidance(undecided)))
	}
	// Undecided on a busy machine: say so, since more rounds of the same
	// are then not what would decide.
	if busy := decide.Busy(rows); busy != "" && (none || st.Undecided > 0) {
		fmt.Fprintf(w, "  note: %s\n", busy)
	}
	return nil
}

// Look decides batch b's comparisons that stop its rounds on its cells
// measured after round r, as the comparisons table will
// (decide.Looks: each look at its own confidence, a comparison
// decided at an earlier look kept): all of them, and the undecided ones.
// The rounds stop when none is undecided.
// It is the one decision the rounds make, and the one the calibration's
// simulation of the rounds makes.
func Look(b *pipeline.Batch, rows []datasets.Cell, r int) (all, undecided []datasets.Comparison) {
	cells := make([]*datasets.Cell, len(rows))
	for i := range rows {
		cells[i] = &rows[i]
	}
	base := decide.BaselineVariant(cells, b.Baseline)
	if base == "" {
		return nil, nil
	}
	until := b.Until()
	if slices.Equal(until, pipeline.DefaultUntil) && len(rows) > 0 {
		until = decide.Headline(rows[0].Mode) // a hold batch's own
	}
	for _, c := range decide.Looks(b, cells, base, pipeline.BatchRounds{Ran: r}) {
		if !slices.Contains(until, c.Metric) {
			continue
		}
		all = append(all, c)
		if c.Verdict == "undecided" {
			undecided = append(undecided, c)
		}
	}
	return all, undecided
}

// settles says whether batch b's rounds may settle a point: every point
// of its cells is measured on its own, in a closed loop or at a fixed
// open-loop rate, none taking its rate from another point's peak in the
// same start or sharing its start's load with a connection-holding
// point.
func settles(p *pipeline.Plan, b *pipeline.Batch) bool {
	for i := range p.Cells {
		c := &p.Cells[i]
		if c.Batch != b.Name {
			continue
		}
		if pt := c.Point; pt.Mode != "closed" && (pt.Mode != "open" || pt.PeakFraction > 0) {
			return false
		}
	}
	return true
}

// settle records in st the points settled after round r: those not yet
// settled at which every one of all, the comparisons that stop the
// rounds (Look), is decided. It returns them, sorted.
func settle(st *pipeline.BatchRounds, all []datasets.Comparison, r int) []string {
	decided := map[string]bool{}
	for _, c := range all {
		if _, done := st.Settled[c.Point]; done {
			continue
		}
		if d, seen := decided[c.Point]; !seen || d {
			decided[c.Point] = c.Verdict != decide.Undecided
		}
	}
	var out []string
	for pt, d := range decided {
		if d {
			out = append(out, pt)
		}
	}
	slices.Sort(out)
	for _, pt := range out {
		if st.Settled == nil {
			st.Settled = map[string]int{}
		}
		st.Settled[pt] = r
	}
	return out
}

// parenthesised is s in parentheses after a space, or "".
func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
