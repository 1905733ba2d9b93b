package execute

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
	"yardstick/stages/execute/procgroup"
)

// The test binary doubles as a target too: with fakeTargetEnv set it
// serves 200 on 127.0.0.1:$FAKE_TARGET_PORT and, by mode, "flood" writes
// to stdout as fast as it can, "setsid" first starts a `sleep` in a session
// of its own (its pid in $FAKE_TARGET_PIDFILE), "nobind" binds nothing.
const (
	fakeTargetEnv     = "EXECUTE_TEST_FAKE_TARGET"
	fakeTargetPort    = "FAKE_TARGET_PORT"
	fakeTargetPIDFile = "FAKE_TARGET_PIDFILE"
)

func fakeTarget(mode string) int {
	switch mode {
	case "nobind":
		if err := os.WriteFile(os.Getenv(fakeTargetPIDFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			return 2
		}
		time.Sleep(time.Minute)
		return 0
	case "flood":
		go func() {
			buf := []byte(strings.Repeat("x", 64<<10))
			for {
				if _, err := os.Stdout.Write(buf); err != nil {
					return
				}
			}
		}()
	case "setsid":
		cmd := exec.Command("sleep", "60")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			return 2
		}
		if err := os.WriteFile(os.Getenv(fakeTargetPIDFile), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
			return 2
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv(fakeTargetPort))
	if err != nil {
		return 2
	}
	_ = http.Serve(ln, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	return 1
}

// freePort returns a loopback port nothing listens on (for a moment).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startFake starts the fake target in mode through the planRun's own
// startTarget, as a run does, and returns the planRun, the batch and the
// progress output.
func startFake(t *testing.T, mode string, logCap int64) (*planRun, *pipeline.Batch, *pipeline.Variant, *pipeline.Cell, *strings.Builder) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rd, err := pipeline.CreateRunDir(t.TempDir(), "exp", "20261201T000000Z-0000")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r := &planRun{rd: rd, builds: map[string]error{}, prog: newProgress(&out, false, 1, 0),
		opts: Options{StopGrace: 500 * time.Millisecond, LogCap: logCap}}
	port := freePort(t)
	b := &pipeline.Batch{Name: "b", Placement: pipeline.Placement{Target: cpuset.Set{0}, Loadgen: cpuset.Set{0}},
		Windows: pipeline.Windows{ReadyTimeout: pipeline.Duration(10 * time.Second)}}
	v := &pipeline.Variant{Label: "v", Process: pipeline.Process{
		Argv:  []string{self},
		Env:   []string{fakeTargetEnv + "=" + mode, fakeTargetPort + "=" + strconv.Itoa(port), fakeTargetPIDFile + "=" + filepath.Join(t.TempDir(), "pid")},
		Port:  port,
		Ready: "/health",
	}}
	c := &pipeline.Cell{ID: "000000000001", Batch: "b", Variant: "v", Repeat: 1}
	return r, b, v, c, &out
}

func readStart(t *testing.T, r *planRun, c *pipeline.Cell) pipeline.StartRecord {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.rd.StartDir(c, 0), "start.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec pipeline.StartRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestStartLeftoverIsKilled: a child the target started with setsid
// leaves the process group, so the group's SIGKILL misses it; it is found
// by the start's mark, killed, reaped, and reported in start.json and the
// run's output.
func TestStartLeftoverIsKilled(t *testing.T) {
	if err := procgroup.EnableSubreaper(); err != nil {
		t.Fatal(err)
	}
	r, b, v, c, out := startFake(t, "setsid", 0)
	tg, err := r.startTarget(context.Background(), b, v, c, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	pidText, err := os.ReadFile(strings.TrimPrefix(v.Env[2], fakeTargetPIDFile+"="))
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(string(pidText))
	r.stopTarget(tg, nil)
	if err := syscall.Kill(child, 0); !errors.Is(err, syscall.ESRCH) {
		_ = syscall.Kill(child, syscall.SIGKILL)
		t.Fatalf("the setsid child %d outlived its start (kill -0: %v)", child, err)
	}
	rec := readStart(t, r, c)
	if len(rec.Leftovers) != 1 || rec.Leftovers[0].PID != child || !strings.HasPrefix(rec.Leftovers[0].Cmd, "sleep 60") {
		t.Errorf("start.json leftovers = %+v, want pid %d (sleep 60)", rec.Leftovers, child)
	}
	want := "target start " + tg.name + " left 1 process(es) behind: pid " + strconv.Itoa(child) + " (sleep 60); killed"
	if !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
}

// TestStartLogsAreCapped: a target that floods stdout keeps running (the
// pipe is drained), its stdout.log stops at the cap, and the bytes beyond
// are counted in start.json and warned about.
func TestStartLogsAreCapped(t *testing.T) {
	const limit = 1 << 20
	r, b, v, c, out := startFake(t, "flood", limit)
	tg, err := r.startTarget(context.Background(), b, v, c, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "stdout.log at its cap", func() bool {
		st, err := os.Stat(filepath.Join(tg.dir, "stdout.log"))
		return err == nil && st.Size() >= limit
	})
	if tg.p.Exited() {
		t.Fatalf("the flooding target exited: %s", tg.p.ExitStatus())
	}
	r.stopTarget(tg, nil)
	st, err := os.Stat(filepath.Join(tg.dir, "stdout.log"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() != limit {
		t.Errorf("stdout.log has %d bytes, want the cap %d", st.Size(), limit)
	}
	rec := readStart(t, r, c)
	if rec.StdoutDropped <= 0 || rec.StderrDropped != 0 {
		t.Errorf("dropped stdout %d, stderr %d; want stdout > 0, stderr 0", rec.StdoutDropped, rec.StderrDropped)
	}
	if !strings.Contains(out.String(), "warning: target start "+tg.name+": stdout.log stopped at its cap of 1048576 bytes") {
		t.Errorf("no warning in the output:\n%s", out.String())
	}
}

// TestStartAnsweredByAnotherProcess: a target that stays up without its
// port while another process answers there (another run's server) is not
// measured: the start fails, naming the process that holds the port.
func TestStartAnsweredByAnotherProcess(t *testing.T) {
	r, b, v, c, _ := startFake(t, "nobind", 0)
	// The other server binds after the free-port check, once the target
	// has started, as a concurrent run's target would.
	pidFile := strings.TrimPrefix(v.Env[2], fakeTargetPIDFile+"=")
	go func() {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(pidFile); err == nil || time.Now().After(deadline) {
				break
			}
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(v.Port))
		if err != nil {
			return
		}
		t.Cleanup(func() { ln.Close() })
		_ = http.Serve(ln, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	}()
	_, err := r.startTarget(context.Background(), b, v, c, nil, 0)
	if err == nil {
		t.Fatal("a start answered by another process was accepted")
	}
	want := "port " + strconv.Itoa(v.Port) + " is answered by pid " + strconv.Itoa(os.Getpid())
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "not by a process of this target start") {
		t.Errorf("error %q, want it to name pid %d", err, os.Getpid())
	}
}

// waitFor polls cond every 10 ms until it holds, and fails the test if it
// does not within d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %s", what, d)
		}
	}
}
