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
// rounds/<batch>.json records how many ran.

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
	for r := 1; r <= last && (st.Stopped == "" || r <= st.Ran); r++ {
		began := time.Now()
		eo.Filter = func(c *pipeline.Cell) bool { return c.Batch == b.Name && c.Repeat == r }
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
		if rs.Done+rs.Failed > 0 {
			st.Elapsed += pipeline.Duration(time.Since(began))
		}
		st.Ran = max(st.Ran, r)
		if st.Stopped == "" {
			if err := decideRound(rd, p, b, &st, r, last, eo.Progress); err != nil {
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
			if c.Batch == b.Name && c.Repeat > st.Ran && eo.Only.Selects(c) {
				sum.NotNeeded++
			}
		}
	}
	return sum, nil
}

// decideRound decides batch b's comparisons after round r and sets why
// its rounds stop, if they do; it says so on w.
func decideRound(rd *pipeline.RunDir, p *pipeline.Plan, b *pipeline.Batch, st *pipeline.BatchRounds, r, last int, w io.Writer) error {
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
	undecided := undecidedAfter(b, rows, r, st)
	u := b.UntilWords()
	// No comparison at all (every cell of the baseline, or of every
	// candidate, failed so far) decides nothing: more starts may measure.
	none := st.Comparisons == 0
	switch {
	case none && r >= last:
		st.Stopped = pipeline.RoundsMax
		fmt.Fprintf(w, "batch %s: no comparison of %s after %d rounds (max): no measured cell of the baseline or of any candidate\n", b.Name, u, r)
	case none && r >= st.Min && b.Over(st.Elapsed.D()):
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
	case r >= st.Min && b.Over(st.Elapsed.D()):
		st.Stopped = pipeline.RoundsBudget
		fmt.Fprintf(w, "batch %s: budget %s spent after %d rounds; %d of %d %s comparisons undecided\n", b.Name, b.RepeatsBudget.D(), r, st.Undecided, st.Comparisons, u)
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

// undecidedAfter decides the batch's comparisons that stop it on
// the cells measured after round r, counts them into st, and returns the
// undecided ones.
func undecidedAfter(b *pipeline.Batch, rows []datasets.Cell, r int, st *pipeline.BatchRounds) []datasets.Comparison {
	all, undecided := Look(b, rows, r)
	st.Comparisons, st.Undecided = len(all), len(undecided)
	return undecided
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

// parenthesised is s in parentheses after a space, or "".
func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
