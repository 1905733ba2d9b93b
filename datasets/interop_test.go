package datasets_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"yardstick/internal/synthrun"
	"yardstick/stages/tabulate"
)

// TestInteropDuckDB writes a run (some cells pending, one failed), builds
// its tables, and has a foreign reader check them: interop/check.mjs reads
// every table with DuckDB, asserts the documented column types, the cell
// count, the metadata, and decodes each histogram with hdr-histogram-js to
// compare with the stored percentiles. It needs node and the modules
// installed by `make interop-deps`; it fails, never skips, without them.
func TestInteropDuckDB(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: the interop check needs Node.js >= 20 (apt-get install nodejs npm), then make interop-deps")
	}
	for _, m := range []string{"@duckdb/node-api", "hdr-histogram-js"} {
		if _, err := os.Stat(filepath.Join("interop", "node_modules", m, "package.json")); err != nil {
			t.Fatalf("%s is not installed in datasets/interop/node_modules: run make interop-deps (npm ci in datasets/interop)", m)
		}
	}
	results := t.TempDir()
	rd, _, err := synthrun.Datasets.Write(results, synthrun.Options{Pending: 2, Failed: 3, Fairness: []byte(fairnessJSON)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tabulate.Run(rd, "v-interop"); err != nil {
		t.Fatal(err)
	}
	// A second run of the same experiment, so the Hive glob spans runs.
	rd2, _, err := synthrun.Datasets.Write(results, synthrun.Options{RunID: "20261201T000000Z-0000"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tabulate.Run(rd2, "v-interop"); err != nil {
		t.Fatal(err)
	}
	out, err := runCheck(node, rd.Root, "SCHEMA.md")
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("interop check failed: %v", err)
	}

	// The check has teeth: a SCHEMA.md that documents another type for
	// one column, or leaves one out, fails it.
	doc, err := os.ReadFile("SCHEMA.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string][2]string{
		"retyped": {"| `rps` | `float64` | DOUBLE |", "| `rps` | `float64` | BIGINT |"},
		"missing": {"| `cpu_us` | `int64` | BIGINT |", "| `cpu_usx` | `int64` | BIGINT |"},
	} {
		bad := strings.Replace(string(doc), edit[0], edit[1], 1)
		if bad == string(doc) {
			t.Fatalf("%s: SCHEMA.md has no %q", name, edit[0])
		}
		path := filepath.Join(t.TempDir(), "SCHEMA.md")
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := runCheck(node, rd.Root, path)
		if err == nil || !strings.Contains(string(out), strings.Trim(strings.Fields(edit[1])[1], "`")) {
			t.Errorf("%s: the check passed or did not name the column:\n%s", name, out)
		}
	}
}

// runCheck runs interop/check.mjs on a run directory against a SCHEMA.md.
func runCheck(node, runDir, schema string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return exec.CommandContext(ctx, node, filepath.Join("interop", "check.mjs"), runDir, schema).CombinedOutput()
}

const fairnessJSON = `[
  {"check": "event_loops", "scope": "batch", "batch": "closed",
   "expected": 1, "measured": 1, "unit": "threads", "pass": true},
  {"check": "log_bytes_per_request", "scope": "cell", "batch": "closed",
   "cell_id": "000000000000", "expected": 96, "measured": 131,
   "tolerance": 0.15, "unit": "bytes/request", "pass": false,
   "detail": "131 bytes/request is 36% above the batch's 96"}
]`
