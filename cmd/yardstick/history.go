package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"yardstick/pipeline/safetext"
	"yardstick/stages/history"
)

func init() {
	register(verb{
		name:    "history",
		summary: "the runs of one experiment as series per cell and metric, with the changepoints across runs; writes history.md, .html, .svg, .parquet",
		usage:   "[DIR] [--experiment NAME] [--metric M]... [--cell GLOB] [--since DATE] [--json] [--out DIR]",
		run:     runHistory,
	})
}

// stringsFlag is a flag that may be given more than once.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

// historyFlags are history's flags.
type historyFlags struct {
	experiment, cell, since, out string
	metrics                      stringsFlag
	asJSON                       bool
}

func runHistory(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "history")
	var f historyFlags
	fs.StringVar(&f.experiment, "experiment", "", "the experiment (needed when DIR holds runs of several)")
	fs.Var(&f.metrics, "metric", "follow this metric only (repeatable): "+strings.Join(history.MetricNames(), ", "))
	fs.StringVar(&f.cell, "cell", "", "follow the cells whose <batch>/<variant>/<point> this glob matches")
	fs.StringVar(&f.since, "since", "", "leave out runs before this date (2006-01-02)")
	fs.BoolVar(&f.asJSON, "json", false, "print the series and changes as JSON instead of words")
	fs.StringVar(&f.out, "out", "", "where the files go (default: <results>/<experiment>/history)")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) > 1 {
		return usagef("want at most one directory, got %d arguments", len(args))
	}
	o, err := f.options()
	if err != nil {
		return err
	}
	dir := "results"
	if len(args) == 1 {
		dir = args[0]
	}
	h, bad, err := readHistory(ctx, env, abs(env, dir), f.experiment, o)
	if err != nil {
		return err
	}
	out := f.out
	if out == "" {
		out = historyDir(abs(env, dir), h.Experiment)
	}
	if _, err := h.Write(abs(env, out), Version()); err != nil {
		return err
	}
	if f.asJSON {
		err = writeHistoryJSON(env.stdout, h)
	} else {
		err = h.WriteText(env.stdout, false)
	}
	if err == nil && bad {
		return errPrinted
	}
	return err
}

// options checks the flags and makes Build's options.
func (f *historyFlags) options() (history.Options, error) {
	o := history.Options{Metrics: f.metrics, Cell: f.cell}
	for _, m := range f.metrics {
		if !containsString(history.MetricNames(), m) {
			return o, usagef("--metric %q: want one of %s", m, strings.Join(history.MetricNames(), ", "))
		}
	}
	if f.since != "" {
		t, err := time.Parse("2006-01-02", f.since)
		if err != nil {
			return o, usagef("--since %q: want a date, 2006-01-02", f.since)
		}
		o.Since = t
	}
	if f.cell != "" {
		if _, err := filepath.Match(f.cell, ""); err != nil {
			return o, usagef("--cell %q: %v", f.cell, err)
		}
	}
	return o, nil
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// readHistory reads the runs under dir of one experiment (the only one
// there, or the one named) into a history. A run that does not read back
// is named on stderr and skipped; bad says one was.
func readHistory(ctx context.Context, env *cliEnv, dir, experiment string, o history.Options) (*history.History, bool, error) {
	paths, err := findRunDirs(dir)
	if err != nil {
		return nil, false, err
	}
	if experiment == "" {
		if experiment, err = onlyExperiment(paths); err != nil {
			return nil, false, err
		}
	}
	paths = filterExperiment(paths, experiment)
	runs, skipped, err := history.ReadAll(ctx, paths, experiment)
	if err != nil {
		return nil, false, err
	}
	for _, s := range skipped {
		fmt.Fprintf(env.stderr, "yardstick history: skipped %s: %s\n", safetext.Line(s.Dir), safetext.Line(s.Err.Error()))
	}
	if len(runs) == 0 {
		return nil, false, fmt.Errorf("no run of %s under %s reads back", experiment, dir)
	}
	h, err := history.Build(experiment, runs, o)
	return h, len(skipped) > 0, err
}

// experimentOf is the experiment of a run directory by its place,
// results/<experiment>/run=<id>.
func experimentOf(path string) string { return filepath.Base(filepath.Dir(path)) }

// onlyExperiment is the one experiment the run directories are of.
func onlyExperiment(paths []string) (string, error) {
	seen := map[string]bool{}
	for _, p := range paths {
		seen[experimentOf(p)] = true
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	switch len(names) {
	case 0:
		return "", errors.New("no runs")
	case 1:
		return names[0], nil
	}
	return "", usagef("runs of %d experiments (%s): say which with --experiment", len(names), safetext.Line(strings.Join(names, ", ")))
}

func filterExperiment(paths []string, experiment string) []string {
	var out []string
	for _, p := range paths {
		if experimentOf(p) == experiment {
			out = append(out, p)
		}
	}
	return out
}

// historyDir is where the history's files go by default: beside the
// experiment's runs.
func historyDir(dir, experiment string) string {
	if filepath.Base(dir) == experiment {
		return filepath.Join(dir, "history")
	}
	return filepath.Join(dir, experiment, "history")
}

// writeHistoryJSON prints the history as JSON: the runs, and per series
// its points and changes.
func writeHistoryJSON(w io.Writer, h *history.History) error {
	type change struct {
		Run     string   `json:"run_id"`
		Index   int      `json:"run_index"`
		Ratio   *float64 `json:"ratio"`
		Low     *float64 `json:"ci_low"`
		High    *float64 `json:"ci_high"`
		Outcome string   `json:"outcome"`
		Reason  string   `json:"reason"`
	}
	type series struct {
		Cell    string     `json:"cell"`
		Metric  string     `json:"metric"`
		Margin  float64    `json:"margin"`
		Runs    []int      `json:"run_index"`
		Mean    []*float64 `json:"mean"`
		Low     []*float64 `json:"ci_low"`
		High    []*float64 `json:"ci_high"`
		Changes []change   `json:"changes"`
	}
	type run struct {
		ID    string   `json:"run_id"`
		Marks []string `json:"marks"`
		Busy  bool     `json:"busy"`
	}
	out := struct {
		Experiment string   `json:"experiment"`
		Runs       []run    `json:"runs"`
		Series     []series `json:"series"`
	}{Experiment: h.Experiment, Runs: []run{}, Series: []series{}}
	for _, r := range h.Runs {
		out.Runs = append(out.Runs, run{ID: r.ID, Marks: append([]string{}, r.Marks...), Busy: r.Busy != ""})
	}
	for _, s := range h.Series {
		js := series{Cell: s.Cell(), Metric: s.Metric, Margin: s.Margin, Changes: []change{}}
		for _, p := range s.Points {
			js.Runs = append(js.Runs, p.Run)
			js.Mean, js.Low, js.High = append(js.Mean, jnum(p.Mean)), append(js.Low, jnum(p.Low)), append(js.High, jnum(p.High))
		}
		for _, c := range s.Changes {
			d := c.Decision
			js.Changes = append(js.Changes, change{Run: c.Run, Index: s.Points[c.At].Run, Ratio: jnum(d.Ratio), Low: jnum(d.Low), High: jnum(d.High), Outcome: d.Verdict, Reason: d.Reason})
		}
		out.Series = append(out.Series, js)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(safetext.JSON(b), '\n'))
	return err
}

func jnum(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// compareAgainstHistory is compare --against-history N RUN: RUN decided
// against the last n runs before it under results with its plan hash.
func compareAgainstHistory(ctx context.Context, env *cliEnv, args []string, n int, results, format string) error {
	if len(args) != 1 {
		return usagef("--against-history N takes one RUN, got %d argument(s)", len(args))
	}
	if n < 1 {
		return usagef("--against-history %d: want at least 1 run", n)
	}
	if format != "text" && format != "markdown" {
		return usagef("--format %q: want text or markdown", format)
	}
	dir, err := resolveRun(env, args[0], results)
	if err != nil {
		return err
	}
	cand, err := history.ReadRun(ctx, dir)
	if err != nil {
		return err
	}
	paths, err := findRunDirs(abs(env, results))
	if err != nil {
		return err
	}
	runs, skipped, err := history.ReadAll(ctx, filterExperiment(paths, experimentOf(dir)), cand.Experiment)
	if err != nil {
		return err
	}
	for _, s := range skipped {
		fmt.Fprintf(env.stderr, "yardstick compare: skipped %s: %s\n", safetext.Line(s.Dir), safetext.Line(s.Err.Error()))
	}
	var base []*history.Run
	for _, r := range runs {
		if r.PlanHash == cand.PlanHash && r.ID < cand.ID {
			base = append(base, r)
		}
	}
	sort.Slice(base, func(i, j int) bool { return base[i].ID < base[j].ID })
	base = base[max(0, len(base)-n):]
	if len(base) == 0 {
		return fmt.Errorf("no earlier run of plan %s under %s to compare %s against", cand.PlanHash, results, safetext.Line(cand.ID))
	}
	return history.WriteAgainst(env.stdout, cand, base, history.Against(base, cand), format == "markdown")
}
