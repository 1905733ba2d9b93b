package svctest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// DefaultJavaHome is where the framework targets' JDK 25 is looked for
// unless $JAVA25_HOME names another (the build scripts use the same rule).
const DefaultJavaHome = "/usr/lib/jvm/temurin-25-jdk-amd64"

// Java returns the java launcher of the JDK 25 the JVM framework targets
// are built with, or fails the test with how to get one.
func Java(t testing.TB) string {
	t.Helper()
	home := os.Getenv("JAVA25_HOME")
	if home == "" {
		home = DefaultJavaHome
	}
	java := filepath.Join(home, "bin", "java")
	out, err := exec.Command(java, "-version").CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte(`version "25`)) {
		t.Fatalf("no JDK 25 at %s (%v): install one there or set JAVA25_HOME; the framework targets are built and run with it\n%s",
			home, err, out)
	}
	return java
}

// Spec says how to start a JVM target.
type Spec struct {
	Java    string   // the java launcher
	JVMArgs []string // before -jar
	Jar     string
	// Port is where to wait for /ready, given to the target by Args or Env;
	// 0 means the target was given port 0 and prints "listening on
	// 127.0.0.1:PORT" (no race with another process for a free port).
	Port int
	Args []string // after the jar
	Env  []string // added to the environment
	// StopTimeout bounds the wait for the exit after SIGTERM; 0 means 15 s.
	StopTimeout time.Duration
	// ReadyTimeout bounds the wait for /ready; 0 means ReadyTimeout. Spring
	// Boot takes minutes to start on the loaded 2-core machine.
	ReadyTimeout time.Duration
}

// Target is a running JVM target: its process, where it listens, and the
// requests the test sent that reached it (each is an access-log line).
type Target struct {
	*Proc
	Base     string // http://127.0.0.1:port
	Port     int
	ReadyIn  time.Duration // from exec to the first 200 on /ready
	Requests int           // requests sent that reached the server, /ready polls included
	client   *http.Client
	stopIn   time.Duration
}

// ReadyTimeout bounds the wait for /ready: a loaded 2-core machine takes
// many seconds to start a framework.
const ReadyTimeout = 60 * time.Second

// StartJar runs java JVMArgs -jar Jar Args in its own process group and
// waits for /ready to answer 200. The process group is killed when the test
// ends, whatever happens.
func StartJar(t testing.TB, s Spec) *Target {
	t.Helper()
	argv := append([]string{s.Java}, s.JVMArgs...)
	argv = append(append(argv, "-jar", s.Jar), s.Args...)
	wait := s.ReadyTimeout
	if wait == 0 {
		wait = ReadyTimeout
	}
	p := &Target{
		Proc: Start(t, filepath.Base(s.Jar), s.Env, argv...),
		Port: s.Port,
		client: &http.Client{
			Timeout:   10 * time.Second,
			Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 16},
		},
		stopIn: s.StopTimeout,
	}
	if p.Port == 0 {
		p.Port = p.ListenPort(t, wait)
	}
	p.Base = fmt.Sprintf("http://127.0.0.1:%d", p.Port)
	if p.stopIn == 0 {
		p.stopIn = 15 * time.Second
	}
	t.Cleanup(p.client.CloseIdleConnections)
	// a poll is never given up while the JVM starts: one sent once the port
	// is bound waits in the backlog and is answered (and logged) later, so
	// abandoning it would leave an access-log line the test did not count
	ready := &http.Client{Timeout: wait, Transport: p.client.Transport}
	p.ReadyIn, p.Requests = p.poll(t, ready, p.Base+"/ready", wait)
	t.Logf("%s: exec to first 200 on /ready: %v", p.Name, p.ReadyIn.Round(time.Millisecond))
	return p
}

// Stop sends SIGTERM and waits for the exit, which must be status 143
// (128+SIGTERM, the JVM's after its shutdown hooks) or 0.
func (p *Target) Stop(t testing.TB) {
	t.Helper()
	p.client.CloseIdleConnections()
	p.Terminate(t, p.stopIn, 143, 0)
}

// Do sends one request and reads the whole answer.
func (p *Target) Do(t testing.TB, method, path, body string) Reply {
	t.Helper()
	r := Do(t, p.client, method, p.Base+path, "", []byte(body))
	p.Requests++
	return r
}

// Client is the HTTP client Do uses, for requests a test makes itself.
func (p *Target) Client() *http.Client { return p.client }

// Concurrently sends n GET path at once and returns how long the last one
// took; every answer must be 200.
func Concurrently(t testing.TB, p *Target, n int, path string) time.Duration {
	t.Helper()
	t0 := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			resp, err := p.client.Get(p.Base + path)
			if err != nil {
				errs <- err
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				errs <- fmt.Errorf("GET %s: status %d", path, resp.StatusCode)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	p.Requests += n
	return time.Since(t0)
}

// CheckHead sends HEAD path and then GET path on one raw keep-alive
// connection: the HEAD answer must be 200 without a body and, when
// wantLength is true, carry the GET body's Content-Length, as Go's server
// sends it. It returns the GET's body.
func CheckHead(t testing.TB, p *Target, path string, wantLength bool) string {
	t.Helper()
	c := DialRaw(t, p.Port)
	h, _, err := c.Do("HEAD", path)
	if err != nil {
		t.Fatalf("HEAD %s: %v", path, err)
	}
	g, body, err := c.Do("GET", path)
	if err != nil {
		t.Fatalf("GET %s after HEAD on the same connection: %v (did HEAD send a body?)", path, err)
	}
	p.Requests += 2
	if h.StatusCode != 200 || g.StatusCode != 200 {
		t.Errorf("HEAD then GET %s: %d, %d; want 200s", path, h.StatusCode, g.StatusCode)
	}
	if cl := h.Header.Get("Content-Length"); wantLength && cl != strconv.Itoa(len(body)) {
		t.Errorf("HEAD %s: Content-Length %q, want the GET body's %d", path, cl, len(body))
	}
	return string(body)
}
