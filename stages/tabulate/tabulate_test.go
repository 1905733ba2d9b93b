package tabulate_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"yardstick/datasets"
	"yardstick/datasets/hdrstat"
	"yardstick/pipeline"
	"yardstick/stages/tabulate"
	"yardstick/stages/tabulate/tabulatetest"
)

func writeFixture(t *testing.T, o tabulatetest.Options) (*pipeline.RunDir, *pipeline.Plan) {
	t.Helper()
	rd, p, err := tabulatetest.Write(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	return rd, p
}

func TestRunWritesEveryTable(t *testing.T) {
	rd, p := writeFixture(t, tabulatetest.Options{Pending: 2, Failed: 3})
	s, err := tabulate.Run(rd, "v-test")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings: %q", s.Warnings)
	}
	if s.Cells != len(p.Cells) || s.Pending != 2 || s.Failed != 1 || s.OK != len(p.Cells)-3 {
		t.Errorf("summary %+v", s)
	}
	var names []string
	for _, f := range s.Files {
		names = append(names, f.Table)
		if _, err := os.Stat(f.Path); err != nil {
			t.Error(err)
		}
	}
	if got, want := strings.Join(names, " "), strings.Join(tabulate.Tables, " "); got != want {
		t.Errorf("tables %s, want %s", got, want)
	}
	for _, f := range s.Files {
		t.Logf("%-12s %6d rows %8d bytes", f.Table, f.Rows, f.Bytes)
	}
}

// TestRebuildIsByteIdentical: the same checkpoints give the same bytes.
func TestRebuildIsByteIdentical(t *testing.T) {
	rd, _ := writeFixture(t, tabulatetest.Options{Pending: 1, Failed: 2})
	read := func() map[string][]byte {
		s, err := tabulate.Run(rd, "v-test")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{}
		for _, f := range s.Files {
			b, err := os.ReadFile(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			out[f.Table] = b
		}
		return out
	}
	first, second := read(), read()
	for name, b := range first {
		if !bytes.Equal(b, second[name]) {
			t.Errorf("%s differs between two rebuilds", name)
		}
	}
	// No temporary files are left behind.
	left, _ := filepath.Glob(rd.Path(".*tmp*"))
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	_ = datasets.SchemaVersion
}

// TestFixtureExercisesPercentileConvention: in some fixture cells the
// rank of p99 has a fraction below .5 and falls in another bucket than
// hdrhistogram-go's rounded rank, so the interop check (which compares
// with hdr-histogram-js exactly) would catch a switch to Go's convention.
func TestFixtureExercisesPercentileConvention(t *testing.T) {
	p, err := tabulatetest.Plan()
	if err != nil {
		t.Fatal(err)
	}
	differ := 0
	for i := range p.Cells {
		cp, err := tabulatetest.Checkpoint(&p.Cells[i], false)
		if err != nil {
			t.Fatal(err)
		}
		h, err := hdrstat.Decode(cp.Load.Hist)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []float64{50, 90, 99, 99.9, 99.99} {
			if hdrstat.NewDist(h).Percentile(q) != h.ValueAtPercentile(q) {
				differ++
			}
		}
	}
	t.Logf("%d cell percentiles differ between the conventions", differ)
	if differ == 0 {
		t.Error("no fixture percentile tells the conventions apart")
	}
}
