//go:build integration

// Readers that are not ours (pyarrow, pandas and polars in the .venv,
// DuckDB under Node.js) need more than Go: this test carries the build
// tag integration and runs in make test-integration.

package history_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"yardstick/datasets"
	"yardstick/stages/history"
)

// TestIntegrationHistoryParquetForeignReaders writes the history of 40
// runs with a step and has pyarrow/pandas/polars (check.py --history)
// and DuckDB (check.mjs --history) read history.parquet: its columns
// and types as SCHEMA.md documents them, its metadata, one experiment,
// and each change's interval around its ratio. A SCHEMA.md that types
// one column otherwise fails both. It fails, never skips, without the
// readers (make pyenv, make interop-deps).
func TestIntegrationHistoryParquetForeignReaders(t *testing.T) {
	python, err := filepath.Abs(filepath.Join("..", "..", ".venv", "bin", "python"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("%s does not exist: run make pyenv", python)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: apt-get install nodejs npm, then make interop-deps")
	}
	interop := filepath.Join("..", "..", "datasets", "interop")
	if _, err := os.Stat(filepath.Join(interop, "node_modules", "@duckdb", "node-api", "package.json")); err != nil {
		t.Fatal("@duckdb/node-api is not installed in datasets/interop/node_modules: run make interop-deps")
	}
	h := build(t, makeHistory(t, 40, 0.02, 1.2, 25, 1), history.Options{})
	out := t.TempDir()
	if _, err := h.Write(out, "v-test"); err != nil {
		t.Fatal(err)
	}
	schema := filepath.Join("..", "..", "datasets", "SCHEMA.md")
	version := strconv.Itoa(datasets.SchemaVersion)
	run := func(doc string) (py, js []byte, pyErr, jsErr error) {
		py, pyErr = exec.Command(python, filepath.Join(interop, "check.py"), "--history", out, doc, "--schema-version", version).CombinedOutput()
		js, jsErr = exec.Command(node, filepath.Join(interop, "check.mjs"), "--history", out, doc).CombinedOutput()
		return
	}
	py, js, pyErr, jsErr := run(schema)
	t.Logf("check.py:\n%s\ncheck.mjs:\n%s", py, js)
	if pyErr != nil || jsErr != nil || !strings.Contains(string(py), "changes") || !strings.Contains(string(js), "changes") {
		t.Fatalf("the foreign readers refused history.parquet: %v, %v", pyErr, jsErr)
	}
	b, err := os.ReadFile(schema)
	if err != nil {
		t.Fatal(err)
	}
	const col = "| `starts` | `int64` | BIGINT |"
	if !strings.Contains(string(b), col) {
		t.Fatalf("SCHEMA.md has no %q line to edit", col)
	}
	bad := filepath.Join(t.TempDir(), "SCHEMA.md")
	if err := os.WriteFile(bad, []byte(strings.Replace(string(b), col, "| `starts` | `float64` | DOUBLE |", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	py, js, pyErr, jsErr = run(bad)
	if pyErr == nil || jsErr == nil || !strings.Contains(string(py), "starts") || !strings.Contains(string(js), "starts") {
		t.Errorf("a SCHEMA.md that retypes history.starts passed:\ncheck.py (%v):\n%s\ncheck.mjs (%v):\n%s", pyErr, py, jsErr, js)
	}
}
