package execute

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"yardstick/pipeline"
	"yardstick/stages/execute/procgroup"
	"yardstick/stats"
)

// target is one started target variant.
type target struct {
	p       *procgroup.Process
	dir     string // starts/<name>/
	name    string
	stderr  string // path of stderr.log
	gcLog   string // path of the JVM GC log, if any
	logs    *targetLogs
	cold    time.Duration
	rec     *pipeline.StartRecord
	variant *pipeline.Variant
	// varies is the {vary} probe made after the start (nil without {vary}).
	varies *pipeline.VariesProbe
}

func variantOf(b *pipeline.Batch, label string) *pipeline.Variant {
	for i := range b.Variants {
		if b.Variants[i].Label == label {
			return &b.Variants[i]
		}
	}
	return nil
}

// A startRun is one start of one variant (see pipeline.Cell.StartSeq):
// its cold-start probes, then its cells in order on one target process,
// which is started again for the next cell when it fails.
type startRun struct {
	r       *planRun
	b       *pipeline.Batch
	v       *pipeline.Variant
	cpus    []int     // the target's
	probes  []float64 // cold-start probes, ms
	t       *target   // the running target; nil until (re)started
	attempt int       // starts of the target so far
}

// errInterrupted ends a start early when the run is interrupted: its cells
// without a checkpoint are left for the next run.
var errInterrupted = errors.New("interrupted")

// interrupted is errInterrupted in place of err once ctx is done: what
// failed then failed because the run was stopped.
func interrupted(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return errInterrupted
	}
	return err
}

// runStart runs the cells of one start of one variant.
func (r *planRun) runStart(ctx context.Context, b *pipeline.Batch, cells []pipeline.Cell) error {
	s, err := r.newStart(ctx, b, &cells[0])
	if errors.Is(err, errInterrupted) {
		return nil
	}
	if errors.Is(err, ErrBuildDrift) {
		return err // the run stops; its cells stay pending
	}
	if err != nil {
		return r.failAll(cells, "", err)
	}
	defer s.stop()
	for _, c := range cells {
		if ctx.Err() != nil {
			return nil
		}
		err := s.runCell(ctx, &c)
		if errors.Is(err, errInterrupted) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// newStart runs the variant's build step and its cold-start probes.
func (r *planRun) newStart(ctx context.Context, b *pipeline.Batch, first *pipeline.Cell) (*startRun, error) {
	v := variantOf(b, first.Variant)
	if v == nil {
		return nil, fmt.Errorf("plan: variant %s not in batch %s", first.Variant, b.Name)
	}
	if err := r.build(ctx, "target-"+b.Name+"-"+v.Label, b.Name, v.Label, &v.Process); err != nil {
		return nil, interrupted(ctx, err)
	}
	s := &startRun{r: r, b: b, v: v, cpus: b.Placement.Target}
	if err := s.coldProbes(ctx, first); err != nil {
		return nil, err
	}
	return s, nil
}

// coldProbes starts and stops the target b.ColdStarts extra times, for the
// cold-start median.
func (s *startRun) coldProbes(ctx context.Context, c *pipeline.Cell) error {
	for i := 0; i < s.b.ColdStarts && ctx.Err() == nil; i++ {
		s.r.prog.note(fmt.Sprintf("%s: cold-start probe %d/%d", s.v.Label, i+1, s.b.ColdStarts))
		t, err := s.r.startTarget(ctx, s.b, s.v, c, s.cpus, -1-i)
		if err != nil {
			return interrupted(ctx, fmt.Errorf("cold-start probe %d: %w", i+1, err))
		}
		s.probes = append(s.probes, ms(t.cold))
		s.r.stopTarget(t, nil)
	}
	return nil
}

// runCell runs cell c on the target, starting it first if none is running,
// and records the cell's checkpoint.
func (s *startRun) runCell(ctx context.Context, c *pipeline.Cell) error {
	if s.t == nil {
		if ok, err := s.start(ctx, c); !ok {
			return err
		}
	}
	cold := &pipeline.ColdStart{StartMS: ms(s.t.cold), ProbesMS: s.probes}
	cold.MedianMS = stats.Median(append([]float64{cold.StartMS}, s.probes...))
	s.t.rec.ColdStart = cold
	cp := s.r.runCell(ctx, s.b, s.t, c)
	if ctx.Err() != nil && cp.Status != pipeline.StatusOK {
		// Interrupted mid-cell: leave it for the next run.
		return errInterrupted
	}
	cp.ColdStart = cold
	s.t.rec.Cells = append(s.t.rec.Cells, c.ID)
	if err := s.r.record(cp); err != nil {
		return err
	}
	if s.t.p.Exited() {
		s.restart(fmt.Errorf("target exited during cell %s", c.Name))
	}
	return nil
}

// start starts the target for cell c, probes its {vary} handling and
// warms the service up. A target that never becomes ready or fails the
// warm-up fails c (ok is false, err says whether recording that failed);
// the next cell of the start tries a fresh start.
func (s *startRun) start(ctx context.Context, c *pipeline.Cell) (ok bool, err error) {
	s.r.prog.note(fmt.Sprintf("start %s (%s)", s.v.Label, strings.Join(s.v.Argv, " ")))
	t, err := s.r.startTarget(ctx, s.b, s.v, c, s.cpus, s.attempt)
	if err != nil {
		if ctx.Err() != nil {
			return false, errInterrupted
		}
		s.attempt++
		return false, s.r.record(failed(c, nil, err))
	}
	s.t = t
	t.varies = probeVaries(ctx, s.r.targetDial(s.b, 0), s.r.requestSpec(s.b, t.variant, c), s.b, t.variant.Port)
	if err := s.r.serviceWarmup(ctx, s.b, t, c); err != nil {
		if ctx.Err() != nil {
			return false, errInterrupted
		}
		if rerr := s.r.record(failed(c, t, fmt.Errorf("service warm-up: %w", err))); rerr != nil {
			return false, rerr
		}
		s.restart(err)
		return false, nil
	}
	return true, nil
}

// restart stops the target for cause; the next cell starts a fresh one.
func (s *startRun) restart(cause error) {
	s.r.stopTarget(s.t, cause)
	s.t = nil
	s.attempt++
}

// stop stops the target still running when the start ends.
func (s *startRun) stop() {
	if s.t != nil {
		s.r.stopTarget(s.t, nil)
	}
}

func failed(c *pipeline.Cell, t *target, err error) *pipeline.Checkpoint {
	now := time.Now()
	cp := &pipeline.Checkpoint{CellID: c.ID, CellName: c.Name, Status: pipeline.StatusFailed, Error: err.Error(), Started: now, Ended: now}
	if t != nil {
		cp.Start = t.name
	}
	return cp
}

// startTarget starts variant v and waits for its ready path. attempt < 0
// marks a cold-start probe.
func (r *planRun) startTarget(ctx context.Context, b *pipeline.Batch, v *pipeline.Variant, c *pipeline.Cell, cpus []int, attempt int) (*target, error) {
	var dir string
	if attempt < 0 {
		dir = r.rd.StartDir(c, 0) + fmt.Sprintf("-probe%d", -attempt)
	} else {
		dir = r.rd.StartDir(c, attempt)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := pipeline.KeepStartRecord(dir); err != nil {
		return nil, err
	}
	t := &target{dir: dir, name: filepath.Base(dir), stderr: filepath.Join(dir, "stderr.log"), variant: v}
	argv := slices.Clone(v.Argv)
	if v.GCLog == "file" {
		t.gcLog = filepath.Join(dir, "gc.log")
		for i, a := range argv {
			argv[i] = strings.ReplaceAll(a, pipeline.GCLogPlaceholder, t.gcLog)
		}
	}
	if err := portFree(r.targetDial(b, portProbeTimeout), v.Port); err != nil {
		return nil, fmt.Errorf("target %s: %w", v.Label, err)
	}
	logs, err := r.openLogs(dir)
	if err != nil {
		return nil, err
	}
	t.logs = logs
	p, err := r.start(procgroup.Spec{Argv: r.targetHost(b).Wrap(argv), Env: v.Env, Dir: r.dir(v.Dir), CPUs: cpus, Stdout: logs.stdout.child, Stderr: logs.stderr.child, Cgroup: cgroupFor(v)})
	logs.started()
	t.rec = &pipeline.StartRecord{Name: t.name, StartSeq: c.StartSeq, Variant: v.Label, Repeat: c.Repeat, Argv: argv, Env: v.Env, Hosts: r.startHosts(b)}
	if err != nil {
		logs.close(0)
		t.rec.Error = err.Error()
		_ = pipeline.WriteJSONAtomic(filepath.Join(dir, "start.json"), t.rec)
		return nil, err
	}
	t.p = p
	t.rec.PID, t.rec.Started = p.PID(), p.Started
	u, err := readyURL(v.Ready, v.Port)
	if err == nil {
		t.cold, err = waitReady(ctx, r.targetDial(b, readyDialTimeout), p, u, b.Windows.ReadyTimeout.D())
	}
	if err == nil && !b.Placement.TwoHost() {
		// On another host, /proc here does not see the target's sockets.
		err = awaitListener(ctx, p, v.Port)
	}
	if err != nil {
		err = fmt.Errorf("target %s: %w; stderr: %s", v.Label, err, t.stderrTail())
		r.stopTarget(t, err)
		return nil, err
	}
	return t, nil
}

// stopTarget stops the target's process group and writes its start record.
func (r *planRun) stopTarget(t *target, cause error) {
	if t.p != nil {
		rep := r.stop(t.p)
		t.rec.ExitStatus = t.p.ExitStatus()
		r.noteLeftovers(t, rep.Leftovers)
	}
	if t.logs != nil {
		t.rec.StdoutDropped, t.rec.StderrDropped = t.logs.close(logDrainWait)
		for i, n := range []int64{t.rec.StdoutDropped, t.rec.StderrDropped} {
			if n > 0 {
				r.prog.note(fmt.Sprintf("warning: target start %s: %s stopped at its cap of %d bytes; %d bytes more were read and discarded", t.name, []string{"stdout.log", "stderr.log"}[i], r.logCap(), n))
			}
		}
	}
	t.rec.Stopped = time.Now()
	t.rec.StderrTail = t.stderrTail()
	if cause != nil {
		t.rec.Error = cause.Error()
	}
	_ = pipeline.WriteJSONAtomic(filepath.Join(t.dir, "start.json"), t.rec)
}

// noteLeftovers records the processes a start left behind, killed, in its
// start record and says so in the run's output.
func (r *planRun) noteLeftovers(t *target, left []procgroup.Member) {
	if len(left) == 0 {
		return
	}
	var what []string
	for _, m := range left {
		t.rec.Leftovers = append(t.rec.Leftovers, pipeline.LeftoverProcess{PID: m.PID, Cmd: m.Cmd})
		what = append(what, fmt.Sprintf("pid %d (%s)", m.PID, m.Cmd))
	}
	r.prog.note(fmt.Sprintf("target start %s left %d process(es) behind: %s; killed", t.name, len(left), strings.Join(what, ", ")))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
