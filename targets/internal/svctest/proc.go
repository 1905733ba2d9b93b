package svctest

import (
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Proc is a started process.
type Proc struct {
	Name    string
	Cmd     *exec.Cmd
	Output  *Buffer // stdout and stderr together
	Started time.Time

	done    chan struct{} // closed once Wait returned
	waitErr error
}

// Start runs argv in its own process group with env added to the
// environment and returns at once. When the test ends the whole group is
// killed (SIGKILL) and waited for, whatever state it is in.
func Start(t testing.TB, name string, env []string, argv ...string) *Proc {
	t.Helper()
	p := &Proc{Name: name, Output: &Buffer{}, done: make(chan struct{})}
	p.Cmd = exec.Command(argv[0], argv[1:]...)
	p.Cmd.Env = append(os.Environ(), env...)
	p.Cmd.Stdout = p.Output
	p.Cmd.Stderr = p.Output
	p.Cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.Started = time.Now()
	if err := p.Cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { p.waitErr = p.Cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	})
	return p
}

// Pid is the process id.
func (p *Proc) Pid() int { return p.Cmd.Process.Pid }

// Exited reports whether the process has exited.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Wait waits at most d for the process to exit and returns its exit code;
// it fails the test when the process is still running then.
func (p *Proc) Wait(t testing.TB, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		t.Fatalf("%s still running after %v\n%s", p.Name, d, p.Output)
	}
	if p.waitErr == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ee.ExitCode()
	}
	t.Fatalf("%s: %v", p.Name, p.waitErr)
	return -1
}

// Stop sends SIGTERM and returns the exit code and how long the exit took;
// it fails the test when the process has not exited within d.
func (p *Proc) Stop(t testing.TB, d time.Duration) (int, time.Duration) {
	t.Helper()
	t0 := time.Now()
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM to %s: %v", p.Name, err)
	}
	code := p.Wait(t, d)
	return code, time.Since(t0)
}

// Terminate is Stop that also checks the exit code, which must be one of
// codes (a JVM exits 143, 128+SIGTERM, after its shutdown hooks), and logs
// how long the exit took.
func (p *Proc) Terminate(t testing.TB, d time.Duration, codes ...int) {
	t.Helper()
	code, took := p.Stop(t, d)
	if !slices.Contains(codes, code) {
		t.Errorf("%s: exit status after SIGTERM: %d, want one of %v\n%s", p.Name, code, codes, p.Output)
	}
	t.Logf("%s: SIGTERM to exit: %v", p.Name, took.Round(time.Millisecond))
}

var listeningRe = regexp.MustCompile(`listening on 127\.0\.0\.1:(\d+)`)

// ListenPort waits at most d for the process to print "listening on
// 127.0.0.1:PORT" and returns PORT.
func (p *Proc) ListenPort(t testing.TB, d time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if m := listeningRe.FindStringSubmatch(p.Output.String()); m != nil {
			port, _ := strconv.Atoi(m[1])
			return port
		}
		if p.Exited() {
			t.Fatalf("%s exited before it listened:\n%s", p.Name, p.Output)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not say where it listens within %v:\n%s", p.Name, d, p.Output)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitReady polls url with GET every 10 ms until it answers 200 and returns
// the time from the start of the process; it fails the test when the
// process exits first or d passes.
func (p *Proc) WaitReady(t testing.TB, url string, d time.Duration) time.Duration {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Second}
	defer client.CloseIdleConnections()
	ready, _ := p.poll(t, client, url, d)
	return ready
}

// poll is WaitReady with client; it also returns how many of the polls
// the server answered (each is a request it may have logged).
func (p *Proc) poll(t testing.TB, client *http.Client, url string, d time.Duration) (time.Duration, int) {
	t.Helper()
	deadline := time.Now().Add(d)
	answered := 0
	for {
		if p.Exited() {
			t.Fatalf("%s exited before %s answered 200:\n%s", p.Name, url, p.Output)
		}
		resp, err := client.Get(url)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			answered++
			if resp.StatusCode == http.StatusOK {
				return time.Since(p.Started), answered
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s not 200 within %v (last: %v):\n%s", p.Name, url, d, err, p.Output)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
