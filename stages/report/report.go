// Package report is the pipeline's last stage: it reads a run directory's
// Parquet tables (through package datasets, and nothing else for numbers)
// and writes report.md, a self-contained report.html and the SVG charts.
// Compare (compare.go) reads two runs through the same read model and
// renders their comparison through the same document model.
//
// The flow:
//
//  1. load: cells.parquet (required), timeseries, spectrum, fairness,
//     environment and batches (each optional, with a note when missing;
//     batches holds the CPU sets, declared noise bands and baselines). No
//     other file is read. A foreign, truncated or mismatched file is an
//     error, never a panic.
//  2. model (model.go): the metric registry; cells grouped by batch, then
//     variant x workload point (named by pipeline.Point.Label); the
//     repeats there are one Sample (median, spread). Cells of status
//     ok and unfair are measured; unfair ones are marked wherever they
//     appear; failed and pending ones are counted.
//  3. verdicts: inside each batch only, every ranked metric of every
//     variant against the batch's baseline with package stats (tie inside
//     max(noise band, spread), Mann-Whitney U from five repeats). max is
//     shown and never ranked. A baseline missing from a batch leaves that
//     batch without ratios; batches are never ranked against each other.
//  4. document: one list of blocks (headings, tables that carry their
//     preconditions in a caption, charts), rendered to Markdown and HTML by
//     the same walk; charts are hand-written SVG.
//  5. write: every file atomically (temporary file and rename) into the
//     output directory, <rundir>/report by default.
//
// The output depends only on the Parquet tables: the same run gives
// byte-identical files.
package report

import (
	"context"
	"fmt"
	"maps"
	"math"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"yardstick/datasets"
	"yardstick/pipeline"
	"yardstick/pipeline/runfs"
	"yardstick/stats"
)

// Options shape a report.
type Options struct {
	// Baseline names the baseline target (or variant label) of every
	// batch; empty uses each batch's declared baseline.
	Baseline string
	// Formats are "md" and/or "html"; nil writes both. The SVG charts are
	// always written.
	Formats []string
	// Out is the output directory; empty is <rundir>/report.
	Out string
	// Context ends the reads (Ctrl-C, SIGTERM); nil is
	// context.Background().
	Context context.Context
}

// Result says what Run wrote.
type Result struct {
	// Out is the output directory.
	Out string
	// Files are the paths written, sorted.
	Files []string
	// Notes are what the report says is missing or refused.
	Notes []string
}

// chartPrefixes name the files Run owns in the output directory: stale
// charts of an earlier report with these prefixes are removed.
var chartPrefixes = []string{"radar-", "throughput-", "p99-", "spectrum-", "rampup-", "heap-"}

// Run reports on the run directory dir.
func Run(dir string, o Options) (Result, error) {
	var res Result
	for _, f := range o.Formats {
		if f != "md" && f != "html" {
			return res, fmt.Errorf("unknown format %q (want md, html)", f)
		}
	}
	if o.Formats == nil {
		o.Formats = []string{"md", "html"}
	}
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	t, err := load(ctx, dir)
	if err != nil {
		return res, err
	}
	var qnote string
	if t.question, qnote = readQuestion(ctx, dir); qnote != "" {
		t.notes = append(t.notes, qnote)
	}
	d, notes := build(t, o.Baseline)
	res.Notes = notes
	out := outDir(dir, o.Out)
	res.Out = out.path()
	if err := runfs.MkdirAll(out.root, out.rel); err != nil {
		return res, fmt.Errorf("report: %w", err)
	}
	write := func(name string, data []byte) error {
		if name != filepath.Base(name) || strings.HasPrefix(name, ".") {
			return fmt.Errorf("report: file name %q is not a plain name", name)
		}
		if err := runfs.WriteFile(out.root, out.join(name), data); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		res.Files = append(res.Files, filepath.Join(res.Out, name))
		return nil
	}
	keep := map[string]bool{}
	for _, c := range d.charts() {
		if err := write(c.File, []byte(c.SVG)); err != nil {
			return res, err
		}
		keep[c.File] = true
	}
	title := fmt.Sprintf("yardstick report: %s, run %s", t.meta.Experiment, t.meta.RunID)
	if slices.Contains(o.Formats, "md") {
		if err := write("report.md", d.markdown()); err != nil {
			return res, err
		}
	}
	if slices.Contains(o.Formats, "html") {
		if err := write("report.html", d.html(title)); err != nil {
			return res, err
		}
	}
	if ents, err := runfs.ReadDir(out.root, out.rel); err == nil {
		for _, e := range ents {
			n := e.Name()
			if strings.HasSuffix(n, ".svg") && !keep[n] && slices.ContainsFunc(chartPrefixes, func(p string) bool { return strings.HasPrefix(n, p) }) {
				if err := runfs.Remove(out.root, out.join(n)); err != nil {
					return res, fmt.Errorf("report: remove stale chart: %w", err)
				}
			}
		}
	}
	slices.Sort(res.Files)
	return res, nil
}

// An output directory: rel below root. The default, <rundir>/report, is
// reached without following a link; a directory given with --out is the
// caller's choice, like the run directory itself.
type output struct{ root, rel string }

func outDir(dir, out string) output {
	if out != "" {
		return output{root: out}
	}
	return output{root: dir, rel: "report"}
}

func (o output) path() string { return filepath.Join(o.root, o.rel) }

func (o output) join(name string) string { return path.Join(o.rel, name) }

// build turns the tables into the document.
func build(t *tables, baseline string) (*doc, []string) {
	d := &doc{}
	notes := slices.Clone(t.notes)
	d.h(1, "yardstick report: %s, run %s", t.meta.Experiment, t.meta.RunID)
	d.p("Read from the Parquet tables of `%s/run=%s` (schema version %d, written by yardstick %s). Compared only inside a batch: a ratio with a 95%% interval, better or worse beyond the batch's margin, equivalent inside it, else undecided; `max` never ranked.",
		t.meta.Experiment, t.meta.RunID, t.meta.SchemaVersion, orDash(t.meta.Version))

	batches := buildBatches(t, baseline)
	// A batch without a baseline says so in its own section; the notes
	// returned to the caller list it too.
	shown := slices.Clone(notes)
	for _, b := range batches {
		if b.Baseline == nil {
			notes = append(notes, b.BaselineNote)
		}
	}
	// A failed fairness check is said first, in one line each, so that no
	// number is read before its caveat; then pictures and verdicts lead,
	// per batch; the tables of numbers follow; the fairness table, then the
	// environment (folded in HTML) close the report.
	if len(shown) > 0 {
		d.h(2, "Notes")
		d.list(shown)
	}
	unfairSummary(d, t)
	studySection(d, t, batches) // study.go
	for _, b := range batches {
		batchSection(d, t, b)
	}
	fairnessSection(d, t, batches)
	environment(d, t, batches)
	return d, notes
}

func environment(d *doc, t *tables, batches []*Batch) {
	d.h(2, "Environment and preconditions")
	d.fold("The machine, and per batch the variants, CPU sets, windows, repeats and noise band")
	defer d.foldEnd()
	if len(t.env) == 0 {
		d.p("No environment row: the machine is unknown.")
	}
	// One row for a run on one machine; one per node for a run whose
	// batches ran on a cluster's nodes (yardstick slurm).
	for _, e := range t.env {
		rows := [][]string{
			{"host", e.Host}, {"kernel", e.Kernel}, {"os / arch", e.OS + " / " + e.Arch},
			{"CPU model", e.CPUModel}, {"cores", fmt.Sprint(e.Cores)}, {"governor", deref(e.Governor)},
			{"memory", fmt.Sprintf("%.1f GiB", float64(e.MemoryBytes)/(1<<30))}, {"Go", deref(e.GoVersion)}, {"Java", deref(e.JavaVersion)},
			{"yardstick (ran the cells)", e.YardstickVersion}, {"source hash", e.SourceHash}, {"plan hash", e.PlanHash},
			{"planned cells", fmt.Sprint(e.PlannedCells)},
		}
		if e.Captured != nil {
			rows = append(rows, []string{"captured", e.Captured.UTC().Format("2006-01-02 15:04:05 UTC")})
		}
		caption := "The machine the run belongs to (environment table)"
		if e.Node != nil {
			rows = append(rows, []string{"node", *e.Node}, []string{"batches", deref(e.Batches)})
			caption = "A node the run's batches ran on (environment table)"
		}
		d.table(caption, []string{"machine", "value"}, rows)
	}
	var rows [][]string
	for _, b := range batches {
		var vs []string
		for _, v := range b.Variants {
			vs = append(vs, fmt.Sprintf("%s (%s)", v.Label, orDash(v.Config)))
		}
		cpu, procs, noise := "unknown", "unknown", "unknown (0)"
		if b.Plan != nil {
			cpu = "target " + orDash(b.Plan.Placement.Target)
			if b.Plan.Placement.Services != "" {
				cpu += ", services " + b.Plan.Placement.Services
			}
			cpu += ", load generator " + orDash(b.Plan.Placement.Loadgen)
			procs = fmt.Sprint(b.Plan.Processors)
			noise = fmtPct(b.Noise)
		}
		var ok, unfair, failed, pending int
		for _, g := range b.samples {
			ok, unfair, failed, pending = ok+g.OK, unfair+g.UnfairN, failed+g.Failed, pending+g.Pending
		}
		rows = append(rows, []string{b.Name, strings.Join(vs, "; "), cpu, procs, b.Windows, fmt.Sprint(b.Repeats), noise,
			fmt.Sprintf("%d ok, %d unfair, %d failed, %d pending", ok, unfair, failed, pending)})
	}
	d.table("Per batch: variants with their processors and heaps, CPU sets and noise band (batches table), windows and repeats (cells table)",
		[]string{"batch", "variants (processors, heap, GC)", "CPU sets", "processors", "windows", "repeats", "noise band", "cells"}, rows)
}

// unfairSummary lists the failed fairness checks, one line each, before
// any result; nothing when every check passed. A check that failed for
// more than two cells of a batch takes one line: the cells, whose
// details the fairness table has.
func unfairSummary(d *doc, t *tables) {
	var items, short []string
	n := 0
	for _, g := range failedGroups(t.fairness) {
		n += len(g)
		f := g[0]
		if f.Scope == "batch" {
			short = append(short, fmt.Sprintf("UNFAIR %s: batch %s", f.Check, f.Batch))
		} else {
			short = append(short, fmt.Sprintf("UNFAIR %s: %d cell(s) of batch %s", f.Check, len(g), f.Batch))
		}
		if len(g) <= 2 {
			for _, f := range g {
				items = append(items, fmt.Sprintf("UNFAIR %s [%s %s]: %s", f.Check, f.Scope, f.Batch, deref(f.Detail)))
			}
			continue
		}
		var cells []string
		for _, f := range g {
			if f.CellID != nil {
				cells = append(cells, cellNameIn(t, *f.CellID))
			}
		}
		items = append(items, fmt.Sprintf("UNFAIR %s [%s %s], %d cells: %s (the fairness table near the end says why, a row each)", f.Check, f.Scope, f.Batch, len(g), shortNames(cells)))
	}
	if len(items) == 0 {
		return
	}
	d.h(2, "Unfair: %d fairness check(s) failed", n)
	d.p("Their cells are marked UNFAIR in every table and chart legend below, their decisions undecided; the fairness table near the end has the numbers.")
	d.list(short)
	d.fold("Details of the failed checks")
	d.list(items)
	d.foldEnd()
}

// shortNames joins cell names, each after the first without the part
// before its last slash that it shares with the one before it:
// "main/jvm/c8/r1, r2, r3".
func shortNames(names []string) string {
	out := slices.Clone(names)
	for i := 1; i < len(names); i++ {
		if j := strings.LastIndex(names[i], "/"); j >= 0 && strings.HasPrefix(names[i-1], names[i][:j+1]) {
			out[i] = names[i][j+1:]
		}
	}
	return strings.Join(out, ", ")
}

// failedGroups are the failed fairness rows grouped by check, scope and
// batch, in the order of their first row.
func failedGroups(rows []datasets.FairnessCheck) [][]datasets.FairnessCheck {
	var out [][]datasets.FairnessCheck
	at := map[string]int{}
	for _, f := range rows {
		if f.Pass {
			continue
		}
		k := f.Check + "\x00" + f.Scope + "\x00" + f.Batch
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], f)
	}
	return out
}

// cellNameIn is the name of the cell with id in the cells table, or the id.
func cellNameIn(t *tables, id string) string {
	for i := range t.cells {
		if t.cells[i].CellID == id {
			return t.cells[i].CellName
		}
	}
	return id
}

// cellName is the name of the cell with id, or the id.
func cellName(id string, batches []*Batch) string {
	for _, b := range batches {
		if c := b.cellIDs[id]; c != nil {
			return c.CellName
		}
	}
	return id
}

func fairnessSection(d *doc, t *tables, batches []*Batch) {
	d.h(2, "Fairness failures")
	var rows [][]string
	for _, f := range t.fairness {
		if f.Pass {
			continue
		}
		cell := "-"
		if f.CellID != nil {
			cell = cellName(*f.CellID, batches)
		}
		num := func(p *float64) string {
			if p == nil {
				return "-"
			}
			return trimFloat(math.Round(*p*1000) / 1000)
		}
		tol := "-"
		if f.Tolerance != nil {
			tol = fmtPct(*f.Tolerance)
		}
		rows = append(rows, []string{f.Check, f.Scope, f.Batch, cell, num(f.Expected), num(f.Measured), tol, deref(f.Unit), deref(f.Detail)})
	}
	switch {
	case len(t.fairness) == 0:
		d.p("The fairness table has no rows: no fairness check ran, so fairness is unknown.")
	case len(rows) == 0:
		d.p("All %d fairness checks passed.", len(t.fairness))
	default:
		d.p("%d of %d fairness checks failed. The cells they concern are marked UNFAIR in every table above.", len(rows), len(t.fairness))
		d.table("Failed fairness checks (fairness table)", []string{"check", "scope", "batch", "cell", "expected", "measured", "tolerance", "unit", "detail"}, rows)
	}
}

// label is a variant's name in tables other than the main one, marked
// when any of its repeats at the point was unfair.
func label(g *Sample) string {
	if len(g.Unfair) > 0 {
		return g.Variant.Label + " UNFAIR"
	}
	return g.Variant.Label
}

func status(g *Sample) string {
	var parts []string
	if g.UnfairN > 0 {
		parts = append(parts, fmt.Sprintf("UNFAIR %d (%s)", g.UnfairN, strings.Join(g.Unfair, ", ")))
	}
	if g.Failed > 0 {
		parts = append(parts, fmt.Sprintf("failed %d", g.Failed))
	}
	if g.Pending > 0 {
		parts = append(parts, fmt.Sprintf("pending %d", g.Pending))
	}
	if len(parts) == 0 {
		return pipeline.StatusOK
	}
	return strings.Join(parts, ", ")
}

func batchSection(d *doc, t *tables, b *Batch) {
	d.h(2, "Batch %s", b.Name)
	if b.Description != "" {
		d.literal(b.Description)
	}
	d.p("%s", b.BaselineNote)
	steadyLead(d, b)
	verdicts(d, b)
	d.p("Preconditions: %s.", b.preconditions())
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
		d.table(b.preconditions()+" · baseline "+b.Baseline.Label, scoreHead, scores)
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
func verdicts(d *doc, b *Batch) {
	rps, p99 := metricByKey("rps"), metricByKey("p99")
	var items []string
	for _, p := range b.Points {
		if b.Baseline == nil {
			if s := bestAt(b, p, rps, "highest throughput", p99, "lowest p99"); s != "" {
				items = append(items, s)
			}
			continue
		}
		base := b.Sample(b.Baseline, p)
		if base == nil {
			continue
		}
		for _, v := range b.Variants {
			g := b.Sample(v, p)
			if g == nil || v == b.Baseline {
				continue
			}
			vs := b.Baseline.Label
			if len(base.Unfair) > 0 {
				vs += " UNFAIR"
			}
			item := fmt.Sprintf("%s vs %s at %s: %s; %s", label(g), vs, p.Label(),
				verdictPhrase("throughput", b.compare(rps, base, g)), verdictPhrase("p99", b.compare(p99, base, g)))
			if note := biasNote(b, base, g); note != "" {
				item += " (" + note + ")"
			}
			items = append(items, item)
		}
	}
	if len(items) == 0 {
		return
	}
	one := ""
	if b.Repeats < 2 {
		one = " One start per variant and point: the intervals cover only the noise within a start, not between starts."
	}
	if b.Baseline != nil {
		d.p("Decisions against %s, throughput and p99 at each workload point: the ratio with its 95%% interval, better or worse when the interval lies beyond the margin of %s, equivalent when it lies inside it, otherwise undecided (the reason follows).%s", b.Baseline.Label, fmtPct(b.Noise), one)
	} else {
		d.p("The best variant at each point, throughput and p99: named when its interval against the runner-up lies beyond the margin of %s, equivalent when inside it, else undecided.%s", fmtPct(b.Noise), one)
	}
	d.list(items)
}

// verdictPhrase says one decision in words: "throughput 1.21x [1.15,
// 1.27] better", "p99 undecided (not steady)".
func verdictPhrase(name string, c datasets.Comparison) string {
	s := name + " " + fmtComparison(c)
	if c.Verdict == stats.Undecided {
		s += " (" + c.ShortReason() + ")"
	}
	return s
}

// bestAt says which variant is best at point p on two metrics, if that
// was decided; "" when fewer than two variants were measured there.
func bestAt(b *Batch, p Point, m1 metric, w1 string, m2 metric, w2 string) string {
	var gs []*Sample
	for _, v := range b.Variants {
		if g := b.Sample(v, p); g != nil {
			gs = append(gs, g)
		}
	}
	var parts []string
	for _, mw := range []struct {
		m    metric
		word string
	}{{m1, w1}, {m2, w2}} {
		w, c := winner(b, mw.m, gs)
		switch {
		case w == nil:
			return ""
		case c.Verdict != stats.Better:
			parts = append(parts, mw.word+" "+c.Verdict+" ("+label(w)+" ahead, "+orReason(c)+")")
		default:
			parts = append(parts, mw.word+" "+label(w))
		}
	}
	return "at " + p.Label() + ": " + strings.Join(parts, ", ")
}

// orReason is the decision's short reason, or its interval when decided.
func orReason(c datasets.Comparison) string {
	if c.Verdict == stats.Undecided {
		return c.ShortReason()
	}
	return fmtComparison(c)
}

// results is the main table per workload point: every metric of every
// variant, median ± spread.
func results(d *doc, b *Batch) {
	d.h(3, "Results")
	d.p("Median of the measured repeats ± half their range relative to the median. Tails: share of the kept window's requests over each threshold (count). `max` is shown, never ranked.")
	for _, p := range b.Points {
		head := []string{"variant", "preconditions", "status", "repeats"}
		for _, m := range metrics {
			head = append(head, m.title)
		}
		var rows [][]string
		for _, v := range b.Variants {
			g := b.Sample(v, p)
			if g == nil {
				continue
			}
			r := []string{v.Label, orDash(v.Config), status(g), fmt.Sprintf("%d/%d", len(g.Measured), len(g.Cells))}
			for _, m := range metrics {
				s := fmtSample(g.values(m), m.format)
				if m.count != nil && s != "-" {
					s += " (" + commas(int64(math.Round(stats.Median(g.counts(m))))) + ")"
				}
				r = append(r, s)
			}
			rows = append(rows, r)
		}
		d.table(b.preconditions()+" · "+p.Caption(), head, rows)
	}
}

func ratios(d *doc, b *Batch) {
	d.h(3, "Ratios to the baseline %s", b.Baseline.Label)
	d.p("Candidate / baseline of the means over the starts (for latency, memory, cold start, time to steady state and CPU a ratio above 1 is worse), with its 95%% interval (hierarchical bootstrap over starts and the noise within each start) and the outcome: better or worse when the interval lies beyond the margin of %s, equivalent inside it, undecided otherwise (reasons below the tables).", fmtPct(b.Noise))
	var undecided []string
	for _, p := range b.Points {
		base := b.Sample(b.Baseline, p)
		if base == nil {
			continue
		}
		head := []string{"variant"}
		for _, m := range metrics {
			if m.ranked() {
				head = append(head, m.title)
			}
		}
		var rows [][]string
		for _, v := range b.Variants {
			g := b.Sample(v, p)
			if g == nil || v == b.Baseline {
				continue
			}
			lb := label(g)
			if len(base.Unfair) > 0 {
				lb += " (baseline UNFAIR)"
			}
			if biasNote(b, base, g) != "" {
				lb += " (not steady: biased)"
			}
			r := []string{lb}
			for _, m := range metrics {
				if !m.ranked() {
					continue
				}
				c := b.compare(m, base, g)
				r = append(r, fmtComparison(c))
				if c.Verdict == stats.Undecided {
					undecided = append(undecided, fmt.Sprintf("%s at %s, %s: %s", v.Label, p.Label(), m.title, c.Reason))
				}
			}
			rows = append(rows, r)
		}
		if len(rows) > 0 {
			d.table(b.preconditions()+" · "+p.Caption()+" · baseline "+b.Baseline.Label, head, rows)
		}
	}
	if len(undecided) > 0 {
		d.p("Undecided, and why:")
		d.list(undecided)
	}
}

// winner returns the sample with the best median of m among gs, and its
// decision against the runner-up: Better makes it the winner; equivalent
// or undecided leave the point without one.
func winner(b *Batch, m metric, gs []*Sample) (*Sample, datasets.Comparison) {
	type cand struct {
		g   *Sample
		med float64
	}
	var cs []cand
	for _, g := range gs {
		if vs := g.values(m); len(vs) > 0 {
			cs = append(cs, cand{g, stats.Median(vs)})
		}
	}
	if len(cs) < 2 {
		return nil, datasets.Comparison{}
	}
	slices.SortStableFunc(cs, func(x, y cand) int {
		if m.lower {
			return compareF(x.med, y.med)
		}
		return compareF(y.med, x.med)
	})
	return cs[0].g, b.compare(m, cs[1].g, cs[0].g)
}

func compareF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func wins(d *doc, b *Batch) {
	if len(b.Variants) < 2 {
		return
	}
	d.h(3, "Win counts per workload point")
	d.p("A variant wins a workload point when its median is best and its interval against the runner-up lies beyond the margin (better); otherwise the point has no winner: equivalent (inside the margin) or undecided. Wins at points with an unfair cell are counted in brackets.")
	head := []string{"metric"}
	for _, v := range b.Variants {
		head = append(head, v.Label)
	}
	head = append(head, "equivalent", "undecided", "points")
	var rows [][]string
	var sentence string
	for _, m := range metrics {
		if !m.ranked() {
			continue
		}
		wc := countWins(b, m)
		if wc.points == 0 {
			continue
		}
		r := []string{m.title}
		for _, v := range b.Variants {
			s := fmt.Sprint(wc.count[v.Label])
			if wc.unfair[v.Label] > 0 {
				s += fmt.Sprintf(" (%d UNFAIR)", wc.unfair[v.Label])
			}
			r = append(r, s)
		}
		rows = append(rows, append(r, fmt.Sprint(wc.equivalent), fmt.Sprint(wc.undecided), fmt.Sprint(wc.points)))
		if m.key == "rps" {
			var parts []string
			for _, v := range b.Variants {
				if wc.count[v.Label] > 0 {
					parts = append(parts, fmt.Sprintf("%s had the highest throughput in %d of %d workload points", v.Label, wc.count[v.Label], wc.points))
				}
			}
			if wc.equivalent > 0 {
				parts = append(parts, fmt.Sprintf("%d of %d were equivalent", wc.equivalent, wc.points))
			}
			if wc.undecided > 0 {
				parts = append(parts, fmt.Sprintf("%d of %d undecided", wc.undecided, wc.points))
			}
			sentence = strings.Join(parts, "; ") + "."
		}
	}
	if sentence != "" {
		d.p("%s", sentence)
	}
	d.table(b.preconditions()+" · every workload point of the batch", head, rows)
}

// winCount is one metric's wins over a batch's workload points.
type winCount struct {
	count, unfair                 map[string]int
	equivalent, undecided, points int
}

func countWins(b *Batch, m metric) winCount {
	wc := winCount{count: map[string]int{}, unfair: map[string]int{}}
	for _, p := range b.Points {
		var gs []*Sample
		anyUnfair := false
		for _, v := range b.Variants {
			if g := b.Sample(v, p); g != nil {
				gs = append(gs, g)
				anyUnfair = anyUnfair || len(g.Unfair) > 0
			}
		}
		w, c := winner(b, m, gs)
		if w == nil {
			continue
		}
		wc.points++
		switch c.Verdict {
		case stats.Better:
			wc.count[w.Variant.Label]++
			if anyUnfair {
				wc.unfair[w.Variant.Label]++
			}
		case stats.Equivalent:
			wc.equivalent++
		default:
			wc.undecided++
		}
	}
	return wc
}

func peaks(d *doc, b *Batch) {
	payloads := map[int64]bool{}
	for _, p := range b.Points {
		if p.Mode == "closed" {
			payloads[p.Payload] = true
		}
	}
	if len(payloads) == 0 {
		return
	}
	d.h(3, "Peak throughput per payload")
	d.p("Each variant's highest median throughput over the closed-loop concurrencies of a payload, with the concurrency it was reached at and the p99 there.")
	var rows [][]string
	for _, pl := range slices.Sorted(maps.Keys(payloads)) {
		for _, v := range b.Variants {
			var best *Sample
			bestRPS := math.Inf(-1)
			for _, p := range b.Points {
				if p.Mode != "closed" || p.Payload != pl {
					continue
				}
				g := b.Sample(v, p)
				if g == nil {
					continue
				}
				if vs := g.values(metricByKey("rps")); len(vs) > 0 && stats.Median(vs) > bestRPS {
					best, bestRPS = g, stats.Median(vs)
				}
			}
			if best == nil {
				continue
			}
			pls := "-"
			if pl >= 0 {
				pls = fmt.Sprintf("%d B", pl)
			}
			rows = append(rows, []string{pls, label(best), fmtRPS(bestRPS), fmt.Sprint(best.Point.Concurrency),
				fmtSample(best.values(metricByKey("p99")), fmtLatency)})
		}
	}
	d.table(b.preconditions(), []string{"payload", "variant", "peak rps", "at concurrency", "p99 there"}, rows)
}

// radar draws the batch's radar chart and returns its scores as a table
// head and rows, which the tables part of the batch shows.
func radar(d *doc, b *Batch) ([]string, [][]string) {
	d.h(3, "Radar: seven dimensions against %s", b.Baseline.Label)
	d.p("Score per axis: 100 + 30 × log10(advantage / baseline advantage), the advantage being the geometric mean over the workload points of baseline/candidate (candidate/baseline for throughput); the baseline is the circle at 100, outward is better. Throughput, latency and memory compare services on the same resources; cold start and CPU per request compare the resources one service needs: read those axes apart.")
	ch := &radarChart{title: fmt.Sprintf("Batch %s: scores against %s", b.Name, b.Baseline.Label)}
	for _, a := range radarAxes {
		ch.axes = append(ch.axes, a.label)
	}
	head := []string{"variant"}
	head = append(head, ch.axes...)
	var rows [][]string
	for _, v := range b.Variants {
		s := radarSeries{name: v.Label, color: v.Color, baseline: v == b.Baseline}
		r := []string{v.Label}
		unfair := false
		for _, a := range radarAxes {
			m := metricByKey(a.key)
			var logSum float64
			var n int
			decided := true
			for _, p := range b.Points {
				base, g := b.Sample(b.Baseline, p), b.Sample(v, p)
				if base == nil || g == nil {
					continue
				}
				unfair = unfair || len(g.Unfair) > 0
				c := b.compare(m, base, g)
				if c.Ratio == nil || !(*c.Ratio > 0) {
					continue
				}
				adv := *c.Ratio
				if m.lower {
					adv = 1 / adv
				}
				logSum += math.Log10(adv)
				n++
				decided = decided && c.Verdict != stats.Undecided
			}
			score := math.NaN()
			if n > 0 {
				score = 100 + 30*logSum/float64(n)
			}
			s.scores = append(s.scores, score)
			undecided := v != b.Baseline && n > 0 && !decided
			s.undecided = append(s.undecided, undecided)
			switch {
			case math.IsNaN(score):
				r = append(r, "-")
			case undecided:
				r = append(r, fmt.Sprintf("%.0f (undecided)", score))
			default:
				r = append(r, fmt.Sprintf("%.0f", score))
			}
		}
		if unfair {
			r[0] += " UNFAIR"
			s.name += " (unfair)"
		}
		ch.series = append(ch.series, s)
		rows = append(rows, r)
	}
	d.chart(&chartFile{File: "radar-" + b.Name + ".svg", Title: ch.title, SVG: ch.svg()})
	return head, rows
}

func curves(d *doc, b *Batch) {
	byPayload := map[int64][]Point{}
	for _, p := range b.Points {
		if p.Mode == "closed" && p.Concurrency >= 0 {
			byPayload[p.Payload] = append(byPayload[p.Payload], p)
		}
	}
	if len(byPayload) == 0 {
		return
	}
	d.h(3, "Throughput and p99 against concurrency")
	for _, pl := range slices.Sorted(maps.Keys(byPayload)) {
		pts := byPayload[pl]
		var ticks []tick
		for _, p := range pts {
			ticks = append(ticks, tick{float64(p.Concurrency), fmt.Sprint(p.Concurrency)})
		}
		plLabel, slug := "", "all"
		if pl >= 0 {
			plLabel, slug = fmt.Sprintf(", payload %d B", pl), fmt.Sprintf("p%d", pl)
		}
		for _, k := range []string{"rps", "p99"} {
			m := metricByKey(k)
			ch := &lineChart{xLabel: "concurrency (connections)", xLog: true, xTicks: ticks, vline: math.NaN()}
			if k == "rps" {
				ch.title, ch.yLabel, ch.yFormat, ch.zeroY = "Batch "+b.Name+": throughput"+plLabel, "requests/s (median)", fmtRPS, true
			} else {
				ch.title, ch.yLabel, ch.yFormat, ch.yTick, ch.yLog = "Batch "+b.Name+": p99"+plLabel, "p99 latency (median)", fmtLatency, msTick, true
			}
			for _, v := range b.Variants {
				s := series{name: v.Label, color: v.Color}
				for _, p := range pts {
					if g := b.Sample(v, p); g != nil {
						if vs := g.values(m); len(vs) > 0 {
							s.pts = append(s.pts, xy{float64(p.Concurrency), stats.Median(vs)})
						}
					}
				}
				if len(s.pts) > 0 {
					ch.series = append(ch.series, s)
				}
			}
			name := "throughput-"
			if k == "p99" {
				name = "p99-"
			}
			d.chart(&chartFile{File: name + b.Name + "-" + slug + ".svg", Title: ch.title, SVG: ch.svg()})
		}
	}
}

var spectrumTicks = []tick{{1, "0"}, {10, "90"}, {100, "99"}, {1000, "99.9"}, {1e4, "99.99"}, {1e5, "99.999"}}

func spectrumCharts(d *doc, t *tables, b *Batch) {
	if len(t.spectrum) == 0 {
		return
	}
	byCell := map[string][]datasets.SpectrumPoint{}
	for _, s := range t.spectrum {
		byCell[s.CellID] = append(byCell[s.CellID], s)
	}
	first := true
	for _, p := range b.Points {
		ch := &lineChart{title: "Batch " + b.Name + ": latency spectrum, " + p.Caption(), xLabel: "percentile (log scale of 1/(1-p))",
			yLabel: "latency (median of repeats)", xLog: true, yLog: true, xTicks: spectrumTicks, yFormat: fmtLatency, yTick: msTick, vline: math.NaN()}
		for _, v := range b.Variants {
			g := b.Sample(v, p)
			if g == nil {
				continue
			}
			at := map[float64][]float64{}
			var ps []float64
			for _, c := range g.Measured {
				for _, s := range byCell[c.CellID] {
					if s.Percentile >= 100 {
						continue // the max: shown in the tables, not plotted
					}
					if _, ok := at[s.Percentile]; !ok {
						ps = append(ps, s.Percentile)
					}
					at[s.Percentile] = append(at[s.Percentile], float64(s.LatencyUS))
				}
			}
			slices.Sort(ps)
			s := series{name: label(g), color: v.Color}
			for _, pc := range ps {
				s.pts = append(s.pts, xy{1 / (1 - pc/100), stats.Median(at[pc])})
			}
			if len(s.pts) > 0 {
				ch.series = append(ch.series, s)
			}
		}
		if len(ch.series) == 0 {
			continue
		}
		if first {
			d.h(3, "Latency percentile spectrum")
			d.p("From the spectrum table (the kept window's HdrHistogram at fixed percentiles), median over the repeats.")
			first = false
		}
		d.chart(&chartFile{File: "spectrum-" + b.Name + "-" + p.Label() + ".svg", Title: ch.title, SVG: ch.svg()})
	}
}

// intervalRPS is an interval's throughput in requests per second.
func intervalRPS(iv datasets.Interval) float64 {
	if iv.DurationUS <= 0 {
		return 0
	}
	return float64(iv.Requests) * 1e6 / float64(iv.DurationUS)
}

// msTick labels a power of ten of microseconds in milliseconds.
func msTick(us float64) string { return trimFloat(us/1000) + " ms" }

// A heapPanel is one chart of the heap gradient.
type heapPanel struct {
	key, title, ylabel string
	format             func(float64) string
}

var heapPanels = []heapPanel{
	{"rss", "RSS under load", "RSS (median)", fmtBytes},
	{"rps", "throughput", "requests/s (median)", fmtRPS},
	{"p99", "p99", "p99 (median)", fmtLatency},
}

// heapGradient shows the targets whose variants differ only in heap size:
// a table and one chart per panel, a series per target and point.
func heapGradient(d *doc, b *Batch) {
	axis, heaps := heapAxes(b)
	if len(axis) == 0 {
		return
	}
	d.h(3, "Heap gradient")
	d.p("Same service, only the heap (or GOMEMLIMIT) changed: RSS under load, throughput and p99 per heap size.")
	charts := make([]*lineChart, len(heapPanels))
	for i, pn := range heapPanels {
		charts[i] = &lineChart{title: "Batch " + b.Name + ": heap gradient, " + pn.title, xLabel: "heap (MiB, log scale)", yLabel: pn.ylabel,
			xLog: true, yFormat: pn.format, zeroY: true, vline: math.NaN()}
	}
	var rows [][]string
	ci := 0
	for _, tg := range axis {
		for _, p := range b.Points {
			rows = append(rows, heapPoint(b, tg, heaps[tg], p, palette[ci%len(palette)], charts)...)
			ci++
		}
	}
	for i, pn := range heapPanels {
		charts[i].xTicks = dataTicks(charts[i].series)
		d.chart(&chartFile{File: "heap-" + b.Name + "-" + pn.key + ".svg", Title: charts[i].title, SVG: charts[i].svg()})
	}
	d.table(b.preconditions(), []string{"variant", "heap", "workload point", "RSS load", "rps", "p99"}, rows)
}

// heapAxes are the batch's targets, in plan order, with more than one
// heap size among their variants, and per target its variants ordered by
// heap.
func heapAxes(b *Batch) ([]string, map[string][]*Variant) {
	heaps := map[string][]*Variant{}
	var targets []string
	for _, v := range b.Variants {
		if v.HeapBytes < 0 {
			continue
		}
		if _, ok := heaps[v.Target]; !ok {
			targets = append(targets, v.Target)
		}
		heaps[v.Target] = append(heaps[v.Target], v)
	}
	var axis []string
	for _, tg := range targets {
		distinct := map[int64]bool{}
		for _, v := range heaps[tg] {
			distinct[v.HeapBytes] = true
		}
		if len(distinct) > 1 {
			axis = append(axis, tg)
			slices.SortStableFunc(heaps[tg], func(x, y *Variant) int { return compareF(float64(x.HeapBytes), float64(y.HeapBytes)) })
		}
	}
	return axis, heaps
}

// heapPoint returns the table rows of target tg's variants vs at point p
// and adds their medians to the panels' charts as one series each.
func heapPoint(b *Batch, tg string, vs []*Variant, p Point, color string, charts []*lineChart) [][]string {
	ss := make([]series, len(heapPanels))
	for i := range ss {
		ss[i] = series{name: tg + ", " + p.Caption(), color: color}
	}
	var rows [][]string
	for _, v := range vs {
		s := b.Sample(v, p)
		if s == nil {
			continue
		}
		r := []string{label(s), v.HeapLabel, p.Caption()}
		for i, pn := range heapPanels {
			vals := s.values(metricByKey(pn.key))
			r = append(r, fmtSample(vals, pn.format))
			if len(vals) > 0 && v.HeapBytes != math.MaxInt64 {
				ss[i].pts = append(ss[i].pts, xy{float64(v.HeapBytes) / (1 << 20), stats.Median(vals)})
			}
		}
		rows = append(rows, r)
	}
	for i := range ss {
		if len(ss[i].pts) > 0 {
			charts[i].series = append(charts[i].series, ss[i])
		}
	}
	return rows
}

// dataTicks are the distinct x values of the series, in order, labelled
// as numbers.
func dataTicks(ss []series) []tick {
	var ticks []tick
	seen := map[float64]bool{}
	for _, s := range ss {
		for _, p := range s.pts {
			if !seen[p.x] {
				seen[p.x] = true
				ticks = append(ticks, tick{p.x, trimFloat(p.x)})
			}
		}
	}
	slices.SortFunc(ticks, func(a, b tick) int { return compareF(a.v, b.v) })
	return ticks
}
