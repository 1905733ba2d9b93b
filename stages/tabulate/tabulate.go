// Package tabulate is the datasets stage: it merges the cell checkpoints of
// a run directory into the Parquet tables of package datasets.
//
// The flow of [Run] is
//
//  1. read plan.json (the lock) and, if present, environment.json and
//     fairness.json;
//  2. for every planned cell, in plan order, read its checkpoint if it has
//     one: a cell without one is "pending" and has only its planned columns
//     in the cells table;
//  3. derive the latency figures of each cell from its kept-window
//     HdrHistogram (package hdrstat), so that the cells, histograms and
//     spectrum tables agree with each other and with any HdrHistogram
//     decoder;
//  4. write cells, timeseries, histograms, spectrum, samples, fairness and
//     environment at the run directory's root, each atomically, each by
//     its own writer while the checkpoints are read (one errgroup: the
//     first failure cancels the rest, and a table cut short is dropped).
//
// The stage reads only files and writes only the tables: it can run again
// at any time, on a partial run or after more shards have finished, and the
// same checkpoints always give byte-identical files.
package tabulate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"yardstick/datasets"
	"yardstick/decide"
	"yardstick/pipeline"
	"yardstick/pipeline/runfs"
	"yardstick/stats/hdrstat"
)

// Summary says what Run wrote.
type Summary struct {
	// Files are the tables written, in the order of [Tables].
	Files []datasets.File
	// Cells is the number of planned cells; OK, Failed and Pending count
	// them by status (other statuses count in none of the three).
	Cells, OK, Failed, Pending int
	// Warnings are things a reader of the tables should know: checkpoints
	// that disagree with their histogram, files that were missing.
	Warnings []string
	// Comparisons are the comparisons table's rows.
	Comparisons []datasets.Comparison
	// Busy says that the machine was busy during the kept windows
	// (decide.Busy), "" when it was not.
	Busy string
}

// Tables lists the tables Run writes, in the order it writes them.
var Tables = datasets.Names

// Run rebuilds every table of the run directory from its plan, checkpoints,
// environment.json and fairness.json. version is the yardstick version
// recorded in the files' metadata. Every file is read through rd (package
// runfs: regular files, no links, size caps), and the stage stops with
// rd's context.
func Run(rd *pipeline.RunDir, version string) (Summary, error) {
	var s Summary
	in, err := readInputs(rd, version, &s)
	if err != nil {
		return s, fmt.Errorf("datasets: %w", err)
	}
	tb := &tables{dir: rd.Root, meta: in.meta}
	defer tb.abort()
	if err := tb.create(); err != nil {
		return s, fmt.Errorf("datasets: %w", err)
	}
	files, err := tb.write(rd.Context(), func(ctx context.Context) error { return tb.fill(ctx, rd, in, &s) })
	if err != nil {
		return s, fmt.Errorf("datasets: %w", err)
	}
	s.Files = files
	return s, nil
}

// inputs are what Run reads besides the checkpoints.
type inputs struct {
	plan     *pipeline.Plan
	meta     datasets.Meta
	env      *pipeline.Environment // nil: no environment.json
	nodes    map[string]*pipeline.BatchNodes
	fairness []datasets.FairnessCheck
	unfair   map[string][]string // failed fairness checks by cell id
	rounds   pipeline.Rounds     // rounds/: adaptive repeats' rounds
}

// readInputs reads the plan, environment.json and fairness.json, and
// warns about checkpoints of cells that are not in the plan.
func readInputs(rd *pipeline.RunDir, version string, s *Summary) (*inputs, error) {
	plan, err := rd.ReadPlan()
	if err != nil {
		return nil, err
	}
	s.Cells = len(plan.Cells)
	env, err := readEnvironment(rd)
	if err != nil {
		return nil, err
	}
	fairness, err := ReadFairness(rd)
	if err != nil {
		return nil, err
	}
	nodes, err := rd.ReadAllNodes(plan)
	if err != nil {
		return nil, err
	}
	s.Warnings = append(s.Warnings, strayCheckpoints(rd, plan)...)
	rounds, err := rd.ReadRounds(plan)
	if err != nil {
		return nil, err
	}
	return &inputs{
		rounds:   rounds,
		nodes:    nodes,
		plan:     plan,
		meta:     datasets.Meta{Version: version, PlanHash: plan.Hash, Experiment: plan.Experiment, RunID: rd.ID()},
		env:      env,
		fairness: fairness,
		unfair:   pipeline.UnfairCells(plan, fairness),
	}, nil
}

// fill sends every table its rows: the cells' in plan order, then the
// fairness checks, the batches, the comparisons computed from the cells
// and the batches, and the environment.
func (tb *tables) fill(ctx context.Context, rd *pipeline.RunDir, in *inputs, s *Summary) error {
	for i := range in.plan.Cells {
		if err := tb.fillCell(ctx, rd, in, &in.plan.Cells[i], s); err != nil {
			return err
		}
	}
	if err := tb.fairness.send(ctx, in.fairness...); err != nil {
		return err
	}
	batches := batchRows(in.plan)
	if err := tb.batches.send(ctx, batches...); err != nil {
		return err
	}
	s.Comparisons = decide.Run(tb.rows, batches, func(name string) (*pipeline.Batch, pipeline.BatchRounds) {
		return in.plan.Batch(name), in.rounds[name]
	})
	s.Busy = decide.Busy(tb.rows)
	if err := tb.comparisons.send(ctx, s.Comparisons...); err != nil {
		return err
	}
	if in.env == nil && len(in.nodes) == 0 {
		s.Warnings = append(s.Warnings, "no environment.json: the environment table is empty")
		return nil
	}
	return tb.environment.send(ctx, environmentRows(in)...)
}

// fillCell sends the rows of planned cell c: its cells row and, if it has
// a checkpoint, its histogram, spectrum, seconds and samples.
func (tb *tables) fillCell(ctx context.Context, rd *pipeline.RunDir, in *inputs, c *pipeline.Cell, s *Summary) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	cp, err := readCheckpoint(rd, c)
	if err != nil {
		return err
	}
	row := planColumns(in.plan, c)
	if cp == nil && in.rounds.NotNeeded(c) {
		row.Status = pipeline.StatusNotNeeded
		tb.rows = append(tb.rows, row)
		return tb.cells.send(ctx, row)
	}
	if cp == nil {
		row.Status = pipeline.StatusPending
		s.Pending++
		tb.rows = append(tb.rows, row)
		return tb.cells.send(ctx, row)
	}
	switch cp.Status {
	case pipeline.StatusOK:
		s.OK++
	case pipeline.StatusFailed:
		s.Failed++
	}
	d, hist, warns, err := measured(&row, cp)
	if err != nil {
		return fmt.Errorf("cell %s (%s): %w", c.ID, c.Name, err)
	}
	if checks := in.unfair[c.ID]; len(checks) > 0 {
		joined := strings.Join(checks, ",")
		row.UnfairChecks = &joined
		if row.Status == pipeline.StatusOK {
			row.Status = pipeline.StatusUnfair
		}
	}
	s.Warnings = append(s.Warnings, warns...)
	tb.rows = append(tb.rows, row)
	if err := tb.cells.send(ctx, row); err != nil {
		return err
	}
	if hist != nil {
		if err := tb.histograms.send(ctx, *hist); err != nil {
			return err
		}
		if err := tb.spectrum.send(ctx, spectrum(c.ID, d)...); err != nil {
			return err
		}
	}
	if err := tb.timeseries.send(ctx, intervals(c.ID, cp.Intervals, cp.Steady)...); err != nil {
		return err
	}
	if err := tb.holds.send(ctx, holdRows(c, cp.Hold)...); err != nil {
		return err
	}
	return tb.samples.send(ctx, samples(c.ID, cp.Samples)...)
}

// readCheckpoint reads cell c's checkpoint; nil if it has none.
func readCheckpoint(rd *pipeline.RunDir, c *pipeline.Cell) (*pipeline.Checkpoint, error) {
	cp, err := rd.ReadCheckpoint(c.ID)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		// ReadCheckpoint refuses another version or another cell's file.
		return nil, fmt.Errorf("cell %s (%s): %w", c.ID, c.Name, err)
	}
	return cp, nil
}

// planColumns fills the cells columns that come from the plan.
func planColumns(p *pipeline.Plan, c *pipeline.Cell) datasets.Cell {
	r := datasets.Cell{
		Batch:      c.Batch,
		CellID:     c.ID,
		CellName:   c.Name,
		Seq:        int64(c.Seq),
		StartGroup: int64(c.StartSeq),
		Target:     c.Target,
		Variant:    c.Variant,
		Kind:       c.Kind,
		Mode:       c.Point.Mode,
		Repeat:     int64(c.Repeat),
	}
	if v := findVariant(p, c); v != nil {
		knob := func(name string) *string {
			if val := v.Knob(name); val != "" {
				return &val
			}
			return nil
		}
		if k := knob("gomaxprocs"); k != nil {
			if n, err := strconv.ParseInt(*k, 10, 64); err == nil {
				r.GoMaxProcs = &n
			}
		}
		r.GoMemLimit = knob("gomemlimit")
		if r.GoMemLimit != nil {
			r.GoMemLimitBytes = goMemLimitBytes(*r.GoMemLimit)
		}
		r.GoGC = knob("gogc")
		r.GC = knob("gc")
		r.Heap = knob("heap")
		if r.Heap != nil {
			r.HeapBytes = jvmSizeBytes(*r.Heap)
		}
		r.Flags = knob("flags")
		if v.Processors > 0 {
			r.Processors = ptr(int64(v.Processors))
		}
		limitColumns(&r, v.Limits) // limits.go
	}
	pt := c.Point
	if pt.Payload != nil {
		r.Payload = ptr(int64(*pt.Payload))
	}
	if pt.Concurrency > 0 {
		r.Concurrency = ptr(int64(pt.Concurrency))
	}
	switch {
	case pt.Connections > 0:
		r.Connections = ptr(int64(pt.Connections))
	case pt.Mode == "closed" && pt.Concurrency > 0:
		r.Connections = ptr(int64(pt.Concurrency))
	}
	if pt.Rate > 0 {
		r.RateTarget = ptr(pt.Rate)
	}
	if pt.PeakFraction > 0 {
		r.PeakFraction = ptr(pt.PeakFraction)
	}
	return r
}

func findVariant(p *pipeline.Plan, c *pipeline.Cell) *pipeline.Variant {
	for bi := range p.Batches {
		b := &p.Batches[bi]
		if b.Name != c.Batch {
			continue
		}
		for vi := range b.Variants {
			if v := &b.Variants[vi]; v.Label == c.Variant && v.Target == c.Target {
				return v
			}
		}
	}
	return nil
}

func spectrum(id string, d *hdrstat.Dist) []datasets.SpectrumPoint {
	if d.TotalCount() == 0 {
		return nil
	}
	out := make([]datasets.SpectrumPoint, len(datasets.SpectrumPercentiles))
	for i, p := range datasets.SpectrumPercentiles {
		out[i] = datasets.SpectrumPoint{CellID: id, Percentile: p, LatencyUS: d.Percentile(p)}
	}
	return out
}

// intervals are the cell's timeseries rows, with the throughput segment
// of each interval when the cell has a steady-state analysis.
func intervals(id string, in []pipeline.Interval, st *pipeline.Steady) []datasets.Interval {
	out := make([]datasets.Interval, len(in))
	var cps []int
	analysed := st != nil && st.Error == ""
	if analysed {
		cps = st.Throughput.Changepoints
	}
	for i, iv := range in {
		out[i] = datasets.Interval{
			CellID: id, Interval: int64(iv.Index), StartUS: iv.StartUS, DurationUS: iv.DurationUS,
			InWindow: iv.InWindow, Requests: iv.Requests, Errors: iv.Errors,
		}
		if analysed {
			seg := int64(0)
			for _, c := range cps {
				if iv.Index >= c {
					seg++
				}
			}
			out[i].Segment = ptr(seg)
		}
		if iv.Requests > 0 {
			out[i].P50US, out[i].P99US, out[i].MaxUS = ptr(iv.P50US), ptr(iv.P99US), ptr(iv.MaxUS)
			out[i].Hist = nonEmpty(iv.Hist)
		}
		if iv.Sampled {
			out[i].RSSBytes, out[i].CPUUS = ptr(iv.RSSBytes), ptr(micros(iv.CPUSeconds))
		}
	}
	slices.SortStableFunc(out, func(a, b datasets.Interval) int { return int(a.Interval - b.Interval) })
	return out
}

func samples(id string, in []pipeline.Sample) []datasets.Sample {
	out := make([]datasets.Sample, len(in))
	for i, s := range in {
		out[i] = datasets.Sample{
			CellID: id, Time: s.Time.UTC(), InWindow: s.InWindow, RSSBytes: s.RSSBytes,
			CPUUserUS: micros(s.CPUUserSeconds), CPUSysUS: micros(s.CPUSysSeconds),
			Threads: int64(s.Threads), MatchedThreads: int64(s.MatchedThreads),
			VoluntaryCtxSwitches: s.VoluntaryCtxSwitches, InvoluntaryCtxSwitches: s.InvoluntaryCtxSwitches,
			PIDs: int64(s.PIDs),
		}
	}
	slices.SortStableFunc(out, func(a, b datasets.Sample) int { return a.Time.Compare(b.Time) })
	return out
}

func environmentRow(e *pipeline.Environment, p *pipeline.Plan) datasets.Environment {
	planHash := e.PlanHash
	if planHash == "" {
		planHash = p.Hash
	}
	sourceHash := e.SourceHash
	if sourceHash == "" {
		sourceHash = p.SourceHash
	}
	return datasets.Environment{
		Host: e.Host, Kernel: e.Kernel, OS: e.OS, Arch: e.Arch, CPUModel: e.CPUModel,
		Cores: int64(e.Cores), Governor: nonEmpty(e.Governor), MemoryBytes: e.MemoryBytes,
		GoVersion: nonEmpty(e.GoVersion), JavaVersion: nonEmpty(e.JavaVersion),
		YardstickVersion: e.Yardstick, SourceHash: sourceHash, PlanHash: planHash,
		PlannedCells: int64(len(p.Cells)), Captured: timeOrNil(e.Captured), Workdir: e.Workdir,
	}
}

// batchRows describes the plan's batches.
func batchRows(p *pipeline.Plan) []datasets.Batch {
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	var out []datasets.Batch
	for _, b := range p.Batches {
		out = append(out, datasets.Batch{
			Batch: b.Name, Description: opt(b.Description), Processors: int64(b.Processors),
			CPUsTarget: b.Placement.Target.String(), CPUsServices: opt(b.Placement.Services.String()), CPUsLoadgen: b.Placement.Loadgen.String(),
			NoiseBand: b.Fairness.Noise, Baseline: opt(b.Baseline), Repeats: int64(b.Repeats), Order: b.Order,
			Variants: int64(len(b.Variants)),
		})
	}
	return out
}

// readEnvironment reads environment.json; nil when the run has none.
func readEnvironment(rd *pipeline.RunDir) (*pipeline.Environment, error) {
	e, err := rd.ReadEnvironment()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("environment: %w", err)
	}
	return e, nil
}

// ReadFairness reads the run's fairness.json (a JSON array of
// datasets.FairnessCheck); none when the file does not exist. The
// steady_state rows that runs of schema 6 and before wrote are left out:
// steadiness is a note on the measurement (the cells table has it), not
// a fairness check, and marks no cell unfair.
func ReadFairness(rd *pipeline.RunDir) ([]datasets.FairnessCheck, error) {
	rows, err := readFairness(rd)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(rows, func(r datasets.FairnessCheck) bool { return r.Check == "steady_state" }), nil
}

// readFairness reads fairness.json as it is.
func readFairness(rd *pipeline.RunDir) ([]datasets.FairnessCheck, error) {
	path := rd.Path(datasets.FairnessFile)
	b, err := rd.ReadFile(datasets.FairnessFile, runfs.JSON)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("fairness: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var rows []datasets.FairnessCheck
	if err := dec.Decode(&rows); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	for i, r := range rows {
		switch {
		case r.Check == "":
			err = errors.New("no check")
		case r.Scope != datasets.ScopeCell && r.Scope != datasets.ScopeBatch && r.Scope != datasets.ScopeExperiment:
			err = fmt.Errorf("scope %q, want cell, batch or experiment", r.Scope)
		case r.Scope == datasets.ScopeCell && r.CellID == nil:
			err = errors.New("a cell check without cell_id")
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: element %d: %w", path, i, err)
		}
	}
	return rows, nil
}

// strayCheckpoints warns about checkpoints of cells that are not in the
// plan (left over from another plan); they are not tabulated.
func strayCheckpoints(rd *pipeline.RunDir, p *pipeline.Plan) []string {
	entries, err := runfs.ReadDir(rd.Root, "cells")
	if err != nil {
		return nil
	}
	planned := make(map[string]bool, len(p.Cells))
	for _, c := range p.Cells {
		planned[c.ID] = true
	}
	var warns []string
	for _, e := range entries {
		if e.IsDir() && !planned[e.Name()] && rd.HasCheckpoint(e.Name()) {
			warns = append(warns, fmt.Sprintf("cells/%s has a checkpoint but is not in plan.json; ignored", e.Name()))
		}
	}
	return warns
}

// goMemLimitBytes parses a GOMEMLIMIT value (bytes with an optional B,
// KiB, MiB, GiB or TiB suffix); nil for "off" or anything else.
func goMemLimitBytes(s string) *int64 {
	units := []struct {
		suffix string
		mult   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return nil
	}
	return ptr(n * mult)
}

// jvmSizeBytes parses a JVM size (-Xmx syntax: a number with an optional
// k, m, g or t suffix, powers of 1024); nil if it does not parse.
func jvmSizeBytes(s string) *int64 {
	n, ok := pipeline.JVMBytes(s)
	if !ok {
		return nil
	}
	return ptr(n)
}

// micros converts seconds to whole microseconds, rounded to nearest.
func micros(seconds float64) int64 { return int64(math.Round(seconds * 1e6)) }

func ptr[T any](v T) *T { return &v }

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// CellRows are the cells rows of the batch's cells that have a
// checkpoint, as the cells table has them before the fairness checks run
// (no cell is unfair yet): what the runner decides adaptive repeats on
// between rounds.
func CellRows(rd *pipeline.RunDir, p *pipeline.Plan, batch string) ([]datasets.Cell, error) {
	var out []datasets.Cell
	for i := range p.Cells {
		c := &p.Cells[i]
		if c.Batch != batch {
			continue
		}
		cp, err := readCheckpoint(rd, c)
		if err != nil {
			return nil, err
		}
		if cp == nil {
			continue
		}
		row := planColumns(p, c)
		if _, _, _, err := measured(&row, cp); err != nil {
			return nil, fmt.Errorf("cell %s (%s): %w", c.ID, c.Name, err)
		}
		out = append(out, row)
	}
	return out, nil
}
