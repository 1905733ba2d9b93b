package execute

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"yardstick/loadgen"
	"yardstick/pipeline"
	"yardstick/stages/execute/procgroup"
)

// requestSpec is the request part of cell c's load generator spec: the
// batch's template as the plan holds it, placeholders and all, with the
// cell's payload and {vary} range. The load generator renders it
// (loadgen.RenderRequest): for the measured window, and for the {vary}
// probe, which so sends one of the requests the window sends.
func (r *planRun) requestSpec(b *pipeline.Batch, v *pipeline.Variant, c *pipeline.Cell) loadgen.Spec {
	req := b.Request
	base, allow := r.targetURL(b, v.Port)
	s := loadgen.Spec{URL: base + req.Path, Allow: allow, Method: req.Method, Body: req.Body, Seed: seedOf(c.ID)}
	if c.Point.Payload != nil {
		s.Payload = *c.Point.Payload
	}
	if req.Vary != nil {
		s.VaryMin, s.VaryMax = req.Vary.Min, req.Vary.Max
	}
	for _, k := range slices.Sorted(maps.Keys(req.Headers)) {
		s.Headers = append(s.Headers, k+": "+req.Headers[k])
	}
	return s
}

// loadSpec builds the load generator's spec for cell c.
func (r *planRun) loadSpec(b *pipeline.Batch, v *pipeline.Variant, c *pipeline.Cell, d time.Duration) (loadgen.Spec, error) {
	s := r.requestSpec(b, v, c)
	s.Duration = loadgen.Duration(d)
	s.Timeout = loadgen.Duration(b.Timeout.D())
	s.CPUs = b.Placement.Loadgen
	switch c.Point.Mode {
	case "hold":
		return holdSpec(s, c.Point.Hold), nil
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
func (r *planRun) peak(b *pipeline.Batch, c *pipeline.Cell) (float64, error) {
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

// load is one run of `yardstick loadgen --stdio`, pinned to the load
// generator's CPUs. It has two concurrent parts, [load.read] and
// [load.watch], that the caller runs under one errgroup (with its own
// parts beside them, if any); both have ended when the group has.
type load struct {
	r      *planRun
	p      *procgroup.Process
	spec   loadgen.Spec
	stdin  io.WriteCloser
	stdout io.ReadCloser
	child  []*os.File // the child's pipe ends, closed once it has started
	stderr syncBuffer
	res    *loadgen.Result // set by read when the run ends with a result
	remote bool            // on another node (srun): l.p is srun, not the load generator
}

// pid is the load generator's PID as this machine sees it (for its CPU
// mask), or 0 when it runs on another node.
func (l *load) pid() int {
	if l.remote {
		return 0
	}
	return l.p.PID()
}

// startLoad starts the load generator for spec; nothing is sent to it yet.
func (r *planRun) startLoad(b *pipeline.Batch, spec loadgen.Spec) (*load, error) {
	h := r.loadgenHost(b)
	l := &load{r: r, spec: spec, remote: h.Kind == "srun"}
	p, err := r.start(procgroup.Spec{
		Argv:   h.Wrap([]string{r.opts.Self, "loadgen", "--stdio", "--cpus", b.Placement.Loadgen.String()}),
		CPUs:   b.Placement.Loadgen,
		Stderr: &l.stderr,
		Setup:  l.pipes,
	})
	l.closeChildEnds(err == nil)
	if err != nil {
		return nil, fmt.Errorf("load generator: %w", err)
	}
	l.p = p
	return l, nil
}

// pipes connects the load generator's stdin and stdout through pipes of
// our own, not exec's StdinPipe and StdoutPipe: procgroup waits for the
// process as soon as it starts, and Wait closes exec's pipes when the
// process exits, which could lose the result line not yet read ("read
// |0: file already closed", seen about once in 100 runs under load).
// The child's ends are closed here once it has started (closeChildEnds).
func (l *load) pipes(cmd *exec.Cmd) error {
	inR, inW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("load generator stdin: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return fmt.Errorf("load generator stdout: %w", err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	l.stdin, l.stdout = inW, outR
	l.child = []*os.File{inR, outW}
	return nil
}

// closeChildEnds closes the pipe ends the child holds its own copies of,
// so that our read of its stdout sees EOF when it exits; and, when the
// start failed, our own ends too.
func (l *load) closeChildEnds(started bool) {
	for _, f := range l.child {
		f.Close()
	}
	l.child = nil
	if !started {
		if l.stdin != nil {
			l.stdin.Close()
		}
		if l.stdout != nil {
			l.stdout.Close()
		}
	}
}

// limit is the hard bound of a run: its own length plus the request
// timeout and a margin. Past it the run is stopped as if cancelled.
func (l *load) limit() time.Duration {
	return time.Duration(l.spec.Duration) + time.Duration(l.spec.Timeout) + 30*time.Second
}

// read sends the spec, reads the intervals (calling onInterval for each)
// until the result, and stops the load generator. Cancelling ctx sends a
// stop and still waits for the result of what was measured.
func (l *load) read(ctx context.Context, onInterval func(loadgen.Interval)) error {
	defer l.r.stop(l.p)
	defer l.stdout.Close()
	var stdout io.Reader = l.stdout
	if f, ok := l.stdout.(*os.File); ok {
		stdout = newRawPipe(f)
	}
	res, err := loadgen.Drive(ctx, stdout, l.stdin, l.spec, onInterval)
	l.stdin.Close()
	if err != nil {
		if s := strings.TrimSpace(l.stderr.String()); s != "" {
			err = fmt.Errorf("%w; load generator stderr: %s", err, lastLine(s))
		}
		return err
	}
	l.res = res
	return nil
}

// watch kills a hung load generator: once ctx is done, it gets a grace
// period (plus the request timeout) to end before SIGKILL. watch returns
// when the process has ended or been killed.
func (l *load) watch(ctx context.Context) error {
	select {
	case <-ctx.Done():
		select {
		case <-l.p.Done():
		case <-time.After(l.r.opts.StopGrace + time.Duration(l.spec.Timeout)):
			_ = l.p.Signal(syscall.SIGKILL)
		}
	case <-l.p.Done():
	}
	return nil
}

// drive runs the load generator through spec on its own and returns its
// result: read and watch under one errgroup, bounded by the run's limit.
func (r *planRun) drive(ctx context.Context, b *pipeline.Batch, spec loadgen.Spec) (*loadgen.Result, error) {
	l, err := r.startLoad(b, spec)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, l.limit())
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return l.watch(gctx) })
	g.Go(func() error { return l.read(gctx, nil) })
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return l.res, nil
}

// syncBuffer collects a process's stderr, written by exec's copying
// goroutine and read by the driver.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// serviceWarmup runs the first cell's workload point for the batch's
// service warm-up; nothing of it is kept.
func (r *planRun) serviceWarmup(ctx context.Context, b *pipeline.Batch, t *target, c *pipeline.Cell) error {
	d := b.Windows.ServiceWarmup.D()
	if d <= 0 {
		return nil
	}
	r.prog.note(fmt.Sprintf("%s: service warm-up %s", t.variant.Label, d))
	spec, err := r.loadSpec(b, t.variant, c, d)
	if spec.Hold != nil {
		spec = warmupHold(spec, d)
	} else if err != nil || spec.Rate > 0 || spec.RateFraction > 0 {
		// An open-loop first point may need a peak not measured yet: warm
		// up with a closed loop on the batch's connections instead.
		spec.Rate, spec.RateFraction, spec.PeakRPS = 0, 0, 0
	}
	_, err = r.drive(ctx, b, spec)
	if err == nil && t.p.Exited() {
		err = fmt.Errorf("target exited (%s); stderr: %s", t.p.ExitStatus(), t.stderrTail())
	}
	return err
}
