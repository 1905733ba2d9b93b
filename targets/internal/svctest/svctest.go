// Package svctest is the one test harness of the targets: it starts and
// checks their real processes (the JVM sample, the JVM framework targets,
// nginx, the Go gateway, Spring Cloud Gateway, Spring WebFlux) from their Go
// tests: artifacts that must have been built, processes in their own
// process group that are killed whatever happens, readiness on loopback,
// every endpoint against the samples' answers, the access logs, event-loop
// and worker threads from /proc and SIGTERM stops. A missing artifact or
// tool fails the test with how to get it; nothing is skipped.
package svctest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// RepoRoot returns the repository root: the nearest directory above the
// working directory with a go.mod declaring module yardstick.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(b, []byte("module yardstick\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("svctest: no go.mod of module yardstick above the working directory")
		}
		dir = parent
	}
}

// Artifact returns the absolute path of the built artifact rel (e.g.
// "bin/scg.jar") and fails the test, saying to run make frameworks, when
// it is missing or older than any file of its sources (files or
// directories relative to the repository root): a stale artifact would
// test other code than the tree's.
func Artifact(t testing.TB, rel string, sources ...string) string {
	t.Helper()
	path, err := checkArtifact(RepoRoot(t), rel, sources...)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// checkArtifact is Artifact's check under root.
func checkArtifact(root, rel string, sources ...string) (string, error) {
	path := filepath.Join(root, rel)
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%s not found: run make frameworks (%w)", rel, err)
	}
	for _, src := range sources {
		err := filepath.WalkDir(filepath.Join(root, src), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			if info.ModTime().After(fi.ModTime()) {
				r, _ := filepath.Rel(root, p)
				return fmt.Errorf("%s is older than %s: run make frameworks", rel, r)
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	return path, nil
}

// LookPath fails the test with hint when tool is not on PATH.
func LookPath(t testing.TB, tool, hint string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		t.Fatalf("%s not found on PATH: %s", tool, hint)
	}
	return p
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Buffer is a bytes.Buffer safe for one writer and concurrent readers.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

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

// Threads returns the names (comm) of the process's threads, from
// /proc/PID/task/*/comm.
func Threads(t testing.TB, pid int) []string {
	t.Helper()
	dirs, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/comm", pid))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("threads of %d: %v (no /proc/%d/task)", pid, err, pid)
	}
	var names []string
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue // the thread ended meanwhile
		}
		names = append(names, strings.TrimSpace(string(b)))
	}
	return names
}

// CheckNoLogOpen fails the test when the process has a file ending in .log
// open (from /proc/PID/fd): a target whose access log is off.
func CheckNoLogOpen(t testing.TB, pid int) {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasSuffix(target, ".log") {
			t.Errorf("fd %s open on %s with the access log off", fd.Name(), target)
		}
	}
}

// CountMatching returns how many of names match re.
func CountMatching(names []string, re *regexp.Regexp) int {
	n := 0
	for _, s := range names {
		if re.MatchString(s) {
			n++
		}
	}
	return n
}

// CheckThreads fails the test unless exactly want of the process's
// threads have a name (comm) that matches re; why says what set the count.
func CheckThreads(t testing.TB, pid int, re *regexp.Regexp, want int, why string) {
	t.Helper()
	names := Threads(t, pid)
	if n := CountMatching(names, re); n != want {
		slices.Sort(names)
		t.Errorf("%d threads named %s, want %d (%s): %q", n, re, want, why, names)
	}
}

// Reply is an HTTP answer read whole.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends one request with a 10 s time-out and reads the whole answer.
func Do(t testing.TB, client *http.Client, method, url, contentType string, body []byte) Reply {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
		defer client.CloseIdleConnections()
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	return Reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Get is Do with GET and no body.
func Get(t testing.TB, client *http.Client, url string) Reply {
	t.Helper()
	return Do(t, client, http.MethodGet, url, "", nil)
}

// Spread sends one GET to url on each of n new connections, all open at
// once, so that a server handing connections round-robin to its event
// loops (Reactor Netty, nginx with reuseport) puts work on every loop.
// Each answer must be 200.
func Spread(t testing.TB, url string, n int) {
	t.Helper()
	clients := make([]*http.Client, n)
	for i := range clients {
		clients[i] = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
	}
	defer func() {
		for _, c := range clients {
			c.CloseIdleConnections()
		}
	}()
	for _, c := range clients { // connections stay open: idle in each transport
		if r := Get(t, c, url); r.Status != http.StatusOK {
			t.Fatalf("GET %s: status %d", url, r.Status)
		}
	}
}

// WaitLines waits at most d for file to hold at least n lines and returns
// its lines.
func WaitLines(t testing.TB, file string, n int, d time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		b, err := os.ReadFile(file)
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if len(b) == 0 {
			lines = nil
		}
		if err == nil && len(lines) >= n {
			return lines
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d lines after %v, want %d (%v)", file, len(lines), d, n, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitRequests waits at most d for file to hold n lines after the leading
// ones that readiness probes left (those for which isReady is true: the
// probe's 200, and probes that timed out while the server was starting but
// were answered later), and returns those n or more lines. It fails the
// test when no readiness line leads the file.
func WaitRequests(t testing.TB, file string, n int, isReady func(line string) bool, d time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		lines := WaitLines(t, file, 0, d)
		k := 0
		for k < len(lines) && isReady(lines[k]) {
			k++
		}
		if k > 0 && len(lines)-k >= n {
			return lines[k:]
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d lines, want readiness lines then %d: %q", file, len(lines), n, lines)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
