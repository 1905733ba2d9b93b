// Package report is the pipeline's last stage: it reads a run directory's
// Parquet tables (through package datasets) and, for the study's question
// alone, its plan.json, and writes report.md, a self-contained report.html
// and the SVG charts. Compare (compare.go) reads two runs' tables and
// their lock.json files and renders their comparison through the same
// document model.
//
// The flow:
//
//  1. load (load.go): cells.parquet (required), timeseries, spectrum,
//     fairness, environment, comparisons and batches (each optional, with
//     a note when missing; batches holds the CPU sets, declared noise
//     bands and baselines). The question (question: {text, answer}) is
//     text of the definition, not a measurement: it is read from
//     plan.json (study.go), and a plan.json that is missing or refused
//     leaves it out with a note. No other file is read. A foreign,
//     truncated or mismatched file is an error, never a panic.
//  2. analysis (package analysis): the numbers as values, with no I/O and
//     no words: cells grouped by batch, then variant x workload point; the
//     repeats there are one RepeatSet. Decisions inside each batch only,
//     against the batch's baseline: the comparisons table's rows, else
//     decide.Compare on the two repeat sets; win counts, peaks, radar
//     scores, the steady state of each cell, the study's answers and, for
//     compare, two runs joined by cell id. max is shown and never ranked;
//     batches are never ranked against each other.
//  3. document (doc.go): one list of blocks (headings, tables that carry
//     their preconditions in a caption, charts), built from those values
//     (report.go, batch.go, charts.go, steady.go, study.go, fairness.go;
//     words.go and format.go put them into words and numbers) and rendered
//     to Markdown and HTML by the same walk; charts are hand-written SVG.
//  4. write: every file atomically (temporary file and rename) into the
//     output directory, <rundir>/report by default.
//
// The output depends only on those files: the same run gives
// byte-identical files.
package report

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"yardstick/pipeline/runfs"
	"yardstick/stages/report/analysis"
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
var chartPrefixes = []string{"decisions", "radar-", "throughput-", "p99-", "spectrum-", "rampup-", "heap-"}

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
	if t.Question, qnote = readQuestion(ctx, dir); qnote != "" {
		t.Notes = append(t.Notes, qnote)
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
	title := fmt.Sprintf("yardstick report: %s, run %s", t.Meta.Experiment, t.Meta.RunID)
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
func build(t *analysis.Tables, baseline string) (*doc, []string) {
	d := &doc{}
	notes := slices.Clone(t.Notes)
	d.h(1, "yardstick report: %s, run %s", t.Meta.Experiment, t.Meta.RunID)
	d.p("Read from the Parquet tables of `%s/run=%s` (schema version %d, written by yardstick %s). Compared only inside a batch: a ratio with a 95%% interval, better or worse when the interval excludes no difference and the ratio lies beyond the batch's margin (for a metric outside the batch's headline, or under the rule beyond-margin, when the whole interval does), equivalent when the interval lies inside the margin, else undecided; `max` never ranked.",
		t.Meta.Experiment, t.Meta.RunID, t.Meta.SchemaVersion, orDash(t.Meta.Version))

	batches := analysis.Batches(t, baseline)
	// A batch without a baseline says so in its own section; the notes
	// returned to the caller list it too.
	shown := slices.Clone(notes)
	if busy := t.Busy(); busy != "" {
		shown = append(shown, strings.ToUpper(busy[:1])+busy[1:]+".")
	}
	for _, b := range batches {
		if b.Baseline == nil {
			notes = append(notes, baselineNote(b))
		}
	}
	// The decisions and their forest plot come first: the answer; then
	// each problem in one line (a failed fairness check, a busy machine, a
	// missing table), so that no number below is read before its caveat;
	// then pictures and verdicts per batch, with the notes on steadiness
	// folded; the tables of numbers follow; the fairness table, then the
	// environment (folded in HTML) close the report.
	decisionsSection(d, batches)
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

func environment(d *doc, t *analysis.Tables, batches []*analysis.Batch) {
	d.h(2, "Environment and preconditions")
	d.fold("The machine, and per batch the variants, CPU sets, windows, repeats and margin")
	defer d.foldEnd()
	if len(t.Env) == 0 {
		d.p("No environment row: the machine is unknown.")
	}
	// One row for a run on one machine; one per node for a run whose
	// batches ran on a cluster's nodes (yardstick slurm).
	for _, e := range t.Env {
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
			vs = append(vs, fmt.Sprintf("%s (%s)", v.Label, orDash(configOf(v))))
		}
		cpu, procs, noise := "unknown", "unknown", "unknown (0)"
		if b.Plan != nil {
			cpu = cpuSets(b.Plan)
			procs = fmt.Sprint(b.Plan.Processors)
			noise = margins(b)
		}
		n := b.Counts()
		rows = append(rows, []string{b.Name, strings.Join(vs, "; "), cpu, procs, fmtWindows(b.Windows), fmt.Sprint(b.Repeats), noise,
			fmt.Sprintf("%d ok, %d unfair, %d failed, %d pending", n.OK, n.Unfair, n.Failed, n.Pending)})
	}
	d.table("Per batch: variants with their processors and heaps, CPU sets and margin (batches table), windows and repeats (cells table)",
		[]string{"batch", "variants (processors, heap, GC)", "CPU sets", "processors", "windows", "repeats", "margin", "cells"}, rows)
}
