package tabulate_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"yardstick/datasets"
	"yardstick/internal/synthrun"
	"yardstick/stages/tabulate"
)

// A table that cannot be put in place fails the run, cancels the tables
// still being written, and leaves nothing half-written: every table file
// present reads back whole, with the rows a good run wrote, and no
// temporary file is left.
func TestWriteFailureLeavesNoHalfTable(t *testing.T) {
	rd, _ := writeFixture(t, synthrun.Options{Pending: 1, Failed: 2})
	good, err := tabulate.Run(rd, "v-test")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	for _, f := range good.Files {
		b, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		want[f.Table] = b
		if err := os.Remove(f.Path); err != nil {
			t.Fatal(err)
		}
	}
	// A directory in the way: the samples table cannot be renamed into place.
	blocker := datasets.Samples.Path(rd.Root)
	if err := os.MkdirAll(filepath.Join(blocker, "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = tabulate.Run(rd, "v-test")
	if err == nil || !strings.Contains(err.Error(), "samples.parquet") {
		t.Fatalf("err = %v, want the samples table's failure", err)
	}
	if left, _ := filepath.Glob(rd.Path(".*tmp*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	for _, f := range good.Files {
		if f.Table == "samples" {
			continue
		}
		b, err := os.ReadFile(f.Path)
		if os.IsNotExist(err) {
			continue // cancelled before it was done: not written
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, want[f.Table]) {
			t.Errorf("%s was written but differs from a good run's", f.Table)
		}
	}
}
