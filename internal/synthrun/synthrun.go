// Package synthrun writes synthetic but realistic run directories for the
// tests of the datasets and report stages and their readers: a real
// plan.json expanded from a CUE definition, environment.json,
// fairness.json, one start directory per target start (start.json, named
// by pipeline.RunDir.StartDir) and one checkpoint per finished cell, whose
// HdrHistograms are recorded from seeded latencies. Optionally the datasets
// stage turns it into the Parquet tables.
//
// One builder serves every fixture: a Fixture is a definition and a
// measurement model (how its variants behave). Two are defined:
// [Datasets], for the datasets stage and the interop check, and [Report],
// for the report and compare. The same fixture always gives the same
// bytes.
package synthrun

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sync/errgroup"

	"yardstick/pipeline"
	"yardstick/stages/plan"
	"yardstick/stages/tabulate"
	"yardstick/stats/hdrstat"
)

// Base is when every fixture run started.
var Base = time.Date(2026, 11, 30, 6, 23, 0, 0, time.UTC)

// Yardstick is the version the fixtures say ran them and built their
// tables.
const Yardstick = "devel-fixture"

// The windows of every fixture batch: the load generator runs warmup +
// measure, and the first discard of measure is dropped.
const (
	warmup  = 2 * time.Second
	measure = 5 * time.Second
	discard = 1 * time.Second
)

// A Fixture is one synthetic run: its experiment and how it measures.
type Fixture struct {
	// Experiment and RunID name the run: it lives in
	// <results>/<Experiment>/run=<RunID>/.
	Experiment, RunID string
	// Definition is the experiment's CUE source.
	Definition string
	// FailedCell names a cell that always fails; "" for none.
	FailedCell string
	// UnfairCell names a cell the fixture's fairness.json marks unfair;
	// "" for none.
	UnfairCell string

	file        string // the definition's file name
	javaVersion string // the environment's Java version
	seed        uint64 // second seed of each cell's generator
	clock       clock
	failure     string // a failed cell's error
	// fairness makes the fixture's fairness rows from the plan and the
	// checkpoints; nil: no fairness.json of its own.
	fairness func(f *Fixture, p *pipeline.Plan, cps map[string]*pipeline.Checkpoint) []pipeline.FairnessRow
	measure  func(m *measurement) error
}

// A clock says when a fixture's cells run.
type clock struct {
	spacing   time.Duration // between the starts of consecutive cells
	offset    time.Duration // of the first cell after Base
	loadDelay time.Duration // from the cell's start to the load's
	tail      time.Duration // from the kept window's end to the cell's end
	failAfter time.Duration // how long a failed cell ran
}

// A measurement is one cell being measured: the model fills cp.
type measurement struct {
	rng  *rand.Rand
	plan *pipeline.Plan
	cell *pipeline.Cell
	cp   *pipeline.Checkpoint
}

// Options shape one run of a fixture.
type Options struct {
	// Pending leaves the last Pending cells of the plan without a
	// checkpoint.
	Pending int
	// Failed marks the cell of this plan index (1-based; 0 for none) as
	// failed, besides the fixture's FailedCell: it has a checkpoint with
	// an error and no load.
	Failed int
	// NoEnvironment leaves out environment.json.
	NoEnvironment bool
	// Fairness, if set, is written as fairness.json instead of the
	// fixture's own.
	Fairness []byte
	// RunID names the run; the fixture's RunID when empty.
	RunID string
	// Tables runs the datasets stage on the run (version Yardstick).
	Tables bool
}

// Plan expands the fixture's definition.
func (f *Fixture) Plan() (*pipeline.Plan, error) {
	return plan.FromSource(f.file, []byte(f.Definition), f.Experiment, plan.Options{})
}

// Path is the fixture's run directory under results.
func (f *Fixture) Path(results string) string {
	return filepath.Join(results, f.Experiment, pipeline.RunIDPrefix+f.RunID)
}

// Write creates <results>/<Experiment>/run=<RunID>/ with plan.json,
// environment.json, fairness.json, the start directories and the
// checkpoints, and with o.Tables the Parquet tables.
func (f *Fixture) Write(results string, o Options) (*pipeline.RunDir, *pipeline.Plan, error) {
	p, err := f.Plan()
	if err != nil {
		return nil, nil, err
	}
	id := o.RunID
	if id == "" {
		id = f.RunID
	}
	rd, err := pipeline.CreateRunDir(results, f.Experiment, id)
	if err != nil {
		return nil, nil, err
	}
	if err := rd.WritePlan(p); err != nil {
		return nil, nil, err
	}
	if !o.NoEnvironment {
		if err := pipeline.WriteJSONAtomic(rd.Path("environment.json"), f.environment(p)); err != nil {
			return nil, nil, err
		}
	}
	cps, err := f.writeCells(rd, p, o)
	if err != nil {
		return nil, nil, err
	}
	if err := f.writeFairness(rd, p, cps, o.Fairness); err != nil {
		return nil, nil, err
	}
	if o.Tables {
		if _, err := tabulate.Run(rd, Yardstick); err != nil {
			return nil, nil, err
		}
	}
	return rd, p, nil
}

func (f *Fixture) environment(p *pipeline.Plan) *pipeline.Environment {
	return &pipeline.Environment{
		Host: "bench-01",
		Fingerprint: pipeline.Fingerprint{Kernel: "6.1.0-28-amd64", OS: "linux", Arch: "amd64",
			CPUModel: "AMD EPYC 7B13", Cores: 2, Governor: "performance", MemoryBytes: 8 << 30,
			GoVersion: "go1.26.8", JavaVersion: f.javaVersion},
		Yardstick:  Yardstick,
		SourceHash: p.SourceHash, PlanHash: p.Hash, Captured: Base.Add(-3 * time.Second),
		Workdir: "/work/yardstick",
	}
}

// writeFairness writes fairness.json: the option's bytes, else the
// fixture's own rows, else nothing.
func (f *Fixture) writeFairness(rd *pipeline.RunDir, p *pipeline.Plan, cps map[string]*pipeline.Checkpoint, own []byte) error {
	switch {
	case own != nil:
		return pipeline.WriteFileAtomic(rd.Path("fairness.json"), own)
	case f.fairness != nil:
		return pipeline.WriteJSONAtomic(rd.Path("fairness.json"), f.fairness(f, p, cps))
	}
	return nil
}

// writeCells writes the checkpoint of every finished cell and the
// start.json of every target start they ran in, and returns the
// checkpoints by cell id.
func (f *Fixture) writeCells(rd *pipeline.RunDir, p *pipeline.Plan, o Options) (map[string]*pipeline.Checkpoint, error) {
	made, err := f.checkpoints(p, o)
	if err != nil {
		return nil, err
	}
	cps := map[string]*pipeline.Checkpoint{}
	starts := map[string]*pipeline.StartRecord{}
	var order []string
	for i, cp := range made {
		c := &p.Cells[i]
		if err := rd.WriteCheckpoint(cp); err != nil {
			return nil, err
		}
		cps[c.ID] = cp
		dir := rd.StartDir(c, 0)
		if starts[dir] == nil {
			starts[dir] = startRecord(c, cp)
			order = append(order, dir)
		}
		s := starts[dir]
		s.Cells = append(s.Cells, c.ID)
		s.Stopped = cp.Ended.Add(200 * time.Millisecond)
	}
	for _, dir := range order {
		if err := writeStart(dir, starts[dir]); err != nil {
			return nil, err
		}
	}
	return cps, nil
}

// checkpoints makes the checkpoints of the finished cells (all but the
// last o.Pending), in plan order, on as many goroutines as there are
// CPUs: each cell is seeded by its own sequence number, so the order they
// are made in changes nothing, and a fixture of hundreds of cells takes a
// fraction of the time on the tests' two cores.
func (f *Fixture) checkpoints(p *pipeline.Plan, o Options) ([]*pipeline.Checkpoint, error) {
	made := make([]*pipeline.Checkpoint, max(len(p.Cells)-o.Pending, 0))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range made {
		c := &p.Cells[i]
		g.Go(func() error {
			cp, err := f.Checkpoint(p, c, i+1 == o.Failed || c.Name == f.FailedCell)
			made[i] = cp
			return err
		})
	}
	return made, g.Wait()
}

// startRecord is the start.json of the start whose first cell is c.
func startRecord(c *pipeline.Cell, cp *pipeline.Checkpoint) *pipeline.StartRecord {
	s := &pipeline.StartRecord{
		Name: cp.Start, StartSeq: c.StartSeq, Variant: c.Variant, Repeat: c.Repeat,
		Argv: c.Argv, Env: c.Env, PID: 4242, Started: cp.Started.Add(-warmup), ColdStart: cp.ColdStart,
		ExitStatus: "signal: terminated",
	}
	if cp.Status == pipeline.StatusFailed {
		s.ExitStatus, s.Error = "exit status 2", cp.Error
	}
	return s
}

func writeStart(dir string, s *pipeline.StartRecord) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("start %s: %w", s.Name, err)
	}
	return pipeline.WriteJSONAtomic(filepath.Join(dir, "start.json"), s)
}

// Checkpoint makes the checkpoint of cell c of plan p, seeded by its
// sequence number so that the same cell always gets the same numbers. A
// failed cell has an error and no load.
func (f *Fixture) Checkpoint(p *pipeline.Plan, c *pipeline.Cell, failed bool) (*pipeline.Checkpoint, error) {
	started := Base.Add(time.Duration(c.Seq)*f.clock.spacing + f.clock.offset)
	cp := &pipeline.Checkpoint{
		Version:  pipeline.CheckpointVersion,
		CellID:   c.ID,
		CellName: c.Name,
		Status:   pipeline.StatusOK,
		Started:  started,
		Start:    filepath.Base((&pipeline.RunDir{}).StartDir(c, 0)),
	}
	if failed {
		cp.Status = pipeline.StatusFailed
		cp.Error = f.failure
		cp.Ended = started.Add(f.clock.failAfter)
		return cp, nil
	}
	loadStart := started.Add(f.clock.loadDelay)
	cp.Window = &pipeline.Window{
		Warmup: warmup, Measure: measure, DiscardHead: discard, Interval: interval,
		LoadStart: loadStart, KeptStart: loadStart.Add(warmup + discard), KeptEnd: loadStart.Add(warmup + measure),
	}
	cp.Ended = cp.Window.KeptEnd.Add(f.clock.tail)
	m := &measurement{rng: rand.New(rand.NewPCG(uint64(c.Seq)+1, f.seed)), plan: p, cell: c, cp: cp}
	if err := f.measure(m); err != nil {
		return nil, fmt.Errorf("fixture %s cell %s: %w", f.Experiment, c.Name, err)
	}
	return cp, nil
}

// newHist is a latency histogram in microseconds, 1 us to 60 s, three
// significant digits: what the load generator records.
func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, 60_000_000, 3) }

// summary is the latency summary of h, with the datasets stage's
// percentile convention.
func summary(h *hdrhistogram.Histogram) pipeline.LatencyUS {
	d := hdrstat.NewDist(h)
	return pipeline.LatencyUS{
		Mean: h.Mean(), P50: d.Percentile(50), P90: d.Percentile(90), P99: d.Percentile(99),
		P999: d.Percentile(99.9), P9999: d.Percentile(99.99), Max: d.Max(), Min: d.Min(),
	}
}

func ptr[T any](v T) *T { return &v }
