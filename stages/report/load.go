package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"yardstick/datasets"
	"yardstick/pipeline"
)

// tables are a run directory's Parquet tables as read, plus the plan's
// batch metadata.
type tables struct {
	meta     datasets.Meta
	cells    []datasets.Cell
	series   []datasets.Second
	spectrum []datasets.SpectrumPoint
	fairness []datasets.FairnessCheck
	env      []datasets.Environment
	// plan is plan.json, read only for what the tables do not hold: the
	// batches' CPU sets, noise bands and baselines. nil when absent.
	plan *pipeline.Plan
	// notes say what was missing.
	notes []string
}

// load reads the tables of the run directory dir. cells.parquet is
// required; a missing optional table leaves its sections out with a note.
// A file that is not a yardstick table, is truncated or belongs to another
// run is an error.
func load(dir string) (*tables, error) {
	t := &tables{}
	var ok bool
	var err error
	t.cells, t.meta, ok, err = readTable(datasets.Cells, dir)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: no %s: not a run directory with datasets (run yardstick datasets on it)", dir, datasets.Cells.File())
	}
	optional := func(name string, m datasets.Meta, found bool, err error) error {
		if err != nil {
			return err
		}
		if !found {
			t.notes = append(t.notes, fmt.Sprintf("%s.parquet is missing: its sections are left out.", name))
			return nil
		}
		if m.RunID != t.meta.RunID || m.Experiment != t.meta.Experiment {
			return fmt.Errorf("%s: %s.parquet is of run %s/%s, cells.parquet of %s/%s: tables of different runs",
				dir, name, m.Experiment, m.RunID, t.meta.Experiment, t.meta.RunID)
		}
		return nil
	}
	var m datasets.Meta
	t.series, m, ok, err = readTable(datasets.Timeseries, dir)
	if err := optional("timeseries", m, ok, err); err != nil {
		return nil, err
	}
	t.spectrum, m, ok, err = readTable(datasets.Spectrum, dir)
	if err := optional("spectrum", m, ok, err); err != nil {
		return nil, err
	}
	t.fairness, m, ok, err = readTable(datasets.Fairness, dir)
	if err := optional("fairness", m, ok, err); err != nil {
		return nil, err
	}
	t.env, m, ok, err = readTable(datasets.Environments, dir)
	if err := optional("environment", m, ok, err); err != nil {
		return nil, err
	}
	t.plan, err = readPlan(filepath.Join(dir, "plan.json"))
	if err != nil {
		t.notes = append(t.notes, fmt.Sprintf("plan.json unreadable (%v): CPU sets, noise bands and baselines are unknown; noise band taken as 0.", err))
	}
	return t, nil
}

// readTable reads one table file, turning a panic of the Parquet decoder
// on a malformed file into an error. found is false when the file does not
// exist.
func readTable[R any](tb *datasets.Table[R], dir string) (rows []R, m datasets.Meta, found bool, err error) {
	path := tb.Path(dir)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, m, false, nil
	}
	defer func() {
		if r := recover(); r != nil {
			rows, found, err = nil, true, fmt.Errorf("read %s: malformed Parquet file: %v", path, r)
		}
	}()
	rows, m, err = tb.Read(path)
	if err != nil {
		return nil, m, true, err
	}
	return rows, m, true, nil
}

// readPlan reads plan.json leniently: only the batches' metadata is used,
// so a plan of another version still helps.
func readPlan(path string) (*pipeline.Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p pipeline.Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	return &p, nil
}
