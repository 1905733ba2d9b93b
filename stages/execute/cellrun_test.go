package execute

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"yardstick/loadgen"
	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
	"yardstick/stages/execute/procgroup"
	"yardstick/stages/execute/procsample"
)

// The test binary doubles as a scripted load generator: the executor starts
// it as `self loadgen --stdio ...`, and with fakeLoadgenEnv set it speaks
// the driver protocol instead of running the tests.
const (
	fakeLoadgenEnv     = "EXECUTE_TEST_FAKE_LOADGEN"
	fakeLoadgenPIDFile = "EXECUTE_TEST_FAKE_LOADGEN_PIDFILE"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeLoadgenEnv); mode != "" {
		os.Exit(fakeLoadgen(mode, os.Stdin, os.Stdout))
	}
	if mode := os.Getenv(fakeTargetEnv); mode != "" {
		os.Exit(fakeTarget(mode))
	}
	os.Exit(m.Run())
}

// fakeLoadgen writes its PID to the file named by fakeLoadgenPIDFile, says
// hello, reads the start and then, by mode: "fail" sends two intervals and
// an error; "hang" ignores SIGTERM and stop messages and sends an interval
// every 100 ms until it is killed (at most a minute).
func fakeLoadgen(mode string, in io.Reader, out io.Writer) int {
	if mode == "hang" {
		signal.Ignore(syscall.SIGTERM)
	}
	if err := os.WriteFile(os.Getenv(fakeLoadgenPIDFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	enc := json.NewEncoder(out) // one message per line
	send := func(m loadgen.Message) { _ = enc.Encode(m) }
	send(loadgen.Message{Type: "hello", Version: loadgen.ProtocolVersion, PID: os.Getpid()})
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if !sc.Scan() {
		return 2
	}
	switch mode {
	case "fail":
		for i := range 2 {
			send(loadgen.Message{Type: "interval", Interval: &loadgen.Interval{Index: i, StartS: float64(i), DurationS: 1}})
			time.Sleep(50 * time.Millisecond)
		}
		send(loadgen.Message{Type: "error", Error: "boom"})
	case "hang":
		for i := range 600 {
			send(loadgen.Message{Type: "interval", Interval: &loadgen.Interval{Index: i, StartS: float64(i), DurationS: 1}})
			time.Sleep(100 * time.Millisecond)
		}
	}
	return 1
}

// cellFixture is a planRun whose load generator is the fake, and a target
// (sleep) to sample, for a cell with a minute of measure window.
type cellFixture struct {
	r       *planRun
	b       *pipeline.Batch
	t       *target
	c       *pipeline.Cell
	pidFile string
}

func newCellFixture(t *testing.T, mode string) *cellFixture {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f := &cellFixture{pidFile: filepath.Join(dir, "loadgen.pid")}
	t.Setenv(fakeLoadgenEnv, mode)
	t.Setenv(fakeLoadgenPIDFile, f.pidFile)
	f.r = &planRun{
		opts: Options{Self: self, StopGrace: 200 * time.Millisecond},
		prog: newProgress(io.Discard, false, 1, 0),
	}
	f.b = &pipeline.Batch{
		Name:      "b",
		Windows:   pipeline.Windows{Measure: pipeline.Duration(time.Minute)},
		Placement: pipeline.Placement{Target: cpuset.Set{0}, Loadgen: cpuset.Set{0}},
		Sampling:  pipeline.Sampling{Interval: pipeline.Duration(20 * time.Millisecond)},
		Request:   pipeline.Request{Method: "GET", Path: "/"},
		Timeout:   pipeline.Duration(100 * time.Millisecond),
	}
	v := &pipeline.Variant{Label: "v", Process: pipeline.Process{Port: 1}}
	f.c = &pipeline.Cell{ID: "00000001", Name: "cell", Point: pipeline.Point{Mode: "closed", Concurrency: 1}}
	p, err := f.r.start(procgroup.Spec{Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.r.stop(p) })
	f.t = &target{p: p, dir: dir, name: "s0", stderr: filepath.Join(dir, "stderr.log"), variant: v}
	return f
}

// loadgenGone checks that the fake load generator ran and has been reaped.
func (f *cellFixture) loadgenGone(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(f.pidFile)
	if err != nil {
		t.Fatalf("the fake load generator did not run: %v", err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("load generator %d outlived the cell (kill -0: %v)", pid, err)
	}
}

// noLeak waits briefly for the goroutine count to fall back to baseline:
// a goroutine may still be returning (a process waiter after its wait).
func noLeak(t *testing.T, baseline int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > baseline {
		if time.Now().After(deadline) {
			var sb strings.Builder
			_ = pprof.Lookup("goroutine").WriteTo(&sb, 1)
			t.Fatalf("%d goroutines after the cell, %d before:\n%s", runtime.NumGoroutine(), baseline, sb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A load generator that fails ends the cell at once: the sampler stops,
// the load generator is reaped and no goroutine of the cell is left.
func TestCellLoadFailureStopsTheOtherParts(t *testing.T) {
	f := newCellFixture(t, "fail")
	baseline := runtime.NumGoroutine()
	cr := &cellRun{r: f.r, b: f.b, t: f.t, c: f.c, loops: -1, cp: &pipeline.Checkpoint{CellID: f.c.ID}}
	if err := cr.prepare(); err != nil {
		t.Fatal(err)
	}
	watched := &watchedSampler{sampler: cr.sampler, done: make(chan struct{})}
	cr.sampler = watched
	start := time.Now()
	err := cr.measure(context.Background())
	took := time.Since(start)
	if err == nil || err.Error() != "load: load generator: boom" {
		t.Fatalf("measure: %v, want the load generator's error", err)
	}
	if took > 10*time.Second {
		t.Errorf("measure took %v after the load generator failed", took)
	}
	select {
	case <-watched.done:
	default:
		t.Error("the sampler was still running when measure returned")
	}
	if len(cr.sampler.Samples()) == 0 {
		t.Error("the sampler took no sample")
	}
	f.loadgenGone(t)
	noLeak(t, baseline)
}

// watchedSampler closes done when the sampler's Run returns.
type watchedSampler struct {
	sampler
	done chan struct{}
}

func (s *watchedSampler) Run(ctx context.Context) error {
	defer close(s.done)
	return s.sampler.Run(ctx)
}

// runCell turns the failure into the cell's failed checkpoint.
func TestRunCellRecordsTheFailure(t *testing.T) {
	f := newCellFixture(t, "fail")
	cp := f.r.runCell(context.Background(), f.b, f.t, f.c)
	if cp.Status != pipeline.StatusFailed || cp.Error != "load: load generator: boom" || cp.Start != "s0" {
		t.Errorf("checkpoint: status %q, error %q, start %q", cp.Status, cp.Error, cp.Start)
	}
	if cp.Window == nil || cp.Window.LoadStart.IsZero() || cp.Ended.Before(cp.Started) {
		t.Errorf("checkpoint window %+v, started %v, ended %v", cp.Window, cp.Started, cp.Ended)
	}
	f.loadgenGone(t)
}

// failingSampler fails once the load generator has started (its PID file
// exists), as a sampler that cannot go on would.
type failingSampler struct{ pidFile string }

func (s failingSampler) Run(ctx context.Context) error {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if _, err := os.Stat(s.pidFile); err == nil {
			time.Sleep(200 * time.Millisecond) // into the load
			return fmt.Errorf("%w: the fake sampler fails", procsample.ErrInterval)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(10 * time.Millisecond):
		}
	}
	return errors.New("the load generator never started")
}

func (failingSampler) Samples() []procsample.Sample { return nil }

// A sampler that fails cancels the load: a load generator that ignores
// both the stop message and SIGTERM is killed after the grace period, the
// cell fails with the sampler's error (the first), and nothing outlives it.
func TestCellSamplerFailureStopsTheLoad(t *testing.T) {
	f := newCellFixture(t, "hang")
	baseline := runtime.NumGoroutine()
	cr := &cellRun{r: f.r, b: f.b, t: f.t, c: f.c, loops: -1, cp: &pipeline.Checkpoint{CellID: f.c.ID}}
	if err := cr.prepare(); err != nil {
		t.Fatal(err)
	}
	cr.sampler = failingSampler{pidFile: f.pidFile}
	start := time.Now()
	err := cr.measure(context.Background())
	took := time.Since(start)
	if !errors.Is(err, procsample.ErrInterval) || !strings.HasPrefix(err.Error(), "sampler: ") {
		t.Fatalf("measure: %v, want the sampler's error", err)
	}
	// The grace period is StopGrace plus the request timeout: 0.3 s.
	if took > 10*time.Second {
		t.Errorf("measure took %v after the sampler failed", took)
	}
	f.loadgenGone(t)
	noLeak(t, baseline)
}

// A sampling interval that is not positive fails the cell with a clear
// error instead of dividing by zero.
func TestCellZeroSamplingInterval(t *testing.T) {
	f := newCellFixture(t, "hang")
	f.b.Sampling.Interval = 0
	baseline := runtime.NumGoroutine()
	cp := f.r.runCell(context.Background(), f.b, f.t, f.c)
	if cp.Status != pipeline.StatusFailed || cp.Error != "sampler: procsample: sampling interval 0s, want > 0" {
		t.Errorf("checkpoint: status %q, error %q", cp.Status, cp.Error)
	}
	if _, err := os.Stat(f.pidFile); err == nil {
		f.loadgenGone(t)
	}
	noLeak(t, baseline)
}
