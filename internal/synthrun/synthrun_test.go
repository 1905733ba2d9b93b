package synthrun

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sync/errgroup"

	"yardstick/pipeline"
)

// files reads every file under dir, by path relative to dir.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The same fixture and options give the same bytes, tables included.
// The two writes of each fixture run at once: what they share would then
// show as a difference (or a race under -race), and the test takes half
// the time on two CPUs.
func TestDeterministic(t *testing.T) {
	for _, f := range []*Fixture{Datasets, Report} {
		a, b := t.TempDir(), t.TempDir()
		var g errgroup.Group
		for _, dir := range []string{a, b} {
			g.Go(func() error {
				_, _, err := f.Write(dir, Options{Tables: true})
				return err
			})
		}
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
		fa, fb := files(t, a), files(t, b)
		if len(fa) != len(fb) || len(fa) < 10 {
			t.Fatalf("%s: %d and %d files", f.Experiment, len(fa), len(fb))
		}
		for name, data := range fa {
			if !bytes.Equal(data, fb[name]) {
				t.Errorf("%s: %s differs between two writes", f.Experiment, name)
			}
		}
	}
}

// Every finished cell's checkpoint names its start directory, which
// pipeline.RunDir.StartDir names and whose start.json lists the cell;
// pending cells have neither; failed cells are failed.
func TestCellsAndStarts(t *testing.T) {
	rd, p, err := Datasets.Write(t.TempDir(), Options{Pending: 2, Failed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Cells {
		c := &p.Cells[i]
		cp, err := rd.ReadCheckpoint(c.ID)
		if i >= len(p.Cells)-2 {
			if err == nil {
				t.Errorf("pending cell %s has a checkpoint", c.Name)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case i == 2 && (cp.Status != pipeline.StatusFailed || cp.Error == "" || cp.Load != nil):
			t.Errorf("cell 3 is not failed: %+v", cp)
		case i != 2 && (cp.Status != pipeline.StatusOK || cp.Load == nil || cp.Window == nil):
			t.Errorf("cell %s: status %s", c.Name, cp.Status)
		}
		dir := rd.StartDir(c, 0)
		if filepath.Base(dir) != cp.Start {
			t.Errorf("cell %s: checkpoint start %q, StartDir %s", c.Name, cp.Start, dir)
		}
		b, err := os.ReadFile(filepath.Join(dir, "start.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s pipeline.StartRecord
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if s.Name != cp.Start || s.StartSeq != c.StartSeq || !slices.Contains(s.Cells, c.ID) {
			t.Errorf("start.json of %s: %+v", c.Name, s)
		}
	}
}

// The report fixture fails its FailedCell and marks its UnfairCell in
// fairness.json.
func TestReportFixture(t *testing.T) {
	rd, p, err := Report.Write(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var failed, unfair int
	for i := range p.Cells {
		c := &p.Cells[i]
		cp, err := rd.ReadCheckpoint(c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if (cp.Status == pipeline.StatusFailed) != (c.Name == Report.FailedCell) {
			t.Errorf("cell %s status %s", c.Name, cp.Status)
		}
		if c.Name == Report.FailedCell {
			failed++
		}
	}
	b, err := os.ReadFile(rd.Path("fairness.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []pipeline.FairnessRow
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	for id, checks := range pipeline.UnfairCells(p, rows) {
		for _, c := range p.Cells {
			if c.ID == id && c.Name == Report.UnfairCell && slices.Equal(checks, []string{"nagle_floor"}) {
				unfair++
			}
		}
	}
	if failed != 1 || unfair != 1 {
		t.Errorf("%d failed and %d unfair cells, want 1 and 1", failed, unfair)
	}
}
