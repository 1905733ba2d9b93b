// Package execute is the execute stage: it runs the cells of a plan and
// writes one checkpoint per cell into the run directory.
//
// For each batch it pins itself to the load generator's CPUs (yardstick's
// own work never runs on the target's cores) and starts the batch's
// services; for each start (one start of a target variant, see
// pipeline.Cell.StartSeq) it runs the variant's build step once, measures cold starts, starts the target pinned to its CPU set
// in its own process group, warms the service up, and then for each cell:
// drives `yardstick loadgen --stdio` (pinned to the load generator's CPUs)
// through warm-up and the measure window, samples the target's /proc,
// slices the GC log and the access log to the kept window, waits the idle
// time, reads RSS after the load, and writes the cell's checkpoint
// atomically. Then it stops the process group and records how it ended.
// A cell's concurrent parts (the /proc sampler, the load generator's
// driver and its watchdog) run under one errgroup: the first that fails
// cancels the others, and none outlives the cell.
//
// A target that crashes, never becomes ready or hangs fails its cell, and
// the matrix goes on. Cancelling the context (Ctrl-C) stops every process
// and leaves the run resumable: cells without a checkpoint run next time.
package execute

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"yardstick/loadgen"
	"yardstick/pipeline"
	"yardstick/pipeline/runfs"
	"yardstick/stages/execute/hosts"
	"yardstick/stages/execute/procgroup"
)

// Options configure a run.
type Options struct {
	// Self is the yardstick binary that runs `loadgen --stdio`.
	Self string
	// Workdir is the directory relative paths in the plan resolve against.
	Workdir string
	// Only selects the cells to run (--only); the others are left for
	// another run. The zero Only selects every cell.
	Only pipeline.Only
	// Progress receives progress lines; Terminal redraws one line.
	Progress io.Writer
	Terminal bool
	// Stage, when set, heads the progress counter: "round 2 of 3 to 4"
	// for a round of adaptive repeats.
	Stage string
	// StopGrace is how long a process gets between SIGTERM and SIGKILL.
	StopGrace time.Duration
	// BuildTimeout bounds each build step (default 15 minutes): a build
	// that hangs fails its cells instead of the run.
	BuildTimeout time.Duration
	// AllowDrift lets a build step on resume make other files than the
	// run's lock records (the drift is recorded in lock.json's
	// resume_drift); without it the run stops (ErrBuildDrift).
	AllowDrift bool
	// LogCap is the most each stdout.log and stderr.log of a target or
	// service keeps; 0 means DefaultLogCap.
	LogCap int64
	// Hosts, resolved, are the hosts of the two-host batches
	// (placement.hosts "separate"); nil runs every batch here, and a
	// two-host batch is then refused before any cell runs.
	Hosts *hosts.Pair
	// Filter, when set, leaves out of this call (not planned, not
	// counted) the cells it returns false for: the runner runs adaptive
	// repeats one round at a time.
	Filter func(*pipeline.Cell) bool
}

// Summary counts what a run did.
type Summary struct {
	Planned, Skipped, Done, Failed, Pending int
	// NotNeeded counts the cells of rounds of adaptive repeats that did
	// not run: their batch was decided before them (set by the runner).
	NotNeeded   int
	Interrupted bool
}

// Add adds the counts of another call of Run.
func (s *Summary) Add(o Summary) {
	s.Planned += o.Planned
	s.Skipped += o.Skipped
	s.Done += o.Done
	s.Failed += o.Failed
	s.Pending += o.Pending
	s.NotNeeded += o.NotNeeded
	s.Interrupted = s.Interrupted || o.Interrupted
}

// A planRun holds the state of one execution of the plan (one Run):
// its starts are startRuns, and each cell of a start a cellRun.
type planRun struct {
	rd      *pipeline.RunDir
	plan    *pipeline.Plan
	opts    Options
	prog    *progress
	builds  map[string]error // by variant label: the build step's outcome
	summary Summary
	reaper  *reaper
}

// Run executes every selected cell of the plan that has no checkpoint yet.
func Run(ctx context.Context, rd *pipeline.RunDir, p *pipeline.Plan, opts Options) (Summary, error) {
	if opts.BuildTimeout == 0 {
		opts.BuildTimeout = 15 * time.Minute
	}
	if opts.StopGrace == 0 {
		opts.StopGrace = 5 * time.Second
	}
	r := &planRun{rd: rd, plan: p, opts: opts, builds: map[string]error{}}
	if err := procgroup.EnableSubreaper(); err != nil {
		return Summary{}, err
	}
	rp, err := startReaper(opts.Self)
	if err != nil {
		return Summary{}, err
	}
	r.reaper = rp
	defer rp.close()
	var todo []pipeline.Cell
	for _, c := range p.Cells {
		if !opts.Only.Selects(&c) || (opts.Filter != nil && !opts.Filter(&c)) {
			continue
		}
		r.summary.Planned++
		if rd.HasCheckpoint(c.ID) {
			r.summary.Skipped++
			continue
		}
		todo = append(todo, c)
	}
	if err := checkHosts(p, todo, opts.Hosts); err != nil {
		return r.summary, err
	}
	r.prog = newProgress(opts.Progress, opts.Terminal, len(todo), estimateCells(p, todo))
	r.prog.stage = opts.Stage
	for _, b := range p.Batches {
		var cells []pipeline.Cell
		for _, c := range todo {
			if c.Batch == b.Name {
				cells = append(cells, c)
			}
		}
		if len(cells) == 0 {
			continue
		}
		if err := r.runBatch(ctx, &b, cells); err != nil {
			return r.finish(ctx), err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return r.finish(ctx), nil
}

func (r *planRun) finish(ctx context.Context) Summary {
	r.summary.Pending = r.summary.Planned - r.summary.Skipped - r.summary.Done - r.summary.Failed
	r.summary.Interrupted = ctx.Err() != nil
	r.prog.close()
	return r.summary
}

// record writes a cell's checkpoint and counts it.
func (r *planRun) record(cp *pipeline.Checkpoint) error {
	cp.Version = pipeline.CheckpointVersion
	if err := r.rd.WriteCheckpoint(cp); err != nil {
		return err
	}
	if cp.Status == pipeline.StatusOK {
		r.summary.Done++
	} else {
		r.summary.Failed++
	}
	r.prog.cellDone(cp)
	return nil
}

// failAll records every cell as failed with the same reason.
func (r *planRun) failAll(cells []pipeline.Cell, start string, reason error) error {
	for _, c := range cells {
		now := time.Now()
		cp := &pipeline.Checkpoint{CellID: c.ID, CellName: c.Name, Status: pipeline.StatusFailed, Error: reason.Error(), Started: now, Ended: now, Start: start}
		if err := r.record(cp); err != nil {
			return err
		}
	}
	return nil
}

func (r *planRun) runBatch(ctx context.Context, b *pipeline.Batch, cells []pipeline.Cell) error {
	// yardstick itself (sampling /proc, reading logs, driving the load
	// generator) runs beside the load generator, never on the target's
	// cores.
	if err := loadgen.Pin(b.Placement.Loadgen); err != nil {
		return r.failAll(cells, "", fmt.Errorf("batch %s: pin yardstick to the load generator's CPUs: %w", b.Name, err))
	}
	services, err := r.startServices(ctx, b)
	defer func() {
		for _, s := range services {
			r.stop(s)
		}
	}()
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return r.failAll(cells, "", fmt.Errorf("batch %s: %w", b.Name, err))
	}
	var start []pipeline.Cell
	flush := func() error {
		if len(start) == 0 {
			return nil
		}
		err := r.runStart(ctx, b, start)
		start = nil
		return err
	}
	for _, c := range cells {
		if len(start) > 0 && start[0].StartSeq != c.StartSeq {
			if err := flush(); err != nil {
				return err
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		start = append(start, c)
	}
	return flush()
}

// startServices starts the batch's helpers pinned to the services' CPUs
// and waits until each is ready.
func (r *planRun) startServices(ctx context.Context, b *pipeline.Batch) ([]*procgroup.Process, error) {
	var started []*procgroup.Process
	cpus := b.Placement.Services
	for _, s := range b.Services {
		dir := r.rd.Path("services", b.Name, s.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return started, err
		}
		if err := r.build(ctx, "service-"+b.Name+"-"+s.Name, b.Name, "service "+s.Name, &s); err != nil {
			return started, fmt.Errorf("service %s: %w", s.Name, err)
		}
		if err := portFree(r.targetDial(b, portProbeTimeout), s.Port); err != nil {
			return started, fmt.Errorf("service %s: %w", s.Name, err)
		}
		logs, err := r.openLogs(dir)
		if err != nil {
			return started, err
		}
		// A service's copiers end with its pipes, when it is stopped.
		p, err := r.start(procgroup.Spec{Argv: r.targetHost(b).Wrap(s.Argv), Env: s.Env, Dir: r.dir(s.Dir), CPUs: cpus, Stdout: logs.stdout.child, Stderr: logs.stderr.child})
		logs.started()
		if err != nil {
			logs.close(0)
		}
		if err != nil {
			return started, fmt.Errorf("service %s: %w", s.Name, err)
		}
		started = append(started, p)
		u, err := readyURL(s.Ready, s.Port)
		if err != nil {
			return started, fmt.Errorf("service %s: %w", s.Name, err)
		}
		if _, err := waitReady(ctx, r.targetDial(b, readyDialTimeout), p, u, b.Windows.ReadyTimeout.D()); err != nil {
			return started, fmt.Errorf("service %s: %w; stderr: %s", s.Name, err, tail(filepath.Join(dir, "stderr.log")))
		}
	}
	return started, nil
}

// start starts a process group and registers it with the reaper.
func (r *planRun) start(s procgroup.Spec) (*procgroup.Process, error) {
	p, err := procgroup.Start(s)
	if err == nil {
		r.reaper.add(p.PID())
	}
	return p, err
}

// stop stops a process group and tells the reaper it is gone. A process
// that had to be killed, or that left processes behind, is noted.
func (r *planRun) stop(p *procgroup.Process) procgroup.StopReport {
	rep := p.Stop(r.opts.StopGrace)
	r.reaper.remove(p.PID())
	name := filepath.Base(p.Cmd.Path)
	if rep.Killed {
		r.prog.note(fmt.Sprintf("stop %s (pid %d): no exit within %s of SIGTERM; killed", name, p.PID(), r.opts.StopGrace))
	}
	if rep.Lingering {
		r.prog.note(fmt.Sprintf("stop %s (pid %d): processes of its group outlived it and SIGKILL", name, p.PID()))
	}
	if rep.CgroupErr != nil {
		r.prog.note(fmt.Sprintf("warning: stop %s (pid %d): %v", name, p.PID(), rep.CgroupErr))
	}
	return rep
}

// dir resolves a process's working directory against the run's workdir.
func (r *planRun) dir(d string) string {
	if d == "" {
		return r.opts.Workdir
	}
	if filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(r.opts.Workdir, d)
}

// resolvePath resolves a path the process writes (an access log) the way
// the process sees it: relative to its working directory.
func (r *planRun) resolvePath(procDir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(r.dir(procDir), p)
}

// build runs a process's build step once per run and key, then hashes
// what it built into lock.json (recordBuilt).
func (r *planRun) build(ctx context.Context, key, batch, owner string, p *pipeline.Process) error {
	if len(p.Build) == 0 {
		return nil
	}
	if err, done := r.builds[key]; done {
		return err
	}
	logPath := r.rd.Path("starts", "build-"+safeName(key)+".log")
	out, err := runfs.OpenLog(logPath, true)
	if err != nil {
		return err
	}
	defer out.Close()
	r.prog.note("build " + key + ": " + strings.Join(p.Build, " "))
	bp, err := r.start(procgroup.Spec{Argv: p.Build, Dir: r.dir(p.Dir), Stdout: out, Stderr: out})
	if err == nil {
		bctx, cancel := context.WithTimeout(ctx, r.opts.BuildTimeout)
		werr := bp.Wait(bctx)
		cancel()
		r.stop(bp)
		if werr != nil && ctx.Err() == nil && bctx.Err() != nil {
			werr = fmt.Errorf("did not finish within %s", r.opts.BuildTimeout)
		}
		if werr != nil {
			err = fmt.Errorf("build step %s: %v; log %s: %s", strings.Join(p.Build, " "), werr, logPath, tail(logPath))
		} else {
			err = r.recordBuilt(batch, owner, p)
		}
	}
	if ctx.Err() == nil {
		r.builds[key] = err
	}
	return err
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func safeName(s string) string { return unsafeChars.ReplaceAllString(s, "_") }

// tailBytes is how much of a log a failure message quotes.
const tailBytes = 2048

// tail returns the last lines of a log file, for failure messages.
func tail(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return "(no log)"
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "(no log)"
	}
	off := max(st.Size()-tailBytes, 0)
	b := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return "(unreadable log)"
	}
	s := strings.TrimSpace(string(b))
	if off > 0 {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	if s == "" {
		return "(empty)"
	}
	return s
}

// estimateCells is the remaining wall time of the cells to run, for the
// ETA.
func estimateCells(p *pipeline.Plan, cells []pipeline.Cell) time.Duration {
	batches := map[string]*pipeline.Batch{}
	for i := range p.Batches {
		batches[p.Batches[i].Name] = &p.Batches[i]
	}
	starts := map[int]bool{}
	var d time.Duration
	for _, c := range cells {
		b := batches[c.Batch]
		d += b.Windows.MaxWarmup() + b.Windows.Measure.D() + b.Sampling.IdleAfter.D()
		if !starts[c.StartSeq] {
			starts[c.StartSeq] = true
			d += b.Windows.ServiceWarmup.D()
		}
	}
	return d
}
