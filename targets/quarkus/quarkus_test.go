//go:build frameworks

// Package quarkus_test checks the Quarkus 3 target as `make frameworks`
// built it (bin/quarkus.jar), from outside: every endpoint, the access-log
// switch, the event-loop and worker threads in /proc, the @Blocking
// /api/sleep on the worker pool and SIGTERM. A missing jar or JDK 25 fails
// the tests with what to do; they never skip.
package quarkus_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"yardstick/targets/jvm-common/targettest"
)

var (
	eventLoops = regexp.MustCompile(`^vert\.x-eventloo`) // vert.x-eventloop-thread-N cut to 15 bytes
	workers    = regexp.MustCompile(`^executor-thread`)  // executor-thread-N, Quarkus's worker pool
)

func TestQuarkus(t *testing.T) {
	java := targettest.Java(t)
	jar := targettest.Artifact(t, "quarkus.jar")
	logPath := filepath.Join(t.TempDir(), "access.log")
	port := targettest.FreePort(t)
	p := targettest.Start(t, targettest.Spec{
		Java:    java,
		JVMArgs: []string{"-Xms64m", "-Xmx128m", "-XX:TieredStopAtLevel=1"},
		Jar:     jar,
		Port:    port,
		Args: []string{"--port", strconv.Itoa(port), "--access-log", logPath, "--work-factor", strconv.Itoa(targettest.WorkFactor),
			"--event-loops", "2", "--workers", "3"},
	})
	pid := p.Cmd.Process.Pid

	// one HTTP server instance per event loop (io-threads): both loops run before any load
	if n, names := targettest.Threads(t, pid, eventLoops); n != 2 {
		t.Errorf("%d vert.x-eventloop threads, want 2 (--event-loops 2); threads %q", n, names)
	}

	sent := targettest.CheckCases(t, p, targettest.Cases())
	// HEAD: Quarkus REST answers it from the GET method, without the body
	// and without Content-Length (Go sends the GET's length), logged as 0 bytes
	if body := targettest.CheckHead(t, p, "/api/generated/128", false); body != targettest.Generated128 {
		t.Errorf("GET /api/generated/128 after HEAD: %s", body)
	}
	sent = append(sent, targettest.Logged{Method: "HEAD", Path: "/api/generated/128", Status: 200, Size: 0},
		targettest.Logged{Method: "GET", Path: "/api/generated/128", Status: 200, Size: len(targettest.Generated128)})

	// 6 sleeps of 300 ms on 3 workers: two waves, so at least 600 ms, and
	// the event loops stay free meanwhile (/health answers at once)
	healthDone := make(chan time.Duration, 1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		t0 := time.Now()
		r, err := p.Client().Get(p.Base + "/health")
		if err == nil {
			r.Body.Close()
		}
		healthDone <- time.Since(t0)
	}()
	d := targettest.Concurrently(t, p, 6, "/api/sleep/300")
	p.Requests++ // the /health above
	hd := <-healthDone
	t.Logf("6 concurrent /api/sleep/300 on 3 workers: %v; /health meanwhile: %v", d, hd)
	if d < 600*time.Millisecond {
		t.Errorf("6 concurrent /api/sleep/300 on 3 workers took %v, want two waves (>= 600 ms)", d)
	}
	if hd > 250*time.Millisecond {
		t.Errorf("/health took %v while the workers slept: the event loop is blocked", hd)
	}
	if n, names := targettest.Threads(t, pid, workers); n != 3 {
		t.Errorf("%d executor-thread threads after 6 concurrent sleeps, want 3 (--workers 3); threads %q", n, names)
	}
	if n, _ := targettest.Threads(t, pid, eventLoops); n != 2 {
		t.Errorf("%d vert.x-eventloop threads after load, want 2", n)
	}

	p.Stop(t)
	targettest.CheckAccessLog(t, logPath, p, sent, 7)
	if !strings.Contains(p.Output.String(), "quarkus listening on 127.0.0.1:"+strconv.Itoa(port)) {
		t.Errorf("no listening line:\n%s", p.Output)
	}
}

// TestQuarkusEnv starts it from the environment ($PORT, $EVENT_LOOPS,
// $WORK_FACTOR) with the access log switched off by an empty --access-log
// over $ACCESS_LOG.
func TestQuarkusEnv(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "access.log")
	port := targettest.FreePort(t)
	p := targettest.Start(t, targettest.Spec{
		Java:    targettest.Java(t),
		JVMArgs: []string{"-Xms64m", "-Xmx128m", "-XX:TieredStopAtLevel=1"},
		Jar:     targettest.Artifact(t, "quarkus.jar"),
		Port:    port,
		Args:    []string{"--access-log", ""},
		Env:     []string{"PORT=" + strconv.Itoa(port), "EVENT_LOOPS=3", "WORK_FACTOR=2", "ACCESS_LOG=" + logPath},
	})
	if n, names := targettest.Threads(t, p.Cmd.Process.Pid, eventLoops); n != 3 {
		t.Errorf("%d vert.x-eventloop threads, want 3 (EVENT_LOOPS=3); threads %q", n, names)
	}
	if r := p.Do(t, "GET", "/api/generated/128", ""); r.Body != targettest.Generated128 {
		t.Errorf("GET /api/generated/128 with WORK_FACTOR=2: %d %s", r.Status, r.Body)
	}
	p.Stop(t)
	if _, err := os.Stat(logPath); !os.IsNotExist(err) {
		t.Errorf("--access-log \"\" over ACCESS_LOG=%s: the file exists (%v), want the log off", logPath, err)
	}
}

// TestQuarkusBadSwitches: exit 2 and a one-line error for bad switches and
// for a port already in use.
func TestQuarkusBadSwitches(t *testing.T) {
	java, jar := targettest.Java(t), targettest.Artifact(t, "quarkus.jar")
	targettest.CheckBadSwitch(t, java, jar, "quarkus")
	targettest.CheckPortInUse(t, java, jar, "quarkus")
}
