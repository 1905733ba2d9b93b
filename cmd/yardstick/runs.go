package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"yardstick/pipeline"
	"yardstick/pipeline/safetext"
)

func init() {
	register(verb{
		name:    "runs",
		summary: "list the runs under results/ (or DIR), newest first: date, version, plan hash, cells, reruns",
		usage:   "[DIR] [--json]",
		run:     runRuns,
	})
}

// A runInfo is one line of yardstick runs.
type runInfo struct {
	Experiment string    `json:"experiment"`
	ID         string    `json:"run_id"`
	Path       string    `json:"path"` // relative to the working directory when below it
	Date       time.Time `json:"date"`
	Yardstick  string    `json:"yardstick_version"`
	PlanHash   string    `json:"plan_hash"`
	Cells      runCells  `json:"cells"`
	RerunOf    string    `json:"rerun_of"`
}

// runCells counts a run's cells: OK excludes the unfair ones; Unfair is
// nil when the run has no fairness.json yet (it is written at the end).
type runCells struct {
	Total   int  `json:"total"`
	OK      int  `json:"ok"`
	Unfair  *int `json:"unfair"`
	Failed  int  `json:"failed"`
	Pending int  `json:"pending"`
}

func runRuns(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "runs")
	asJSON := fs.Bool("json", false, "print a JSON array instead of a table")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) > 1 {
		return usagef("want at most one directory, got %d arguments", len(args))
	}
	dir := "results"
	if len(args) == 1 {
		dir = args[0]
	}
	paths, err := findRunDirs(abs(env, dir))
	if len(args) == 0 && errors.Is(err, os.ErrNotExist) {
		paths, err = nil, nil // no run yet
	}
	if err != nil {
		return err
	}
	var runs []runInfo
	bad := false
	for _, p := range paths {
		r, err := readRunInfo(p)
		if rel, rerr := filepath.Rel(env.wd, p); rerr == nil && filepath.IsLocal(rel) {
			r.Path = rel
		}
		if err != nil {
			fmt.Fprintf(env.stderr, "yardstick runs: skipped %s: %s\n", safetext.Line(p), safetext.Line(err.Error()))
			bad = true
			continue
		}
		runs = append(runs, r)
	}
	sort.SliceStable(runs, func(i, j int) bool {
		if !runs[i].Date.Equal(runs[j].Date) {
			return runs[i].Date.After(runs[j].Date)
		}
		return runs[i].ID > runs[j].ID
	})
	if *asJSON {
		err = writeRunsJSON(env.stdout, runs)
	} else {
		err = writeRunsText(env.stdout, runs)
	}
	if err == nil && bad {
		return errPrinted
	}
	return err
}

// findRunDirs returns the run directories (run=<id>) in dir, which is a
// results directory (<experiment>/run=<id>/ below it) or one experiment's
// directory. Symbolic links are not followed.
func findRunDirs(dir string) ([]string, error) {
	top, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range top {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), pipeline.RunIDPrefix) {
			out = append(out, p)
			continue
		}
		sub, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		for _, s := range sub {
			if s.IsDir() && strings.HasPrefix(s.Name(), pipeline.RunIDPrefix) {
				out = append(out, filepath.Join(p, s.Name()))
			}
		}
	}
	return out, nil
}

// readRunInfo reads one run directory: plan.json (required),
// environment.json, lock.json, fairness.json and the checkpoints, each
// optional since a run that is under way or was killed lacks some.
func readRunInfo(dir string) (runInfo, error) {
	rd := &pipeline.RunDir{Root: dir}
	r := runInfo{ID: rd.ID(), Path: dir}
	p, err := rd.ReadPlan()
	if err != nil {
		return r, err
	}
	r.Experiment, r.PlanHash = p.Experiment, p.Hash
	// The date is the run id's (when the run directory was made), else
	// when environment.json was captured.
	r.Date, _ = time.Parse("20060102T150405Z", strings.SplitN(r.ID, "-", 2)[0])
	var envj pipeline.Environment
	switch err := rd.ReadJSON("environment.json", &envj); {
	case err == nil:
		r.Yardstick = envj.Yardstick
		if r.Date.IsZero() {
			r.Date = envj.Captured.UTC()
		}
	case !errors.Is(err, os.ErrNotExist):
		return r, err
	}
	var lock pipeline.Lock
	switch err := rd.ReadJSON("lock.json", &lock); {
	case err == nil:
		r.RerunOf = lock.RerunOf
	case !errors.Is(err, os.ErrNotExist):
		return r, err
	}
	cells, err := countCells(rd, p)
	if err != nil {
		return r, err
	}
	r.Cells = cells
	return r, nil
}

// countCells counts the plan's cells by their checkpoint's status (none:
// pending) and, once fairness.json exists, the finished cells it marks
// unfair.
func countCells(rd *pipeline.RunDir, p *pipeline.Plan) (runCells, error) {
	var rows []pipeline.FairnessRow
	var unfair map[string][]string
	switch err := rd.ReadJSON("fairness.json", &rows); {
	case err == nil:
		unfair = pipeline.UnfairCells(p, rows)
	case !errors.Is(err, os.ErrNotExist):
		return runCells{}, err
	}
	rounds, err := rd.ReadRounds(p)
	if err != nil {
		return runCells{}, err
	}
	var n pipeline.CellCounts
	for _, cell := range p.Cells {
		st, err := checkpointStatus(rd, &cell, rounds)
		if err != nil {
			return runCells{}, err
		}
		if st == pipeline.StatusOK && len(unfair[cell.ID]) > 0 {
			st = pipeline.StatusUnfair
		}
		n.Add(st)
	}
	c := runCells{Total: n.Planned(), OK: n.OK, Failed: n.Failed, Pending: n.Pending}
	if unfair != nil {
		c.Unfair = &n.Unfair
	}
	return c, nil
}

// checkpointStatus is cell's status from its checkpoint's status field
// alone (runs lists many runs: it reads no more of a checkpoint), as
// RunDir.CellStatus gives it.
func checkpointStatus(rd *pipeline.RunDir, cell *pipeline.Cell, rounds pipeline.Rounds) (string, error) {
	var cp struct {
		CellID string `json:"cell_id"`
		Status string `json:"status"`
	}
	err := rd.ReadJSON("cells/"+cell.ID+"/checkpoint.json", &cp)
	switch {
	case errors.Is(err, os.ErrNotExist) && rounds.NotNeeded(cell):
		return pipeline.StatusNotNeeded, nil // a round of adaptive repeats its batch did not need
	case errors.Is(err, os.ErrNotExist):
		return pipeline.StatusPending, nil
	case err != nil:
		return "", err
	case cp.CellID != cell.ID:
		return "", fmt.Errorf("cells/%s/checkpoint.json is the checkpoint of cell %q", cell.ID, cp.CellID)
	case cp.Status != pipeline.StatusFailed && cp.Status != pipeline.StatusOK:
		return "", fmt.Errorf("cells/%s/checkpoint.json: status %q", cell.ID, cp.Status)
	}
	return cp.Status, nil
}

func writeRunsJSON(w io.Writer, runs []runInfo) error {
	if runs == nil {
		runs = []runInfo{}
	}
	b, err := json.MarshalIndent(runs, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", safetext.JSON(b))
	return err
}

// writeRunsText prints one line per run; the plan hash is shortened to 12
// hex digits (runs --json has it whole). What it prints of a run
// directory (its name, the versions and ids its files hold) is escaped
// for one table cell: safetext.Line, and tabs too.
func writeRunsText(w io.Writer, runs []runInfo) error {
	if len(runs) == 0 {
		_, err := fmt.Fprintln(w, "no runs")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EXPERIMENT\tRUN\tDATE\tYARDSTICK\tPLAN\tOK\tUNFAIR\tFAILED\tPENDING\tRERUN OF")
	for _, r := range runs {
		date, unfair, rerun, version := "-", "-", "-", "-"
		if !r.Date.IsZero() {
			date = r.Date.Format("2006-01-02 15:04Z")
		}
		if r.Cells.Unfair != nil {
			unfair = fmt.Sprint(*r.Cells.Unfair)
		}
		if r.RerunOf != "" {
			rerun = r.RerunOf
		}
		if r.Yardstick != "" {
			version = r.Yardstick
		}
		hash := r.PlanHash
		if len(hash) > 12 {
			hash = hash[:12]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%d\t%d\t%s\n", runsCell(r.Experiment), runsCell(r.ID), date, runsCell(version), runsCell(hash),
			r.Cells.OK, unfair, r.Cells.Failed, r.Cells.Pending, runsCell(rerun))
	}
	return tw.Flush()
}

// runsCell escapes s for a cell of runs' table: one line, no tab.
func runsCell(s string) string {
	return strings.ReplaceAll(safetext.Line(s), "\t", `\x09`)
}
