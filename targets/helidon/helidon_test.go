//go:build frameworks

// Package helidon_test checks the Helidon SE 4 target as `make frameworks`
// built it (bin/helidon.jar and its AOT cache bin/helidon.aot), from
// outside: every endpoint, the access-log switch, the virtual-thread
// carriers in /proc, the AOT cache in use, and SIGTERM. A missing jar,
// cache or JDK 25 fails the tests with what to do; they never skip.
package helidon_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"yardstick/targets/internal/svctest"
)

// carriers matches the virtual-thread scheduler's carrier threads,
// ForkJoinPool-1-worker-N, as /proc shows them (cut to 15 bytes).
var carriers = regexp.MustCompile(`^ForkJoinPool-1-`)

// TestHelidon runs the jar with the JIT only: every endpoint, the access
// log, the carrier threads and SIGTERM.
func TestHelidon(t *testing.T) {
	java := svctest.Java(t)
	jar := svctest.Artifact(t, "bin/helidon.jar")
	logPath := filepath.Join(t.TempDir(), "access.log")
	port := svctest.FreePort(t)
	p := svctest.StartJar(t, svctest.Spec{
		Java:    java,
		JVMArgs: []string{"-Xms64m", "-Xmx128m", "-XX:TieredStopAtLevel=1"},
		Jar:     jar,
		Port:    port,
		Args:    []string{"--port", strconv.Itoa(port), "--access-log", logPath, "--work-factor", strconv.Itoa(svctest.WorkFactor)},
	})

	sent := svctest.CheckCases(t, p, svctest.Cases())

	// HEAD: no body, the GET's Content-Length (as Go sends it)
	if body := svctest.CheckHead(t, p, "/api/generated/128", true); body != svctest.Generated128 {
		t.Errorf("GET /api/generated/128 after HEAD: %s", body)
	}
	sent = append(sent, svctest.Logged{Method: "HEAD", Path: "/api/generated/128", Status: 200, Size: len(svctest.Generated128)},
		svctest.Logged{Method: "GET", Path: "/api/generated/128", Status: 200, Size: len(svctest.Generated128)})

	// 8 blocking sleeps at once, each on its own virtual thread: together
	// they take about one sleep, not 8 (or 8/carriers)
	if d := svctest.Concurrently(t, p, 8, "/api/sleep/300"); d > 2*time.Second || d < 300*time.Millisecond {
		t.Errorf("8 concurrent /api/sleep/300 took %v, want about 300 ms (virtual threads wait in parallel)", d)
	}
	svctest.CheckThreads(t, p.Pid(), regexp.MustCompile(`^server-@default`), 1, "Helidon's one acceptor")

	p.Stop(t)
	svctest.CheckAccessLog(t, logPath, p, sent, 8)
	if !strings.Contains(p.Output.String(), "helidon listening on 127.0.0.1:"+strconv.Itoa(port)) {
		t.Errorf("no listening line:\n%s", p.Output)
	}
}

// TestHelidonAOT runs the jar with the AOT cache the build's training run
// made, with -XX:AOTMode=on (the JVM refuses to start when it cannot use
// the cache), the port from $PORT and the access log switched off by an
// empty --access-log over $ACCESS_LOG. Both tests log their start-up time.
func TestHelidonAOT(t *testing.T) {
	java := svctest.Java(t)
	jar := svctest.Artifact(t, "bin/helidon.jar")
	cache := svctest.Artifact(t, "bin/helidon.aot")
	logPath := filepath.Join(t.TempDir(), "access.log")
	classLog := filepath.Join(t.TempDir(), "classes.log")
	port := svctest.FreePort(t)
	p := svctest.StartJar(t, svctest.Spec{
		Java: java,
		// parallelism = maxPoolSize = 2: two carriers at most
		JVMArgs: []string{"-XX:AOTCache=" + cache, "-XX:AOTMode=on", "-Xlog:aot=info", "-Xlog:class+load=info:file=" + classLog,
			"-Djdk.virtualThreadScheduler.parallelism=2", "-Djdk.virtualThreadScheduler.maxPoolSize=2"},
		Jar:  jar,
		Port: port,
		Args: []string{"--access-log", ""},
		Env:  []string{"PORT=" + strconv.Itoa(port), "ACCESS_LOG=" + logPath, "WORK_FACTOR=2"},
	})
	if r := p.Do(t, "GET", "/api/generated/128", ""); r.Status != 200 || string(r.Body) != svctest.Generated128 {
		t.Errorf("GET /api/generated/128 with the AOT cache: %d %s", r.Status, r.Body)
	}
	if r := p.Do(t, "POST", "/api/json", svctest.SampleDocument); r.Status != 200 || string(r.Body) != svctest.SampleDocument {
		t.Errorf("POST /api/json with the AOT cache: %d %s", r.Status, r.Body)
	}
	// CPU-bound requests at once: the carriers run them, at most parallelism of them
	svctest.Concurrently(t, p, 8, "/api/generated/65536")
	names := svctest.Threads(t, p.Pid())
	n := svctest.CountMatching(names, carriers)
	t.Logf("carrier threads after 8 concurrent requests: %d (parallelism 2)", n)
	if n < 1 || n > 2 {
		t.Errorf("%d ForkJoinPool-1-worker threads, want 1 or 2 (jdk.virtualThreadScheduler.parallelism=2); threads %q", n, names)
	}
	p.Stop(t)
	out := p.Output.String()
	if !strings.Contains(out, "Opened AOT cache") && !strings.Contains(out, "Using AOT-linked classes: true") {
		t.Errorf("-Xlog:aot does not say the cache was opened:\n%.3000s", out)
	}
	// the application's own classes come from the cache, not the jar
	classes, err := os.ReadFile(classLog)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"yardstick.helidon.Main ", "io.helidon.webserver.WebServer ", "yardstick.sample.Work "} {
		if !strings.Contains(string(classes), c+"source: shared objects file") {
			t.Errorf("-Xlog:class+load: %sis not loaded from the AOT cache (\"source: shared objects file\")", c)
		}
	}
	svctest.CheckNoFile(t, logPath)
}

// TestHelidonBadSwitches: exit 2 and a one-line error for bad switches and
// for a port already in use.
func TestHelidonBadSwitches(t *testing.T) { svctest.CheckBadSwitches(t, "helidon.jar", "helidon") }
