package execute

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/procfs"

	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
	"yardstick/stages/execute/gclog"
	"yardstick/stages/execute/loadgen"
	"yardstick/stages/execute/procgroup"
	"yardstick/stages/execute/procsample"
	"yardstick/stats"
	"yardstick/stats/hdrstat"
)

// loadSpec builds the load generator's spec for cell c.
func (r *runner) loadSpec(b *pipeline.Batch, v *pipeline.Variant, c *pipeline.Cell, d time.Duration) (loadgen.Spec, error) {
	req := b.Request
	subst := func(s string) string {
		if c.Point.Payload != nil {
			s = strings.ReplaceAll(s, pipeline.PayloadPlaceholder, strconv.Itoa(*c.Point.Payload))
		}
		return s
	}
	s := loadgen.Spec{
		URL:      "http://127.0.0.1:" + strconv.Itoa(v.Port) + subst(req.Path),
		Method:   req.Method,
		Body:     subst(req.Body),
		Duration: loadgen.Duration(d),
		Timeout:  loadgen.Duration(b.Timeout.D()),
		Seed:     seedOf(c.ID),
		CPUs:     b.Placement.Loadgen,
	}
	if c.Point.Payload != nil {
		s.Payload = *c.Point.Payload
	}
	if req.Vary != nil {
		s.VaryMin, s.VaryMax = req.Vary.Min, req.Vary.Max
	}
	for _, k := range slices.Sorted(maps.Keys(req.Headers)) {
		s.Headers = append(s.Headers, k+": "+subst(req.Headers[k]))
	}
	switch c.Point.Mode {
	case "closed":
		s.Connections = c.Point.Concurrency
	default:
		s.Connections = c.Point.Connections
		s.Rate = c.Point.Rate
		if c.Point.PeakFraction > 0 {
			peak, err := r.peak(b, c)
			if err != nil {
				return s, err
			}
			s.Rate = 0
			s.RateFraction, s.PeakRPS = c.Point.PeakFraction, peak
		}
	}
	return s, nil
}

// peak is the highest throughput of a closed-loop cell of the same
// variant, repeat and payload measured earlier in this run.
func (r *runner) peak(b *pipeline.Batch, c *pipeline.Cell) (float64, error) {
	best := 0.0
	for _, o := range r.plan.Cells {
		if o.Batch != c.Batch || o.Variant != c.Variant || o.Repeat != c.Repeat || o.Point.Mode != "closed" || !samePayload(o.Point.Payload, c.Point.Payload) {
			continue
		}
		cp, err := r.rd.ReadCheckpoint(o.ID)
		if err != nil || cp.Status != pipeline.StatusOK || cp.Load == nil {
			continue
		}
		best = math.Max(best, cp.Load.RPS)
	}
	if best == 0 {
		return 0, fmt.Errorf("rate %s%% of peak: no closed-loop cell of %s r%d measured a peak in this run", strconv.FormatFloat(c.Point.PeakFraction*100, 'f', -1, 64), c.Variant, c.Repeat)
	}
	return best, nil
}

func samePayload(a, b *int) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// seedOf derives a load generator seed from a cell id, so a rerun of the
// same cell sends the same sequence of {vary} values.
func seedOf(id string) uint64 {
	n, err := strconv.ParseUint(id, 16, 64)
	if err != nil {
		return 1
	}
	return n
}

// drive runs `yardstick loadgen --stdio` pinned to the load generator's
// CPUs with spec, calling onInterval per second. A hung load generator is
// killed once ctx is done and a grace period has passed.
func (r *runner) drive(ctx context.Context, b *pipeline.Batch, spec loadgen.Spec, onStart func(pid int), onInterval func(loadgen.Interval)) (*loadgen.Result, error) {
	cpus, err := cpuset.Parse(b.Placement.Loadgen)
	if err != nil {
		return nil, err
	}
	var stdin io.WriteCloser
	var stdout io.ReadCloser
	var stderr strings.Builder
	p, err := r.start(procgroup.Spec{
		Argv:   []string{r.opts.Self, "loadgen", "--stdio", "--cpus", b.Placement.Loadgen},
		CPUs:   cpus,
		Stderr: &lockedWriter{w: &stderr},
		Setup: func(cmd *exec.Cmd) error {
			var err error
			if stdin, err = cmd.StdinPipe(); err != nil {
				return err
			}
			stdout, err = cmd.StdoutPipe()
			return err
		},
	})
	if err != nil {
		return nil, fmt.Errorf("load generator: %w", err)
	}
	defer r.stop(p)
	if onStart != nil {
		onStart(p.PID())
	}
	// The hard bound: the run's own length plus the request timeout and a
	// margin; past it, or after ctx is done and a grace period, the load
	// generator is killed and Drive returns.
	limit := time.Duration(spec.Duration) + time.Duration(spec.Timeout) + 30*time.Second
	dctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	go func() {
		select {
		case <-dctx.Done():
			select {
			case <-p.Done():
			case <-time.After(r.opts.StopGrace + time.Duration(spec.Timeout)):
				_ = p.Signal(syscall.SIGKILL)
			}
		case <-p.Done():
		}
	}()
	res, err := loadgen.Drive(dctx, stdout, stdin, spec, onInterval)
	stdin.Close()
	if err != nil {
		if s := strings.TrimSpace(stderr.String()); s != "" {
			err = fmt.Errorf("%w; load generator stderr: %s", err, lastLine(s))
		}
		return nil, err
	}
	return res, nil
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// serviceWarmup runs the first cell's workload point for the batch's
// service warm-up; nothing of it is kept.
func (r *runner) serviceWarmup(ctx context.Context, b *pipeline.Batch, t *target, c *pipeline.Cell) error {
	d := b.Windows.ServiceWarmup.D()
	if d <= 0 {
		return nil
	}
	r.prog.note(fmt.Sprintf("%s: service warm-up %s", t.variant.Label, d))
	spec, err := r.loadSpec(b, t.variant, c, d)
	if err != nil || spec.Rate > 0 || spec.RateFraction > 0 {
		// An open-loop first point may need a peak not measured yet: warm
		// up with a closed loop on the batch's connections instead.
		spec.Rate, spec.RateFraction, spec.PeakRPS = 0, 0, 0
	}
	_, err = r.drive(ctx, b, spec, nil, nil)
	if err == nil && t.p.Exited() {
		err = fmt.Errorf("target exited (%s); stderr: %s", t.p.ExitStatus(), tail(t.stderr))
	}
	return err
}

// offsets are the sizes of the logs a window is cut from.
type offsets struct {
	at        time.Time
	stderr    int64
	gcLog     int64
	accessLog int64
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

func (r *runner) offsetsOf(t *target) offsets {
	return offsets{
		at:        time.Now(),
		stderr:    fileSize(t.stderr),
		gcLog:     fileSize(t.gcLog),
		accessLog: fileSize(r.resolvePath(t.variant.Dir, t.variant.AccessLog)),
	}
}

// runCell runs one cell on a started target and returns its checkpoint.
func (r *runner) runCell(ctx context.Context, b *pipeline.Batch, t *target, c *pipeline.Cell) *pipeline.Checkpoint {
	cp := &pipeline.Checkpoint{CellID: c.ID, CellName: c.Name, Started: time.Now(), Start: t.name}
	fail := func(err error) *pipeline.Checkpoint {
		cp.Status, cp.Error, cp.Ended = pipeline.StatusFailed, err.Error(), time.Now()
		return cp
	}
	r.prog.cellStart(c)
	w := b.Windows
	spec, err := r.loadSpec(b, t.variant, c, w.Warmup.D()+w.Measure.D())
	if err != nil {
		return fail(err)
	}
	var re *regexp.Regexp
	if t.variant.EventLoopThreads != "" {
		re, err = regexp.Compile(t.variant.EventLoopThreads)
		if err != nil {
			return fail(fmt.Errorf("eventLoopThreads: %w", err))
		}
	}
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return fail(fmt.Errorf("procfs: %w", err))
	}
	capacity := int((w.Warmup.D()+w.Measure.D())/b.Sampling.Interval.D()) + 2
	sampler := procsample.NewSampler(fs, t.p.PID(), re, b.Sampling.Interval.D(), capacity)
	sctx, stopSampler := context.WithCancel(ctx)
	samplerDone := make(chan struct{})
	go func() {
		defer close(samplerDone)
		_ = sampler.Run(sctx) // a failed sample is left out; the rows show the gaps
	}()

	// The kept window starts when the load generator reports the last
	// second of warm-up and discard-head; the offsets are read then, on
	// the load generator's clock.
	keptFrom := int(math.Round((w.Warmup.D() + w.DiscardHead.D()).Seconds()))
	var (
		mu         sync.Mutex
		intervals  []loadgen.Interval
		kept       *offsets
		loops      = -1
		threads    int
		loadgenPID int
		affinity   *pipeline.Affinity
	)
	before := r.offsetsOf(t)
	cp.Window = &pipeline.Window{Warmup: w.Warmup.D(), Measure: w.Measure.D(), DiscardHead: w.DiscardHead.D(), LoadStart: before.at}
	if keptFrom == 0 {
		kept = &before
		affinity = readAffinity(fs, b, t.p.PID(), 0)
	}
	onInterval := func(iv loadgen.Interval) {
		mu.Lock()
		defer mu.Unlock()
		intervals = append(intervals, iv)
		if kept == nil && iv.Second+1 >= keptFrom {
			o := r.offsetsOf(t)
			kept = &o
			if s, err := procsample.Take(fs, t.p.PID(), re); err == nil {
				threads, loops = s.Threads, s.MatchedThreads
			}
			affinity = readAffinity(fs, b, t.p.PID(), loadgenPID)
		}
	}
	onStart := func(pid int) {
		mu.Lock()
		loadgenPID = pid
		mu.Unlock()
	}
	res, derr := r.drive(ctx, b, spec, onStart, onInterval)
	end := r.offsetsOf(t)
	stopSampler()
	<-samplerDone
	samples := sampler.Samples()
	if derr != nil {
		return fail(fmt.Errorf("load: %w", derr))
	}
	if ctx.Err() != nil {
		return fail(ctx.Err())
	}
	mu.Lock()
	defer mu.Unlock()
	if kept == nil {
		return fail(fmt.Errorf("load ended after %d s, before the kept window (from second %d)", len(intervals), keptFrom))
	}
	cp.Window.KeptStart, cp.Window.KeptEnd = kept.at, end.at

	// RSS after the load: idle, then one sample.
	var after procsample.Sample
	select {
	case <-ctx.Done():
		return fail(ctx.Err())
	case <-time.After(b.Sampling.IdleAfter.D()):
	}
	afterOff := r.offsetsOf(t)
	after, aerr := procsample.Take(fs, t.p.PID(), re)

	load, seconds, err := summarize(res, intervals, keptFrom, spec)
	if err != nil {
		return fail(err)
	}
	cp.Load = load
	cp.Seconds = seconds
	cp.Samples = toSamples(samples, kept.at, end.at)
	fillSeconds(cp.Seconds, cp.Samples, cp.Window.LoadStart)
	ts := targetStats(cp.Samples, load.Requests, kept.at, end.at)
	ts.PID = t.p.PID()
	ts.Threads, ts.EventLoopThreads = threads, loops
	if re == nil {
		ts.EventLoopThreads = -1
	}
	if aerr == nil {
		ts.RSSAfterBytes = after.RSSBytes
	}
	cp.Target = ts
	cp.Affinity = affinity
	cp.Varies = t.varies
	cp.GC = r.gcStats(t, before, *kept, end, afterOff)
	if t.variant.AccessLog != "" {
		n := end.accessLog - kept.accessLog
		cp.AccessLog = &pipeline.LogStats{Path: t.variant.AccessLog, Bytes: n}
		if load.Requests > 0 {
			cp.AccessLog.BytesPerRequest = float64(n) / float64(load.Requests)
		}
	}
	cp.Ended = time.Now()
	switch {
	case t.p.Exited():
		return fail(fmt.Errorf("target exited during the cell (%s); stderr: %s", t.p.ExitStatus(), tail(t.stderr)))
	case load.Requests == 0:
		return fail(fmt.Errorf("no response in the kept window (%d errors: %s)", load.Errors, pipeline.Counts(load.ErrorsByKind)))
	}
	cp.Status = pipeline.StatusOK
	return cp
}

// gcStats cuts the GC log (the JVM's file, or Go's gctrace lines on
// stderr) to the kept window, and counts the collections before and after
// it for reference.
func (r *runner) gcStats(t *target, load, kept, end, after offsets) *pipeline.GCStats {
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
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
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

// summarize turns the load generator's intervals into the kept window's
// figures: the histogram of the kept seconds merged, requests and errors
// summed, throughput over the kept seconds' own durations.
func summarize(res *loadgen.Result, ivs []loadgen.Interval, keptFrom int, spec loadgen.Spec) (*pipeline.Load, []pipeline.Second, error) {
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
	if set, err := cpuset.Parse(spec.CPUs); err == nil {
		l.LoadgenCPUs = len(set)
	}
	var seconds []pipeline.Second
	for _, iv := range ivs {
		in := iv.Second >= keptFrom
		seconds = append(seconds, pipeline.Second{Second: iv.Second, InWindow: in, Requests: iv.Requests, Errors: iv.Errors, P50US: iv.P50us, P99US: iv.P99us, MaxUS: iv.Maxus})
		if !in {
			continue
		}
		ih, err := hdrhistogram.Decode([]byte(iv.Hist))
		if err != nil {
			return nil, nil, fmt.Errorf("load generator interval %d: %w", iv.Second, err)
		}
		h.Merge(ih)
		l.Requests += iv.Requests
		l.Errors += iv.Errors
		l.DurationS += iv.DurationS
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
		return nil, nil, fmt.Errorf("encode histogram: %w", err)
	}
	l.Hist = string(enc)
	raw, err := json.Marshal(res)
	if err == nil {
		l.Raw = raw
	}
	return l, seconds, nil
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

// fillSeconds puts the last sample taken in each second of the load into
// that second's row: RSS, and CPU seconds used during the second.
func fillSeconds(secs []pipeline.Second, samples []pipeline.Sample, start time.Time) {
	var prevCPU float64
	if len(samples) > 0 {
		prevCPU = samples[0].CPUUserSeconds + samples[0].CPUSysSeconds
	}
	si := 0
	for i := range secs {
		end := start.Add(time.Duration(secs[i].Second+1) * time.Second)
		var last *pipeline.Sample
		for si < len(samples) && !samples[si].Time.After(end) {
			last = &samples[si]
			si++
		}
		if last == nil {
			continue
		}
		cpu := last.CPUUserSeconds + last.CPUSysSeconds
		secs[i].RSSBytes = last.RSSBytes
		secs[i].CPUSeconds = cpu - prevCPU
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
func readAffinity(fs procfs.FS, b *pipeline.Batch, targetPGID, loadgenPID int) *pipeline.Affinity {
	a := &pipeline.Affinity{
		TargetDeclared: b.Placement.Target, Target: map[string]int{},
		LoadgenDeclared: b.Placement.Loadgen, Loadgen: map[string]int{},
	}
	if pids, err := procsample.GroupPIDs(fs, targetPGID); err == nil {
		for _, pid := range pids {
			countMasks(fs, pid, a.Target)
		}
	}
	if loadgenPID > 0 {
		countMasks(fs, loadgenPID, a.Loadgen)
	}
	return a
}

func countMasks(fs procfs.FS, pid int, into map[string]int) {
	m, err := procsample.Affinity(fs, pid)
	if err != nil {
		return
	}
	for _, mask := range m {
		into[mask]++
	}
}
