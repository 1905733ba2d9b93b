package report

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"yardstick/datasets"
	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
	"yardstick/stages/report/analysis"
)

// load reads the tables of the run directory dir. cells.parquet is
// required; a missing optional table leaves its sections out with a note.
// A file that is not a yardstick table, is truncated or belongs to another
// run is an error.
func load(ctx context.Context, dir string) (*analysis.Tables, error) {
	t := &analysis.Tables{}
	var ok bool
	var err error
	t.Cells, t.Meta, ok, err = readTable(ctx, datasets.Cells, dir)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: no %s: not a run directory with datasets (run yardstick datasets on it)", dir, datasets.Cells.File())
	}
	if err := checkNames(t.Cells); err != nil {
		return nil, fmt.Errorf("%s: %s: refused: %w", dir, datasets.Cells.File(), err)
	}
	optional := func(name string, m datasets.Meta, found bool, err error) error {
		if err != nil {
			return err
		}
		if !found {
			t.Notes = append(t.Notes, fmt.Sprintf("%s.parquet is missing: its sections are left out.", name))
			return nil
		}
		if m.RunID != t.Meta.RunID || m.Experiment != t.Meta.Experiment {
			return fmt.Errorf("%s: %s.parquet is of run %s/%s, cells.parquet of %s/%s: tables of different runs",
				dir, name, m.Experiment, m.RunID, t.Meta.Experiment, t.Meta.RunID)
		}
		return nil
	}
	var m datasets.Meta
	t.Series, m, ok, err = readTable(ctx, datasets.Timeseries, dir)
	if err := optional("timeseries", m, ok, err); err != nil {
		return nil, err
	}
	t.Spectrum, m, ok, err = readTable(ctx, datasets.Spectrum, dir)
	if err := optional("spectrum", m, ok, err); err != nil {
		return nil, err
	}
	t.Fairness, m, ok, err = readTable(ctx, datasets.Fairness, dir)
	if err := optional("fairness", m, ok, err); err != nil {
		return nil, err
	}
	t.Env, m, ok, err = readTable(ctx, datasets.Environments, dir)
	if err := optional("environment", m, ok, err); err != nil {
		return nil, err
	}
	t.Comparisons, m, ok, err = readTable(ctx, datasets.Comparisons, dir)
	if err := optional("comparisons", m, ok, err); err != nil {
		return nil, err
	}
	batches, m, ok, err := readTable(ctx, datasets.Batches, dir)
	if err := optional("batches", m, ok, err); err != nil {
		return nil, err
	}
	if ok {
		t.Plan = planOf(batches)
	} else {
		t.Notes = append(t.Notes, "without the batches table, CPU sets, margins and baselines are unknown; margin taken as 0.")
	}
	return t, nil
}

// planOf puts the batches table in the plan's shape, the part of it the
// report states with its numbers.
func planOf(rows []datasets.Batch) *pipeline.Plan {
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	// the table writes the plan's sets in their compact form; a list that
	// does not read back is stated as unknown ("-")
	cpus := func(list string) cpuset.Set {
		var s cpuset.Set
		if s.UnmarshalText([]byte(list)) != nil {
			return nil
		}
		return s
	}
	p := &pipeline.Plan{}
	for _, r := range rows {
		b := pipeline.Batch{
			Name: r.Batch, Description: str(r.Description), Processors: int(r.Processors),
			Baseline: str(r.Baseline), Repeats: int(r.Repeats), Order: r.Order,
		}
		b.Placement.Target, b.Placement.Services, b.Placement.Loadgen = cpus(r.CPUsTarget), cpus(str(r.CPUsServices)), cpus(r.CPUsLoadgen)
		b.Fairness.Noise = r.NoiseBand
		p.Batches = append(p.Batches, b)
	}
	return p
}

// readTable reads one table file through the datasets reader, which opens
// it through package runfs (a regular file, not a link, within the size
// and row caps), stops with ctx, and turns a panic of the Parquet decoder
// on a malformed file into an error. found is false when the file does
// not exist.
func readTable[R any](ctx context.Context, tb *datasets.Table[R], dir string) (rows []R, m datasets.Meta, found bool, err error) {
	rows, m, err = tb.ReadContext(ctx, tb.Path(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, m, false, nil
	}
	return rows, m, true, err
}

// checkNames re-validates the names the report turns into file names
// (chart files carry the batch name and a point label): tables may come
// from elsewhere.
func checkNames(cells []datasets.Cell) error {
	for i := range cells {
		c := &cells[i]
		if err := pipeline.CheckName("batch", c.Batch); err != nil {
			return err
		}
		if err := pipeline.CheckLabel(c.Variant); err != nil {
			return err
		}
	}
	return nil
}
