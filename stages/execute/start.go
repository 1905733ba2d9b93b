package execute

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"yardstick/stats"

	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
	"yardstick/stages/execute/procgroup"
)

// target is one started target variant.
type target struct {
	p       *procgroup.Process
	dir     string // starts/<name>/
	name    string
	stderr  string // path of stderr.log
	gcLog   string // path of the JVM GC log, if any
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

// runStart runs the cells of one start of one variant.
func (r *runner) runStart(ctx context.Context, b *pipeline.Batch, cells []pipeline.Cell) error {
	v := variantOf(b, cells[0].Variant)
	if v == nil {
		return r.failAll(cells, "", fmt.Errorf("plan: variant %s not in batch %s", cells[0].Variant, b.Name))
	}
	if err := r.build(ctx, "target-"+b.Name+"-"+v.Label, &v.Process); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return r.failAll(cells, "", err)
	}
	cpus, err := cpuset.Parse(b.Placement.Target)
	if err != nil {
		return r.failAll(cells, "", err)
	}

	// Extra start-only probes for the cold-start median.
	var probes []float64
	for i := 0; i < b.ColdStarts && ctx.Err() == nil; i++ {
		r.prog.note(fmt.Sprintf("%s: cold-start probe %d/%d", v.Label, i+1, b.ColdStarts))
		t, err := r.startTarget(ctx, b, v, &cells[0], cpus, -1-i)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return r.failAll(cells, "", fmt.Errorf("cold-start probe %d: %w", i+1, err))
		}
		probes = append(probes, ms(t.cold))
		r.stopTarget(t, nil)
	}

	attempt := 0
	var t *target
	defer func() {
		if t != nil {
			r.stopTarget(t, nil)
		}
	}()
	for i := 0; i < len(cells); i++ {
		if ctx.Err() != nil {
			return nil
		}
		c := cells[i]
		if t == nil {
			r.prog.note(fmt.Sprintf("start %s (%s)", v.Label, strings.Join(v.Argv, " ")))
			t, err = r.startTarget(ctx, b, v, &c, cpus, attempt)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				// The target never became ready: this cell fails; the
				// next cell of the start tries a fresh start.
				if err := r.record(failed(&c, t, err)); err != nil {
					return err
				}
				if t != nil {
					r.stopTarget(t, err)
					t = nil
				}
				attempt++
				continue
			}
			t.varies = probeVaries(ctx, b, t.variant, &c)
			if err := r.serviceWarmup(ctx, b, t, &c); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				if err := r.record(failed(&c, t, fmt.Errorf("service warm-up: %w", err))); err != nil {
					return err
				}
				r.stopTarget(t, err)
				t = nil
				attempt++
				continue
			}
		}
		cold := &pipeline.ColdStart{StartMS: ms(t.cold), ProbesMS: probes}
		cold.MedianMS = stats.Median(append([]float64{cold.StartMS}, probes...))
		t.rec.ColdStart = cold
		cp := r.runCell(ctx, b, t, &c)
		if ctx.Err() != nil && cp.Status != pipeline.StatusOK {
			// Interrupted mid-cell: leave it for the next run.
			return nil
		}
		cp.ColdStart = cold
		t.rec.Cells = append(t.rec.Cells, c.ID)
		if err := r.record(cp); err != nil {
			return err
		}
		if t.p.Exited() {
			r.stopTarget(t, fmt.Errorf("target exited during cell %s", c.Name))
			t = nil
			attempt++
		}
	}
	return nil
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
func (r *runner) startTarget(ctx context.Context, b *pipeline.Batch, v *pipeline.Variant, c *pipeline.Cell, cpus []int, attempt int) (*target, error) {
	var dir string
	if attempt < 0 {
		dir = r.rd.StartDir(c, 0) + fmt.Sprintf("-probe%d", -attempt)
	} else {
		dir = r.rd.StartDir(c, attempt)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
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
	if err := portFree(v.Port); err != nil {
		return nil, fmt.Errorf("target %s: %w", v.Label, err)
	}
	stdout, stderr, err := openLogs(dir)
	if err != nil {
		return nil, err
	}
	p, err := r.start(procgroup.Spec{Argv: argv, Env: v.Env, Dir: r.dir(v.Dir), CPUs: cpus, Stdout: stdout, Stderr: stderr})
	stdout.Close()
	stderr.Close()
	t.rec = &pipeline.StartRecord{Name: t.name, StartSeq: c.StartSeq, Variant: v.Label, Repeat: c.Repeat, Argv: argv, Env: v.Env}
	if err != nil {
		t.rec.Error = err.Error()
		_ = pipeline.WriteJSONAtomic(filepath.Join(dir, "start.json"), t.rec)
		return nil, err
	}
	t.p = p
	t.rec.PID, t.rec.Started = p.PID(), p.Started
	u, err := readyURL(v.Ready, v.Port)
	if err == nil {
		t.cold, err = waitReady(ctx, p, u, b.Windows.ReadyTimeout.D())
	}
	if err != nil {
		err = fmt.Errorf("target %s: %w; stderr: %s", v.Label, err, tail(t.stderr))
		r.stopTarget(t, err)
		return nil, err
	}
	return t, nil
}

// stopTarget stops the target's process group and writes its start record.
func (r *runner) stopTarget(t *target, cause error) {
	if t.p != nil {
		r.stop(t.p)
		t.rec.ExitStatus = t.p.ExitStatus()
	}
	t.rec.Stopped = time.Now()
	t.rec.StderrTail = tail(t.stderr)
	if cause != nil {
		t.rec.Error = cause.Error()
	}
	_ = pipeline.WriteJSONAtomic(filepath.Join(t.dir, "start.json"), t.rec)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
