package history

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/pipeline"
)

// A Run is one run of a history: what the history keeps of its directory
// once its figures are taken (the cells themselves are not kept, so that
// a long history stays small).
type Run struct {
	ID, Dir    string
	Experiment string
	Date       time.Time
	PlanHash   string
	// Version is the yardstick version that wrote the tables.
	Version string
	// Environment is the machine and toolchains in words ("" when the
	// run has no environment.json); Binaries a digest of lock.json's
	// hashes ("" without lock.json).
	Environment string
	Binaries    string
	// Busy is decide.Busy's sentence: "" on a quiet machine.
	Busy string
	// Marks say what changed at this run from the run before it in the
	// history: "environment", "binaries", "plan" (set by Build).
	Marks []string

	figures       map[key]Figure
	margins       map[string]float64            // per batch
	metricMargins map[string]map[string]float64 // per batch and metric, as declared
}

// A NewerError refuses a run whose tables are of a newer schema version
// than this yardstick reads.
type NewerError struct {
	Dir     string
	Version int
}

func (e *NewerError) Error() string {
	return fmt.Sprintf("%s: tables of schema version %d, newer than the %d this yardstick reads: read this history with a newer yardstick",
		e.Dir, e.Version, datasets.SchemaVersion)
}

// ReadRun reads one run directory's figures and its margins. Its cells
// table is required; environment.json, lock.json and batches.parquet are
// read when present.
func ReadRun(ctx context.Context, dir string) (*Run, error) {
	r, err := readRun(ctx, dir)
	if err != nil {
		return nil, err
	}
	return r, r.readMargins(ctx)
}

// readRun reads one run directory's figures, environment and lock: what
// every run of a history needs (the margins are the newest run's).
func readRun(ctx context.Context, dir string) (*Run, error) {
	rd := (&pipeline.RunDir{Root: dir}).WithContext(ctx)
	cells, meta, err := datasets.Cells.ReadColumnsContext(ctx, datasets.Cells.Path(dir), cellColumns)
	if errors.Is(err, datasets.ErrSchemaVersion) && meta.SchemaVersion > datasets.SchemaVersion {
		return nil, &NewerError{Dir: dir, Version: meta.SchemaVersion}
	}
	if err != nil {
		return nil, err
	}
	r := &Run{ID: rd.ID(), Dir: dir, Experiment: meta.Experiment, PlanHash: meta.PlanHash, Version: meta.Version}
	r.Date, _ = time.Parse("20060102T150405Z", strings.SplitN(r.ID, "-", 2)[0])
	if err := r.readAround(rd); err != nil {
		return nil, err
	}
	r.Busy = decide.Busy(cells)
	r.figures = figuresOf(cells)
	return r, nil
}

// readMargins reads the run's margins: each batch's declared margin and
// per-metric margins from plan.json, else the noise band of its batches
// table; none (the default margin) without either.
func (r *Run) readMargins(ctx context.Context) error {
	r.margins, r.metricMargins = map[string]float64{}, map[string]map[string]float64{}
	p, err := (&pipeline.RunDir{Root: r.Dir}).WithContext(ctx).ReadPlan()
	if err == nil {
		for _, b := range p.Batches {
			r.margins[b.Name] = b.Fairness.Noise
			r.metricMargins[b.Name] = b.Fairness.Margins
		}
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	batches, _, err := datasets.Batches.ReadContext(ctx, datasets.Batches.Path(r.Dir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, b := range batches {
		r.margins[b.Batch] = b.NoiseBand
	}
	return nil
}

// readAround reads the environment and the lock, each optional.
func (r *Run) readAround(rd *pipeline.RunDir) error {
	env, err := rd.ReadEnvironment()
	switch {
	case err == nil:
		r.Environment = environmentWords(env)
		if r.Date.IsZero() {
			r.Date = env.Captured.UTC()
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	l, err := rd.ReadLock()
	switch {
	case err == nil:
		r.Binaries = binariesDigest(l.Binaries)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return nil
}

// environmentWords is the machine and toolchains a result belongs to:
// host and fingerprint (docs/methodology.md#machine).
func environmentWords(e *pipeline.Environment) string {
	f := e.Fingerprint
	return fmt.Sprintf("%s: %s/%s, kernel %s, %s, %d cores, governor %s, %d bytes, go %s, java %s",
		e.Host, f.OS, f.Arch, f.Kernel, f.CPUModel, f.Cores, f.Governor, f.MemoryBytes, f.GoVersion, f.JavaVersion)
}

// binariesDigest is a short digest of the binaries' hashes (errors
// included), in key order, so that two locks of the same files give the
// same digest.
func binariesDigest(bs []pipeline.Binary) string {
	lines := make([]string, 0, len(bs))
	for _, b := range bs {
		lines = append(lines, b.Key()+"\x00"+b.SHA256+"\x00"+b.Error)
	}
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return fmt.Sprintf("%x", sum[:6])
}

// Margin is the run's margin of metric m in batch b: the metric's own
// (fairness.margin per metric), else the batch's, else the default
// margin when the run has neither plan.json nor a batches table.
func (r *Run) Margin(b, m string) float64 {
	if v, ok := r.metricMargins[b][m]; ok {
		return v
	}
	if v, ok := r.margins[b]; ok {
		return v
	}
	return pipeline.DefaultMargin
}
