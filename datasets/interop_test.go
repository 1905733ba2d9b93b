//go:build integration

// The readers that are not ours (DuckDB under Node.js, pyarrow, pandas,
// polars, the notebook) need Node.js and the .venv, not Go alone: these
// tests carry the build tag integration and run in make test-integration.

package datasets_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"yardstick/datasets"
	"yardstick/internal/synthrun"
	"yardstick/pipeline"
	"yardstick/stages/tabulate"
)

// TestIntegrationInteropDuckDB writes a run (some cells pending, one
// failed), builds its tables, and has a foreign reader check them:
// interop/check.mjs reads every table with DuckDB, asserts the documented
// column types, the cell count, the metadata, decodes each histogram with
// hdr-histogram-js to compare with the stored percentiles, and runs
// SCHEMA.md's SQL snippets. It needs node and the modules installed by
// `make interop-deps`; it fails, never skips, without them.
func TestIntegrationInteropDuckDB(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: the interop check needs Node.js >= 20 (apt-get install nodejs npm), then make interop-deps")
	}
	for _, m := range []string{"@duckdb/node-api", "hdr-histogram-js"} {
		if _, err := os.Stat(filepath.Join("interop", "node_modules", m, "package.json")); err != nil {
			t.Fatalf("%s is not installed in datasets/interop/node_modules: run make interop-deps (npm ci in datasets/interop)", m)
		}
	}
	_, rd, _ := writeRuns(t)
	out, err := runTool(node, filepath.Join("interop", "check.mjs"), rd.Root, "SCHEMA.md")
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("interop check failed: %v", err)
	}

	// The check has teeth: a SCHEMA.md that documents another type for
	// one column, leaves one out, or has an SQL snippet that does not run
	// fails it, naming what is wrong.
	for name, edit := range map[string]docEdit{
		"retyped": {"| `rps` | `float64` | DOUBLE |", "| `rps` | `float64` | BIGINT |", `"rps DOUBLE" in DuckDB`},
		"missing": {"| `cpu_us` | `int64` | BIGINT |", "| `cpu_usx` | `int64` | BIGINT |", "cpu_usx"},
		"snippet": {"max(latency_p99_us) AS p99_us", "max(latency_p99) AS p99_us", "SQL snippet 1: Binder Error"},
	} {
		out, err := runTool(node, filepath.Join("interop", "check.mjs"), rd.Root, applyEdits(t, edit))
		if err == nil || !strings.Contains(string(out), edit.want) {
			t.Errorf("%s: the check passed or did not say %q:\n%s", name, edit.want, out)
		}
	}
}

// TestIntegrationInteropPython has the Python readers check the same runs:
// interop/check.py reads every table with pyarrow, pandas and polars,
// asserts the dtypes that SCHEMA.md's types give, the metadata against the
// code's schema version, decodes each histogram with the hdrhistogram
// package, and runs SCHEMA.md's Python snippets. It needs the .venv of
// `make pyenv`; it fails, never skips, without it.
func TestIntegrationInteropPython(t *testing.T) {
	python := venvPython(t)
	_, rd, rd2 := writeRuns(t)
	check := func(runDir, schema string, flags ...string) ([]byte, error) {
		args := append([]string{filepath.Join("interop", "check.py"), runDir, schema,
			"--schema-version", strconv.Itoa(datasets.SchemaVersion), "--yardstick-version", "v-interop"}, flags...)
		return runTool(python, args...)
	}
	out, err := check(rd.Root, "SCHEMA.md")
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("Python check failed: %v", err)
	}
	for _, want := range []string{"8 histograms decoded", "polars saw 2 runs", "SCHEMA.md snippets ran", "check.py: ok"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the check did not say %q", want)
		}
	}

	// Teeth: types SCHEMA.md gets wrong, a Python snippet that does not
	// run, a schema version and a yardstick version the files do not carry;
	// one run of the check reports them all.
	edits := []docEdit{
		{"| `cpu_us` | `int64` | BIGINT |", "| `cpu_us` | `float64` | BIGINT |", "timeseries.cpu_us: pandas dtype Int64, want Float64"},
		{"| `variant` | `dictionary<utf8>` | VARCHAR |", "| `variant` | `utf8` | VARCHAR |", "cells.variant: pandas dtype category, want string"},
		{"| `started` | `timestamp[us, UTC]` |", "| `started` | `int64` |", "cells.started: pandas dtype datetime64[us, UTC], want Int64"},
		{`.filter(pl.col("status").is_in(["ok", "unfair"]))`, `.filter(pl.col("state").is_in(["ok", "unfair"]))`, "python snippet 2 raised ColumnNotFoundError"},
	}
	out, err = check(rd.Root, applyEdits(t, edits...), "--schema-version", "99", "--yardstick-version", "v-other")
	wants := []string{fmt.Sprintf("SCHEMA.md documents schema version %d, the code's is 99", datasets.SchemaVersion),
		"cells: metadata yardstick.version = 'v-interop', want 'v-other'"}
	for _, e := range edits {
		wants = append(wants, e.want)
	}
	for _, want := range wants {
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("the check passed or did not say %q:\n%s", want, out)
		}
	}

	// A cells table whose p99 is not its histogram's fails.
	path := datasets.Cells.Path(rd2.Root)
	cells, meta, err := datasets.Cells.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	p99 := *cells[0].LatencyP99US + 1
	cells[0].LatencyP99US = &p99
	if _, err := datasets.Cells.Write(rd2.Root, meta, cells); err != nil {
		t.Fatal(err)
	}
	out, err = check(rd2.Root, "SCHEMA.md")
	want := "cell " + cells[0].CellID + ": decoded p99 = " + strconv.FormatInt(p99-1, 10) + ", cells.latency_p99_us = " + strconv.FormatInt(p99, 10)
	if err == nil || !strings.Contains(string(out), want) {
		t.Errorf("p99: the check passed or did not say %q:\n%s", want, out)
	}
}

// TestIntegrationNotebook executes notebooks/yardstick.ipynb with
// notebooks/run.py (nbclient, the .venv's ipykernel) on two runs of an
// experiment, then on a lone run with pending and failed cells: every cell
// runs, figures come out as PNGs, and the comparison says which runs it
// compares, or that there is only one. The committed notebook has no
// outputs, and run.py fails on a cell that raises and on a notebook
// without a figure.
func TestIntegrationNotebook(t *testing.T) {
	nbPath := filepath.Join("..", "notebooks", "yardstick.ipynb")
	if err := noOutputs(nbPath); err != nil {
		t.Error(err)
	}
	executed := filepath.Join(t.TempDir(), "executed.ipynb")
	if err := os.WriteFile(executed, []byte(strings.Replace(tinyNotebook("1"), `"outputs": []`,
		`"outputs": [{"output_type": "stream", "name": "stdout", "text": "1"}]`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := noOutputs(executed); err == nil {
		t.Error("noOutputs accepted a notebook with an output")
	}

	python := venvPython(t)
	runPy, err := filepath.Abs(filepath.Join("..", "notebooks", "run.py"))
	if err != nil {
		t.Fatal(err)
	}
	results, _, rd2 := writeRuns(t)
	out, err := runIn(filepath.Dir(results), nil, python, runPy)
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("the notebook failed: %v", err)
	}
	for _, want := range []string{
		"run " + rd2.ID() + " of experiment " + synthrun.Datasets.Experiment,
		"comparing run " + rd2.ID() + " (B) with baseline " + synthrun.Datasets.RunID + " (A)",
		"8 cells measured in both runs",
		" PNG figures",
		// the steady-state section: the fixture's one drifting cell
		"  kept_steady false: closed/jvm-zgc/c8-p128/r1: throughput ",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the notebook did not say %q", want)
		}
	}

	// A lone run, named by YARDSTICK_RUN, with pending and failed cells.
	lone, _, err := synthrun.Datasets.Write(filepath.Join(t.TempDir(), "results"), synthrun.Options{Pending: 2, Failed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tabulate.Run(lone, "v-interop"); err != nil {
		t.Fatal(err)
	}
	out, err = runIn(t.TempDir(), []string{"YARDSTICK_RUN=" + lone.Root}, python, runPy)
	if err != nil || !strings.Contains(string(out), "Only one run of "+synthrun.Datasets.Experiment) {
		t.Errorf("lone run: the notebook failed or did not say there is only one run: %v\n%s", err, out)
	}

	// run.py has teeth.
	dir := t.TempDir()
	for name, c := range map[string]struct{ source, want string }{
		"error":    {`raise RuntimeError("boom")`, "RuntimeError: boom"},
		"no image": {`print("hello")`, "no output is an image/png"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".ipynb")
		if err := os.WriteFile(path, []byte(tinyNotebook(c.source)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := runIn(dir, nil, python, runPy, path)
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: run.py passed or did not say %q:\n%s", name, c.want, out)
		}
	}
}

// noOutputs says which code cells of a notebook file have outputs or an
// execution count: a committed notebook has neither.
func noOutputs(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var nb struct {
		Cells []struct {
			CellType       string            `json:"cell_type"`
			Outputs        []json.RawMessage `json:"outputs"`
			ExecutionCount *int              `json:"execution_count"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var dirty []string
	for i, c := range nb.Cells {
		if c.CellType == "code" && (len(c.Outputs) != 0 || c.ExecutionCount != nil) {
			dirty = append(dirty, strconv.Itoa(i+1))
		}
	}
	if len(nb.Cells) == 0 {
		return fmt.Errorf("%s: no cells", path)
	}
	if len(dirty) > 0 {
		return fmt.Errorf("%s: cells %s have outputs or an execution count: clear them before committing", path, strings.Join(dirty, ", "))
	}
	return nil
}

// tinyNotebook is a notebook of one code cell.
func tinyNotebook(source string) string {
	src, _ := json.Marshal(source)
	return `{"cells": [{"cell_type": "code", "execution_count": null, "id": "only", "metadata": {}, "outputs": [], "source": ` +
		string(src) + `}], "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}`
}

// writeRuns writes two runs of the fixture experiment under
// <tmp>/results, with their tables: the first with pending and failed
// cells and a fairness.json, the second (newer) complete.
func writeRuns(t *testing.T) (results string, first, second *pipeline.RunDir) {
	t.Helper()
	results = filepath.Join(t.TempDir(), "results")
	first, _, err := synthrun.Datasets.Write(results, synthrun.Options{Pending: 2, Failed: 3, Fairness: []byte(fairnessJSON)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tabulate.Run(first, "v-interop"); err != nil {
		t.Fatal(err)
	}
	// A second run of the same experiment, so the Hive glob spans runs.
	second, _, err = synthrun.Datasets.Write(results, synthrun.Options{RunID: "20261201T000000Z-0000"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tabulate.Run(second, "v-interop"); err != nil {
		t.Fatal(err)
	}
	return results, first, second
}

// venvPython is the Python of `make pyenv`, or a fatal error saying so.
func venvPython(t *testing.T) string {
	t.Helper()
	python, err := filepath.Abs(filepath.Join("..", ".venv", "bin", "python"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("%s does not exist: run make pyenv (the pinned Python environment of requirements.txt)", python)
	}
	return python
}

// A docEdit replaces a string of SCHEMA.md; want is what a check of the
// result must say.
type docEdit struct{ old, new, want string }

// applyEdits writes SCHEMA.md with the edits made into a temporary
// directory and returns its path.
func applyEdits(t *testing.T, edits ...docEdit) string {
	t.Helper()
	b, err := os.ReadFile("SCHEMA.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, e := range edits {
		if !strings.Contains(doc, e.old) {
			t.Fatalf("SCHEMA.md has no %q", e.old)
		}
		doc = strings.Replace(doc, e.old, e.new, 1)
	}
	path := filepath.Join(t.TempDir(), "SCHEMA.md")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runTool runs a checker or notebooks/run.py (see runIn).
func runTool(prog string, args ...string) ([]byte, error) {
	return runIn("", nil, prog, args...)
}

// runIn runs prog in dir (when not empty) with extra environment
// variables (NAME=value), with at most three minutes (the notebook took
// 50 s on a shared, loaded 2-core machine).
func runIn(dir string, env []string, prog string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return cmd.CombinedOutput()
}

const fairnessJSON = `[
  {"check": "event_loops", "scope": "batch", "batch": "closed",
   "expected": 1, "measured": 1, "unit": "threads", "pass": true},
  {"check": "log_bytes_per_request", "scope": "cell", "batch": "closed",
   "cell_id": "000000000000", "expected": 96, "measured": 131,
   "tolerance": 0.15, "unit": "bytes/request", "pass": false,
   "detail": "131 bytes/request is 36% above the batch's 96"}
]`
