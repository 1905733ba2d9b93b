package datasets_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"yardstick/stages/tabulate"
	"yardstick/stages/tabulate/tabulatetest"
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
	rd, _, err := tabulatetest.Write(results, tabulatetest.Options{Pending: 2, Failed: 3, Fairness: []byte(fairnessJSON)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tabulate.Run(rd, "v-interop"); err != nil {
		t.Fatal(err)
	}
	// A second run of the same experiment, so the Hive glob spans runs.
	rd2, _, err := tabulatetest.Write(results, tabulatetest.Options{RunID: "20261201T000000Z-0000"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tabulate.Run(rd2, "v-interop"); err != nil {
		t.Fatal(err)
	}
	runCheck(t, node, rd.Root)
}

// runCheck runs interop/check.mjs on a run directory.
func runCheck(t *testing.T, node, runDir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("interop", "check.mjs"), runDir, "SCHEMA.md")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("interop check failed: %v", err)
	}
}

const fairnessJSON = `[
  {"check": "event_loops", "scope": "batch", "batch": "closed",
   "expected": 1, "measured": 1, "unit": "threads", "pass": true},
  {"check": "log_bytes_per_request", "scope": "cell", "batch": "closed",
   "cell_id": "000000000000", "expected": 96, "measured": 131,
   "tolerance": 0.15, "unit": "bytes/request", "pass": false,
   "detail": "131 bytes/request is 36% above the batch's 96"}
]`
