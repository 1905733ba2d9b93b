package execute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sync/errgroup"

	"yardstick/loadgen"
	"yardstick/pipeline"
	"yardstick/stages/execute/cgroup"
	"yardstick/stages/execute/gclog"
	"yardstick/stages/execute/procsample"
	"yardstick/stats"
	"yardstick/stats/hdrstat"
	"yardstick/stats/steady"
)

// offsets are the sizes of the logs a window is cut from.
type offsets struct {
	at        time.Time
	stderr    int64
	gcLog     int64
	accessLog int64
	cg        *cgroup.Stat // the start's control group's counters; nil without one
	// cpu (the machine's CPU times; nil where unreadable), self (this
	// process's CPU time so far, seconds) and loadgen (the load generator
	// process's, when it was readable: loadgenOK) are read by
	// cellRun.mark only, for the others' figures.
	cpu       cpuTimes
	self      float64
	loadgen   float64
	loadgenOK bool
}

func fileSize(p string) int64 {
	if p == "" {
		return 0
	}
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

func (r *planRun) offsetsOf(t *target) offsets {
	return offsets{
		at:        time.Now(),
		stderr:    fileSize(t.stderr),
		gcLog:     fileSize(t.gcLog),
		accessLog: fileSize(r.resolvePath(t.variant.Dir, t.variant.AccessLog)),
		cg:        cgroupStat(t),
	}
}

// A cellRun is one cell measured on a started target, in phases that run
// in order: prepare (the load spec and the sampler), measure (the
// concurrent parts: the /proc sampler, the load generator's driver and its
// watchdog, under one errgroup), idle (RSS after the load), fill (the
// checkpoint's figures) and assess. A phase that fails ends the cell.
type cellRun struct {
	r  *planRun
	b  *pipeline.Batch
	t  *target
	c  *pipeline.Cell
	cp *pipeline.Checkpoint

	spec    loadgen.Spec
	re      *regexp.Regexp // event-loop thread names; nil: not counted
	fs      procsample.FS
	sampler sampler
	step    time.Duration // the load generator's reporting interval
	// The kept window is intervals [keptFrom, keptTo) on the load
	// generator's clock; keptTo is -1 for "to the end of the load". With
	// an adaptive warm-up both are -1 until the detector (or the cap at
	// interval capAt) ends the warm-up.
	keptFrom, keptTo int
	detector         *steady.Detector
	capAt            int
	// hold: a connection-holding cell (holdcell.go).
	hold bool

	// Filled by measure. onInterval writes the kept-window fields from the
	// driver's part while the load runs; they are read only after the
	// parts have ended.
	before, end offsets
	ended       bool // end was read when the kept window ended
	stopLoad    context.CancelFunc
	loadgenPID  int
	intervals   []pipeline.Interval
	kept        *offsets
	threads     int
	loops       int
	affinity    *pipeline.Affinity
	res         *loadgen.Result

	// Filled by idle.
	after   offsets
	last    procsample.Sample
	lastErr error
}

// sampler is what a cell needs of a procsample.Sampler.
type sampler interface {
	Run(ctx context.Context) error
	Samples() []procsample.Sample
}

// runCell runs one cell on a started target and returns its checkpoint.
func (r *planRun) runCell(ctx context.Context, b *pipeline.Batch, t *target, c *pipeline.Cell) *pipeline.Checkpoint {
	cr := &cellRun{r: r, b: b, t: t, c: c, loops: -1,
		cp: &pipeline.Checkpoint{CellID: c.ID, CellName: c.Name, Started: time.Now(), Start: t.name}}
	r.prog.cellStart(c)
	err := cr.prepare()
	if err == nil {
		err = cr.measure(ctx)
	}
	if err == nil {
		err = cr.idle(ctx)
	}
	switch {
	case err == nil && cr.hold:
		if err = cr.fillHold(); err == nil {
			err = cr.assessHold()
		}
	case err == nil:
		if err = cr.fill(); err == nil {
			err = cr.assess()
		}
	}
	if err != nil {
		cr.cp.Status, cr.cp.Error, cr.cp.Ended = pipeline.StatusFailed, err.Error(), time.Now()
		return cr.cp
	}
	cr.cp.Status = pipeline.StatusOK
	return cr.cp
}

// prepare builds the load spec, the thread-name pattern and the sampler.
func (c *cellRun) prepare() error {
	w := c.b.Windows
	spec, err := c.r.loadSpec(c.b, c.t.variant, c.c, w.MaxWarmup()+w.Measure.D())
	if err != nil {
		return err
	}
	c.step = c.b.Sampling.Load()
	spec.Interval = loadgen.Duration(c.step)
	c.spec = spec
	if c.t.variant.EventLoopThreads != "" {
		if c.re, err = regexp.Compile(c.t.variant.EventLoopThreads); err != nil {
			return fmt.Errorf("eventLoopThreads: %w", err)
		}
	}
	if c.fs, err = procsample.DefaultFS(); err != nil {
		return fmt.Errorf("procfs: %w", err)
	}
	length := w.MaxWarmup() + w.Measure.D()
	if h := c.c.Point.Hold; h != nil {
		length = h.Length() + holdSlack
	}
	interval := c.b.Sampling.Interval.D()
	capacity := 2
	if interval > 0 { // else the sampler refuses to run, and says why
		capacity += int(length / interval)
	}
	c.sampler = procsample.NewSampler(c.fs, c.t.p.PID(), c.re, interval, capacity)
	if c.c.Point.Hold != nil {
		c.holdWindow()
		return nil
	}
	// The kept window starts when the load generator reports the last
	// interval of warm-up and discard-head; the offsets are read then, on
	// the load generator's clock.
	c.keptFrom, c.keptTo = c.span(w.Warmup.D()+w.DiscardHead.D()), -1
	if w.WarmupAuto {
		c.keptFrom = -1
		c.capAt = c.span(w.WarmupMax.D())
		c.detector = &steady.Detector{For: max(c.span(w.SteadyFor.D()), 3), Band: c.b.Fairness.Noise}
	}
	return nil
}

// span is how many load intervals d spans, rounded.
func (c *cellRun) span(d time.Duration) int {
	return int(math.Round(float64(d) / float64(c.step)))
}

// measure runs the cell's concurrent parts under one errgroup: the
// sampler, the load generator's driver and its watchdog. The sampler stops
// when the load ends; the first part that fails cancels the others; all
// of them have ended, and the load generator is stopped, when measure
// returns.
func (c *cellRun) measure(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	sctx, stopSampling := context.WithCancel(gctx)
	defer stopSampling()
	g.Go(func() error { return c.sample(sctx) })
	c.open()
	l, err := c.startLoad(gctx)
	if err != nil {
		stopSampling()
		if werr := g.Wait(); werr != nil {
			return werr // the sampler's failure, the cause
		}
		return err
	}
	c.loadgenPID = l.pid()
	lctx, cancel := context.WithTimeout(gctx, l.limit())
	defer cancel()
	g.Go(func() error { return l.watch(lctx) })
	g.Go(func() error { return c.drive(lctx, l, stopSampling) })
	if err := g.Wait(); err != nil {
		return err
	}
	c.res = l.res
	return c.close(ctx)
}

// sample runs the sampler until ctx is done. A sample that fails is left
// out and a process group that is gone ends the sampling (the rows show
// the gaps, and assess sees the exit): neither fails the cell. A
// sampler that cannot run at all does.
func (c *cellRun) sample(ctx context.Context) error {
	if err := c.sampler.Run(ctx); errors.Is(err, procsample.ErrInterval) {
		return fmt.Errorf("sampler: %w", err)
	}
	return nil
}

// open reads the logs' offsets as the load starts; with no warm-up or
// discarded head, the kept window starts here too.
func (c *cellRun) open() {
	w := c.b.Windows
	c.before = c.mark()
	c.cp.Window = &pipeline.Window{Warmup: w.Warmup.D(), Measure: w.Measure.D(), DiscardHead: w.DiscardHead.D(),
		Interval: c.step, Auto: w.WarmupAuto, WarmupMax: w.WarmupMax.D(), LoadStart: c.before.at}
	if c.keptFrom == 0 {
		c.kept = &c.before
		c.affinity = readAffinity(c.fs, c.b, c.t.p.PID(), 0)
	}
}

// startLoad starts the load generator, unless a part has failed already.
func (c *cellRun) startLoad(ctx context.Context) (*load, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	l, err := c.r.startLoad(c.b, c.spec)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	return l, nil
}

// drive is the driver's part: it runs the load to its end (or to the end
// of an adaptive kept window), reads the logs' offsets and stops the
// sampler.
func (c *cellRun) drive(ctx context.Context, l *load, stopSampling context.CancelFunc) error {
	defer stopSampling()
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	c.stopLoad = stop
	err := l.read(lctx, c.onInterval)
	if !c.ended {
		c.end = c.mark()
	}
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	return nil
}

// onInterval records one interval of load. An adaptive warm-up ends when
// the detector sees a steady state, or at the cap. When the kept window
// starts, it reads the logs' offsets, the target's thread counts and the
// CPU masks; when an adaptive kept window ends, the offsets again, and it
// stops the load.
func (c *cellRun) onInterval(iv loadgen.Interval) {
	pi := pipeline.Interval{
		Index: iv.Index, StartUS: int64(iv.StartS * 1e6), DurationUS: int64(math.Round(iv.DurationS * 1e6)),
		Requests: iv.Requests, Errors: iv.Errors, P50US: iv.P50us, P99US: iv.P99us, MaxUS: iv.Maxus, Hist: iv.Hist,
		Bytes: iv.Bytes, Sends: iv.Sends, LateSends: iv.LateSends,
	}
	if c.hold { // a hold load's intervals are counts of connections; its steps say it all
		return
	}
	c.intervals = append(c.intervals, pi)
	done := iv.Index + 1
	if c.keptFrom < 0 {
		if steady := c.detector.Add(pi); steady || done >= c.capAt {
			c.endWarmup(done, !steady)
		}
	} else if c.detector != nil {
		c.detector.Observe(pi)
	}
	if c.keptTo >= 0 && done >= c.keptTo && !c.ended {
		c.remeasure(done)
	}
	if c.kept == nil && c.keptFrom >= 0 && done >= c.keptFrom {
		o := c.mark()
		c.kept = &o
		if s, err := procsample.Take(c.fs, c.t.p.PID(), c.re); err == nil {
			c.threads, c.loops = s.Threads, s.MatchedThreads
		}
		c.affinity = readAffinity(c.fs, c.b, c.t.p.PID(), c.loadgenPID)
	}
	if c.keptTo >= 0 && done >= c.keptTo && !c.ended {
		c.end, c.ended = c.mark(), true
		c.stopLoad()
	}
}

// remeasure starts an adaptive kept window again when the throughput of
// the one that ended at interval done rose through it by more than the
// batch's throughput margin and its own noise (Detector.Rising): the
// detector took a plateau of a warm-up for a steady state (a JVM flat
// for two seconds, then twice as fast once C2 has compiled), and the
// window holds the climb. A window that wanders or slows down is kept:
// another would measure the same, and its drift widens its interval. The load goes on: what came before is
// warm-up, and a window as long starts now. It does so while the
// warm-up stays within its cap (warmupMax), so the load never runs
// longer than warm-up cap and window; a window still unsteady then is
// kept, and its drift widens the start's interval. A window that stopped
// at the cap without a steady state is not measured again. The new
// window's start is marked at once, by the caller, as any kept window's.
func (c *cellRun) remeasure(done int) {
	if c.detector == nil || c.cp.Window.WarmupCapped || done > c.capAt {
		return
	}
	k := c.keptTo - c.keptFrom
	if !c.detector.Rising(k, c.b.Fairness.MarginOf("throughput")) {
		return
	}
	c.kept = nil
	c.keptFrom, c.keptTo = done, done+k
	c.cp.Window.Warmup = time.Duration(done) * c.step
	c.cp.Window.Remeasured++
	c.r.prog.note(fmt.Sprintf("%s: throughput rose through the window (still warming up), measured again after %s of load", c.c.Name, c.cp.Window.Warmup))
}

// endWarmup ends an adaptive warm-up after n intervals: the kept window
// is the measure window that follows, less its discarded head.
func (c *cellRun) endWarmup(n int, capped bool) {
	w := c.b.Windows
	c.keptFrom = n + c.span(w.DiscardHead.D())
	c.keptTo = n + c.span(w.Measure.D())
	c.cp.Window.Warmup = time.Duration(n) * c.step
	c.cp.Window.WarmupCapped = capped
	c.r.prog.note(fmt.Sprintf("%s: warm-up %s (%s)", c.c.Name, c.cp.Window.Warmup, map[bool]string{true: "cap reached, not steady", false: "steady"}[capped]))
}

// close ends the kept window where the load ended; an interrupted cell or
// a load that ended before the kept window fails.
func (c *cellRun) close(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.kept == nil {
		return fmt.Errorf("load ended after %d intervals of %s, before the kept window (from interval %d)", len(c.intervals), c.step, c.keptFrom)
	}
	c.cp.Window.KeptStart, c.cp.Window.KeptEnd = c.kept.at, c.end.at
	return nil
}

// idle waits the idle time after the load, then reads the logs' offsets
// and one sample, for RSS after the load.
func (c *cellRun) idle(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(c.b.Sampling.IdleAfter.D()):
	}
	c.after = c.r.offsetsOf(c.t)
	c.last, c.lastErr = procsample.Take(c.fs, c.t.p.PID(), c.re)
	return nil
}

// fill puts the cell's figures into the checkpoint: the load's kept
// window, the samples and what is derived from them, the GC and access
// logs cut to the window.
func (c *cellRun) fill() error {
	load, err := summarize(c.res, c.intervals, c.keptFrom, c.keptTo, c.spec)
	if err != nil {
		return err
	}
	cp := c.cp
	cp.Load = load
	cp.Intervals = c.intervals
	cp.Steady = c.steadyState()
	cp.Samples = toSamples(c.sampler.Samples(), c.kept.at, c.end.at)
	fillIntervals(cp.Intervals, cp.Samples, cp.Window.LoadStart)
	cp.Target = c.targetStats(load.Requests)
	cp.Varies = c.t.varies
	cp.AccessLog = c.accessLog(load.Requests)
	c.fillAround()
	return nil
}

// fillAround puts what every cell has around its load into the
// checkpoint, request or hold cell alike: the CPU masks, the GC log cut to
// the window, the control group's figures and what the runtime saw of
// them, what other work took of the CPUs, and the end time. cp.Target
// is filled before.
func (c *cellRun) fillAround() {
	cp := c.cp
	cp.Affinity = c.affinity
	loadgenMasks(cp.Affinity, c.res)
	cp.GC = c.r.gcStats(c.t, c.before, *c.kept, c.end, c.after)
	cp.Cgroup = cgroupStats(c.t, *c.kept, c.end, c.after)
	cp.ContainerView = containerView(c.t, c.end)
	cp.Others = c.othersOf(c.b.Placement.Target, c.kept.cpu, c.end.cpu, cp.Target.CPUSeconds)
	cp.LoadgenOthers = c.othersOf(c.b.Placement.Loadgen, c.kept.cpu, c.end.cpu, c.loadgenOwn())
	cp.Ended = time.Now()
}

// targetStats is the target's figures over the kept window.
func (c *cellRun) targetStats(requests int64) *pipeline.TargetStats {
	ts := targetStats(c.cp.Samples, requests, c.kept.at, c.end.at)
	ts.PID = c.t.p.PID()
	ts.Threads, ts.EventLoopThreads = c.threads, c.loops
	if c.re == nil {
		ts.EventLoopThreads = -1
	}
	if c.lastErr == nil {
		ts.RSSAfterBytes = c.last.RSSBytes
	}
	return ts
}

// accessLog is what the target wrote to its access log in the kept
// window; nil without one.
func (c *cellRun) accessLog(requests int64) *pipeline.LogStats {
	if c.t.variant.AccessLog == "" {
		return nil
	}
	n := c.end.accessLog - c.kept.accessLog
	a := &pipeline.LogStats{Path: c.t.variant.AccessLog, Bytes: n}
	if requests > 0 {
		a.BytesPerRequest = float64(n) / float64(requests)
	}
	return a
}

// assess fails a cell whose target exited or that got no response in
// its kept window.
func (c *cellRun) assess() error {
	switch l := c.cp.Load; {
	case c.t.p.Exited():
		return fmt.Errorf("target exited during the cell (%s); stderr: %s", c.t.p.ExitStatus(), c.t.stderrTail())
	case l.Requests == 0:
		return noResponse(l)
	}
	return nil
}

// noResponse is the failure of a cell whose kept window got no response.
// The error count is the kept window's; the load generator counts errors
// by kind only for its whole run, warm-up included, and the message says
// so rather than put the two side by side as one.
func noResponse(l *pipeline.Load) error {
	byKind := ""
	if len(l.ErrorsByKind) > 0 {
		byKind = "; by kind over the whole load, warm-up included: " + pipeline.Counts(l.ErrorsByKind)
	}
	return fmt.Errorf("no response in the kept window (%d errors in the kept window%s)", l.Errors, byKind)
}

// gcStats cuts the GC log (the JVM's file, or Go's gctrace lines on
// stderr) to the kept window, and counts the collections before and after
// it for reference.
func (r *planRun) gcStats(t *target, load, kept, end, after offsets) *pipeline.GCStats {
	var file string
	var parse func([]byte) gclog.Stats
	var start, from, to, upto int64
	switch t.variant.GCLog {
	case "gctrace":
		file, parse = t.stderr, gclog.ParseGo
		start, from, to, upto = load.stderr, kept.stderr, end.stderr, after.stderr
	case "file":
		file, parse = t.gcLog, gclog.ParseJVM
		start, from, to, upto = load.gcLog, kept.gcLog, end.gcLog, after.gcLog
	default:
		return nil
	}
	// Read only the bytes from the load's start to the idle's end (one
	// before, for the line-boundary check), bounded: a target may write
	// gigabytes to its stderr.
	base := max(start-1, 0)
	b, err := readRange(file, base, upto, maxGCLogWindow)
	if err != nil {
		return nil
	}
	start, from, to, upto = start-base, from-base, to-base, upto-base
	in := parse(gclog.Window(b, from, to))
	src := "jvm"
	if t.variant.GCLog == "gctrace" {
		src = "gctrace"
	}
	return &pipeline.GCStats{
		Source:       src,
		Count:        in.Count,
		PauseTotalUS: in.PauseTotal.Microseconds(),
		PauseMaxUS:   in.PauseMax.Microseconds(),
		CountBefore:  parse(gclog.Window(b, start, from)).Count,
		CountAfter:   parse(gclog.Window(b, to, upto)).Count,
	}
}

// steadyState is the changepoint analysis of the cell's load series and
// the noise of its kept window; an analysis that cannot run says why.
func (c *cellRun) steadyState() *pipeline.Steady {
	to := c.keptTo
	if to < 0 {
		to = len(c.intervals)
	}
	s, err := steady.Analyze(steady.Input{Intervals: c.intervals, KeptFrom: c.keptFrom, KeptTo: to, Band: c.b.Fairness.Noise, Seed: seedOf(c.c.ID)})
	if err != nil {
		return &pipeline.Steady{Error: err.Error(), StartUS: -1}
	}
	return &s
}

// summarize turns the load generator's intervals into the kept window's
// figures, marking which intervals are in it: the histogram of the kept
// intervals merged, requests and errors summed, throughput over the kept
// intervals' own durations.
func summarize(res *loadgen.Result, ivs []pipeline.Interval, keptFrom, keptTo int, spec loadgen.Spec) (*pipeline.Load, error) {
	h := hdrhistogram.New(1, 60_000_000, 3)
	l := &pipeline.Load{
		Mode:             res.Mode,
		Connections:      res.Connections,
		RateTarget:       res.RateTarget,
		LoadgenCPUS:      res.CPUS,
		LoadgenDurationS: res.DurationS,
		ErrorsByKind:     res.ErrorsByKind,
		StatusCounts:     res.StatusCounts,
	}
	l.LoadgenCPUs = len(spec.CPUs)
	for i := range ivs {
		iv := &ivs[i]
		iv.InWindow = iv.Index >= keptFrom && (keptTo < 0 || iv.Index < keptTo)
		if !iv.InWindow {
			continue
		}
		ih, err := hdrhistogram.Decode([]byte(iv.Hist))
		if err != nil {
			return nil, fmt.Errorf("load generator interval %d: %w", iv.Index, err)
		}
		h.Merge(ih)
		l.Requests += iv.Requests
		l.Errors += iv.Errors
		l.DurationS += float64(iv.DurationUS) / 1e6
		l.ResponseBytes += iv.Bytes
		l.Sends += iv.Sends
		l.LateSends += iv.LateSends
	}
	if l.DurationS > 0 {
		l.RPS = float64(l.Requests) / l.DurationS
	}
	// Percentiles with HdrHistogram's Java/JS rank convention (hdrstat),
	// so a reader that decodes the stored histogram gets the same values.
	d := hdrstat.NewDist(h)
	l.Latency = pipeline.LatencyUS{
		Mean: h.Mean(), P50: d.Percentile(50), P90: d.Percentile(90), P99: d.Percentile(99),
		P999: d.Percentile(99.9), P9999: d.Percentile(99.99), Max: d.Max(), Min: d.Min(),
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return nil, fmt.Errorf("encode histogram: %w", err)
	}
	l.Hist = string(enc)
	raw, err := json.Marshal(res)
	if err == nil {
		l.Raw = raw
	}
	return l, nil
}

func toSamples(ss []procsample.Sample, from, to time.Time) []pipeline.Sample {
	out := make([]pipeline.Sample, 0, len(ss))
	for _, s := range ss {
		out = append(out, pipeline.Sample{
			Time: s.Time, InWindow: !s.Time.Before(from) && !s.Time.After(to),
			RSSBytes: s.RSSBytes, CPUUserSeconds: s.CPUUserSeconds, CPUSysSeconds: s.CPUSysSeconds,
			Threads: s.Threads, MatchedThreads: s.MatchedThreads,
			VoluntaryCtxSwitches: s.VoluntaryCtxSwitches, InvoluntaryCtxSwitches: s.NonvoluntaryCtxSwitches,
			PIDs: s.PIDs,
		})
	}
	return out
}

// fillIntervals puts the last sample taken in each interval of the load
// into that interval's row: RSS, and CPU seconds used since the sample
// before. An interval without a sample is left unsampled.
func fillIntervals(ivs []pipeline.Interval, samples []pipeline.Sample, start time.Time) {
	var prevCPU float64
	if len(samples) > 0 {
		prevCPU = samples[0].CPUUserSeconds + samples[0].CPUSysSeconds
	}
	si := 0
	for i := range ivs {
		end := start.Add(time.Duration(ivs[i].StartUS+ivs[i].DurationUS) * time.Microsecond)
		var last *pipeline.Sample
		for si < len(samples) && !samples[si].Time.After(end) {
			last = &samples[si]
			si++
		}
		if last == nil {
			continue
		}
		cpu := last.CPUUserSeconds + last.CPUSysSeconds
		ivs[i].Sampled = true
		ivs[i].RSSBytes = last.RSSBytes
		ivs[i].CPUSeconds = cpu - prevCPU
		prevCPU = cpu
	}
}

// targetStats derives the target's figures from the samples: steady RSS
// is the median of those in the kept window, peak their maximum; CPU time
// is the CPU rate between the samples that bracket the window (the last
// one at or before its start, the first one at or after its end), times
// the window's length, so the sampling interval does not shorten it.
func targetStats(ss []pipeline.Sample, requests int64, keptStart, keptEnd time.Time) *pipeline.TargetStats {
	ts := &pipeline.TargetStats{}
	var rss []float64
	var before, after *pipeline.Sample
	for i := range ss {
		s := &ss[i]
		if !s.Time.After(keptStart) {
			before = s
		}
		if after == nil && !s.Time.Before(keptEnd) {
			after = s
		}
		if s.InWindow {
			rss = append(rss, float64(s.RSSBytes))
			ts.RSSPeakBytes = max(ts.RSSPeakBytes, s.RSSBytes)
		}
	}
	if len(rss) > 0 {
		ts.RSSSteadyBytes = int64(stats.Median(rss))
	}
	if before == nil && len(ss) > 0 {
		before = &ss[0]
	}
	if after == nil && len(ss) > 0 {
		after = &ss[len(ss)-1]
	}
	if before != nil && after != nil && after.Time.After(before.Time) {
		cpu := (after.CPUUserSeconds + after.CPUSysSeconds) - (before.CPUUserSeconds + before.CPUSysSeconds)
		span := after.Time.Sub(before.Time).Seconds()
		ts.CPUSeconds = cpu / span * keptEnd.Sub(keptStart).Seconds()
		if requests > 0 {
			ts.CPUPerRequestUS = ts.CPUSeconds / float64(requests) * 1e6
		}
	}
	return ts
}

// readAffinity reads back the CPU mask of every thread of the target's
// process group and of the load generator, grouped by mask.
func readAffinity(fs procsample.FS, b *pipeline.Batch, targetPGID, loadgenPID int) *pipeline.Affinity {
	a := &pipeline.Affinity{
		TargetDeclared: b.Placement.Target, LoadgenDeclared: b.Placement.Loadgen,
	}
	if pids, err := procsample.GroupPIDs(fs, targetPGID); err == nil {
		for _, pid := range pids {
			countMasks(fs, pid, &a.Target)
		}
	}
	if loadgenPID > 0 {
		countMasks(fs, loadgenPID, &a.Loadgen)
	}
	return a
}

func countMasks(fs procsample.FS, pid int, into *pipeline.ThreadMasks) {
	m, err := procsample.Affinity(fs, pid)
	if err != nil {
		return
	}
	for _, mask := range m {
		into.Add(mask, 1)
	}
}

// maxGCLogWindow bounds the GC log (or stderr) bytes read for one cell.
const maxGCLogWindow = 256 << 20

// readRange reads bytes [from, to) of file, refusing more than limit.
func readRange(file string, from, to, limit int64) ([]byte, error) {
	if to-from > limit {
		return nil, fmt.Errorf("%s: %d bytes in the window, more than %d", file, to-from, limit)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, max(to-from, 0))
	n, err := f.ReadAt(b, from)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:n], nil
}
