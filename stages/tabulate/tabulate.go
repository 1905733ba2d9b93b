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
//     environment at the run directory's root, each atomically.
//
// The stage reads only files and writes only the tables: it can run again
// at any time, on a partial run or after more shards have finished, and the
// same checkpoints always give byte-identical files.
package tabulate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"yardstick/datasets"
	"yardstick/pipeline"
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
}

// Tables lists the tables Run writes, in the order it writes them.
var Tables = datasets.Names

// Run rebuilds every table of the run directory from its plan, checkpoints,
// environment.json and fairness.json. version is the yardstick version
// recorded in the files' metadata.
func Run(rd *pipeline.RunDir, version string) (Summary, error) {
	var s Summary
	plan, err := rd.ReadPlan()
	if err != nil {
		return s, fmt.Errorf("datasets: %w", err)
	}
	meta := datasets.Meta{Version: version, PlanHash: plan.Hash, Experiment: plan.Experiment, RunID: rd.ID()}
	s.Cells = len(plan.Cells)

	env, err := readEnvironment(rd)
	if err != nil {
		return s, fmt.Errorf("datasets: %w", err)
	}
	fairness, err := ReadFairness(rd)
	if err != nil {
		return s, fmt.Errorf("datasets: %w", err)
	}
	s.Warnings = append(s.Warnings, strayCheckpoints(rd, plan)...)
	unfair := pipeline.UnfairCells(plan, fairness)

	tb := &tables{dir: rd.Root, meta: meta}
	defer tb.abort()
	if err := tb.create(); err != nil {
		return s, fmt.Errorf("datasets: %w", err)
	}
	var cells []datasets.Cell
	var hists []datasets.Histogram
	for i := range plan.Cells {
		c := &plan.Cells[i]
		cp, err := rd.ReadCheckpoint(c.ID)
		switch {
		case errors.Is(err, os.ErrNotExist):
			cp = nil
		case err != nil:
			return s, fmt.Errorf("datasets: cell %s (%s): %w", c.ID, c.Name, err)
		case cp.CellID != c.ID:
			return s, fmt.Errorf("datasets: cell %s (%s): its checkpoint is for cell %q", c.ID, c.Name, cp.CellID)
		}
		row := planColumns(plan, c)
		if cp == nil {
			row.Status = pipeline.StatusPending
			s.Pending++
			cells = append(cells, row)
			continue
		}
		switch cp.Status {
		case pipeline.StatusOK:
			s.OK++
		case pipeline.StatusFailed:
			s.Failed++
		}
		d, hist, warns, err := measured(&row, cp)
		if err != nil {
			return s, fmt.Errorf("datasets: cell %s (%s): %w", c.ID, c.Name, err)
		}
		if checks := unfair[c.ID]; len(checks) > 0 {
			joined := strings.Join(checks, ",")
			row.UnfairChecks = &joined
			if row.Status == pipeline.StatusOK {
				row.Status = pipeline.StatusUnfair
			}
		}
		s.Warnings = append(s.Warnings, warns...)
		cells = append(cells, row)
		if hist != nil {
			hists = append(hists, *hist)
			if err := tb.spectrum.Append(spectrum(c.ID, d)...); err != nil {
				return s, fmt.Errorf("datasets: %w", err)
			}
		}
		if err := tb.timeseries.Append(seconds(c.ID, cp.Seconds)...); err != nil {
			return s, fmt.Errorf("datasets: %w", err)
		}
		if err := tb.samples.Append(samples(c.ID, cp.Samples)...); err != nil {
			return s, fmt.Errorf("datasets: %w", err)
		}
	}
	if err := tb.cells.Append(cells...); err != nil {
		return s, fmt.Errorf("datasets: %w", err)
	}
	if err := tb.histograms.Append(hists...); err != nil {
		return s, fmt.Errorf("datasets: %w", err)
	}
	if err := tb.fairness.Append(fairness...); err != nil {
		return s, fmt.Errorf("datasets: %w", err)
	}
	if err := tb.batches.Append(batchRows(plan)...); err != nil {
		return s, fmt.Errorf("datasets: %w", err)
	}
	if env != nil {
		if err := tb.environment.Append(environmentRow(env, plan)); err != nil {
			return s, fmt.Errorf("datasets: %w", err)
		}
	} else {
		s.Warnings = append(s.Warnings, "no environment.json: the environment table is empty")
	}
	files, err := tb.close()
	if err != nil {
		return s, fmt.Errorf("datasets: %w", err)
	}
	s.Files = files
	return s, nil
}

// tables holds one writer per table while Run fills them.
type tables struct {
	dir         string
	meta        datasets.Meta
	cells       *datasets.Writer[datasets.Cell]
	timeseries  *datasets.Writer[datasets.Second]
	histograms  *datasets.Writer[datasets.Histogram]
	spectrum    *datasets.Writer[datasets.SpectrumPoint]
	samples     *datasets.Writer[datasets.Sample]
	fairness    *datasets.Writer[datasets.FairnessCheck]
	environment *datasets.Writer[datasets.Environment]
	batches     *datasets.Writer[datasets.Batch]
	// closers finish the writers in the order of Tables; aborts drop them.
	closers []func() (datasets.File, error)
	aborts  []func()
}

func open[R any](tb *tables, t *datasets.Table[R], w **datasets.Writer[R]) error {
	ww, err := t.Create(tb.dir, tb.meta)
	if err != nil {
		return err
	}
	*w = ww
	tb.closers = append(tb.closers, ww.Close)
	tb.aborts = append(tb.aborts, ww.Abort)
	return nil
}

func (tb *tables) create() error {
	return errors.Join(
		open(tb, datasets.Cells, &tb.cells),
		open(tb, datasets.Timeseries, &tb.timeseries),
		open(tb, datasets.Histograms, &tb.histograms),
		open(tb, datasets.Spectrum, &tb.spectrum),
		open(tb, datasets.Samples, &tb.samples),
		open(tb, datasets.Fairness, &tb.fairness),
		open(tb, datasets.Environments, &tb.environment),
		open(tb, datasets.Batches, &tb.batches),
	)
}

// close finishes every table; after the first failure the rest are
// dropped, so no table is left half-written (each is atomic on its own).
func (tb *tables) close() ([]datasets.File, error) {
	var files []datasets.File
	for i, c := range tb.closers {
		f, err := c()
		if err != nil {
			for _, a := range tb.aborts[i+1:] {
				a()
			}
			tb.closers, tb.aborts = nil, nil
			return files, err
		}
		files = append(files, f)
	}
	tb.closers, tb.aborts = nil, nil
	return files, nil
}

func (tb *tables) abort() {
	for _, a := range tb.aborts {
		a()
	}
	tb.closers, tb.aborts = nil, nil
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

// measured fills the cells columns that come from the checkpoint and
// returns the cell's histogram row (nil without a histogram) with its
// distribution.
func measured(r *datasets.Cell, cp *pipeline.Checkpoint) (*hdrstat.Dist, *datasets.Histogram, []string, error) {
	var warns []string
	r.Status = cp.Status
	r.Error = nonEmpty(cp.Error)
	r.Start = nonEmpty(cp.Start)
	r.Started = timeOrNil(cp.Started)
	r.Ended = timeOrNil(cp.Ended)
	if w := cp.Window; w != nil {
		r.WarmupUS = ptr(w.Warmup.Microseconds())
		r.MeasureUS = ptr(w.Measure.Microseconds())
		r.DiscardHeadUS = ptr(w.DiscardHead.Microseconds())
		r.LoadStart = timeOrNil(w.LoadStart)
		r.KeptStart = timeOrNil(w.KeptStart)
		r.KeptEnd = timeOrNil(w.KeptEnd)
	}
	var d *hdrstat.Dist
	var hist *datasets.Histogram
	if l := cp.Load; l != nil {
		r.Requests = ptr(l.Requests)
		r.Errors = ptr(l.Errors)
		r.RPS = ptr(l.RPS)
		r.KeptDurationUS = ptr(micros(l.DurationS))
		if l.Connections > 0 {
			r.Connections = ptr(int64(l.Connections))
		}
		if l.RateTarget > 0 {
			r.RateTarget = ptr(l.RateTarget)
		}
		if l.Hist != "" {
			h, err := hdrstat.Decode(l.Hist)
			if err != nil {
				return nil, nil, nil, err
			}
			d = hdrstat.NewDist(h)
			hist = &datasets.Histogram{
				CellID:              r.CellID,
				Unit:                "us",
				TotalCount:          h.TotalCount(),
				MinUS:               d.Min(),
				MaxUS:               d.Max(),
				LowestDiscernibleUS: h.LowestTrackableValue(),
				HighestTrackableUS:  h.HighestTrackableValue(),
				SignificantDigits:   h.SignificantFigures(),
				Hist:                l.Hist,
			}
			if d.TotalCount() > 0 {
				r.LatencyMeanUS = ptr(h.Mean())
				r.LatencyP50US = ptr(d.Percentile(50))
				r.LatencyP90US = ptr(d.Percentile(90))
				r.LatencyP99US = ptr(d.Percentile(99))
				r.LatencyP999US = ptr(d.Percentile(99.9))
				r.LatencyP9999US = ptr(d.Percentile(99.99))
				r.LatencyMaxUS = ptr(d.Max())
				r.LatencyMinUS = ptr(d.Min())
				for i, t := range datasets.TailThresholdsUS {
					n := d.Over(t)
					r.Tails[i] = datasets.Tail{Count: ptr(n), Share: ptr(float64(n) / float64(d.TotalCount()))}
				}
				if l.Latency.P99 != 0 && l.Latency.P99 != *r.LatencyP99US {
					warns = append(warns, fmt.Sprintf("cell %s: the checkpoint's p99 is %d us, its histogram's %d us; the tables use the histogram's",
						r.CellID, l.Latency.P99, *r.LatencyP99US))
				}
			}
		} else if l.Requests > 0 {
			// No histogram: publish the load generator's own summary.
			lat := l.Latency
			r.LatencyMeanUS = ptr(lat.Mean)
			r.LatencyP50US, r.LatencyP90US, r.LatencyP99US = ptr(lat.P50), ptr(lat.P90), ptr(lat.P99)
			r.LatencyP999US, r.LatencyP9999US = ptr(lat.P999), ptr(lat.P9999)
			r.LatencyMaxUS, r.LatencyMinUS = ptr(lat.Max), ptr(lat.Min)
			warns = append(warns, fmt.Sprintf("cell %s: no histogram in the checkpoint; no tail counts or spectrum", r.CellID))
		}
		r.ResponseBytes = ptr(l.ResponseBytes)
		if l.Requests > 0 {
			r.ResponseBytesPerRequest = ptr(float64(l.ResponseBytes) / float64(l.Requests))
		}
		r.LoadgenCPUUS = ptr(micros(l.LoadgenCPUS))
		r.LoadgenDurationUS = ptr(micros(l.LoadgenDurationS))
		if l.LoadgenCPUs > 0 {
			r.LoadgenCPUs = ptr(int64(l.LoadgenCPUs))
			if l.LoadgenDurationS > 0 {
				r.LoadgenCPUShare = ptr(l.LoadgenCPUS / (l.LoadgenDurationS * float64(l.LoadgenCPUs)))
			}
		}
		r.Sends = ptr(l.Sends)
		r.LateSends = ptr(l.LateSends)
	}
	if t := cp.Target; t != nil {
		r.RSSSteadyBytes = ptr(t.RSSSteadyBytes)
		r.RSSPeakBytes = ptr(t.RSSPeakBytes)
		r.RSSAfterBytes = ptr(t.RSSAfterBytes)
		r.TargetCPUUS = ptr(micros(t.CPUSeconds))
		r.CPUPerRequestUS = ptr(t.CPUPerRequestUS)
		r.Threads = ptr(int64(t.Threads))
		if t.EventLoopThreads >= 0 {
			r.EventLoopThreads = ptr(int64(t.EventLoopThreads))
		}
	}
	if g := cp.GC; g != nil {
		r.GCSource = nonEmpty(g.Source)
		r.GCCount = ptr(int64(g.Count))
		r.GCPauseTotalUS = ptr(g.PauseTotalUS)
		r.GCPauseMaxUS = ptr(g.PauseMaxUS)
		r.GCCountBefore = ptr(int64(g.CountBefore))
		r.GCCountAfter = ptr(int64(g.CountAfter))
	}
	if a := cp.AccessLog; a != nil {
		r.LogBytes = ptr(a.Bytes)
		r.LogBytesPerRequest = ptr(a.BytesPerRequest)
	}
	if c := cp.ColdStart; c != nil {
		r.ColdStartUS = ptr(micros(c.MedianMS / 1e3))
		r.ColdStartFirstUS = ptr(micros(c.StartMS / 1e3))
	}
	return d, hist, warns, nil
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

func seconds(id string, in []pipeline.Second) []datasets.Second {
	out := make([]datasets.Second, len(in))
	for i, s := range in {
		out[i] = datasets.Second{
			CellID: id, Second: int64(s.Second), InWindow: s.InWindow,
			Requests: s.Requests, Errors: s.Errors,
			RSSBytes: s.RSSBytes, CPUUS: micros(s.CPUSeconds),
		}
		if s.Requests > 0 {
			out[i].P50US, out[i].P99US, out[i].MaxUS = ptr(s.P50US), ptr(s.P99US), ptr(s.MaxUS)
		}
	}
	slices.SortStableFunc(out, func(a, b datasets.Second) int { return int(a.Second - b.Second) })
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
			CPUsTarget: b.Placement.Target, CPUsServices: opt(b.Placement.Services), CPUsLoadgen: b.Placement.Loadgen,
			NoiseBand: b.Fairness.Noise, Baseline: opt(b.Baseline), Repeats: int64(b.Repeats), Order: b.Order,
			Variants: int64(len(b.Variants)),
		})
	}
	return out
}

// readEnvironment reads environment.json; nil when the run has none.
func readEnvironment(rd *pipeline.RunDir) (*pipeline.Environment, error) {
	b, err := os.ReadFile(rd.Path("environment.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read environment: %w", err)
	}
	var e pipeline.Environment
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("read %s: %w", rd.Path("environment.json"), err)
	}
	return &e, nil
}

// ReadFairness reads the run's fairness.json (a JSON array of
// datasets.FairnessCheck); none when the file does not exist.
func ReadFairness(rd *pipeline.RunDir) ([]datasets.FairnessCheck, error) {
	path := rd.Path(datasets.FairnessFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read fairness: %w", err)
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
	entries, err := os.ReadDir(rd.Path("cells"))
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
	mult := int64(1)
	if s != "" {
		switch s[len(s)-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		case 't', 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			s = s[:len(s)-1]
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return nil
	}
	return ptr(n * mult)
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
