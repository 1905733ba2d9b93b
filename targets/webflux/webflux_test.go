//go:build frameworks

// Package webflux_test checks targets/webflux, the sample service on
// Spring WebFlux, from outside: bin/webflux.jar (make frameworks) runs on a
// free loopback port and every answer is compared with the Go sample's
// (yardstick/targets/go/sample, in-process on loopback) for the same
// request; then the access log, the Reactor Netty event-loop threads with
// and without --workers, the blocking /api/sleep on boundedElastic threads,
// bad switches and SIGTERM. A missing jar or java fails the tests.
package webflux_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"yardstick/targets/go/sample"
	"yardstick/targets/internal/svctest"
)

// eventLoop matches the comm of Reactor Netty's event-loop threads,
// reactor-http-epoll-N (native transport) or reactor-http-nio-N, which
// Linux cuts to 15 bytes in /proc/PID/task/TID/comm.
var eventLoop = regexp.MustCompile(`^reactor-http-(ep|ni)$`)

// blocking matches the comm of Reactor's boundedElastic-N threads.
var blocking = regexp.MustCompile(`^boundedElastic-`)

func jar(t *testing.T) string {
	t.Helper()
	svctest.LookPath(t, "java", "apt-get install openjdk-17-jdk-headless (or make deps)")
	return svctest.Artifact(t, "bin/webflux.jar", "targets/webflux/build.sh", "targets/webflux/pom.xml", "targets/webflux/src",
		"targets/jvm-common/pom.xml", "targets/jvm-common/src")
}

// start runs the service with jvmArgs and args on a port of its choosing
// and waits until /ready answers.
func start(t *testing.T, jvmArgs []string, args ...string) (*svctest.Proc, string) {
	t.Helper()
	argv := append([]string{"java"}, jvmArgs...)
	argv = append(argv, "-jar", jar(t), "--port", "0")
	p := svctest.Start(t, "webflux", nil, append(argv, args...)...)
	port := p.ListenPort(t, 300*time.Second)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	ready := p.WaitReady(t, base+"/ready", 60*time.Second)
	t.Logf("exec to first 200 on /ready: %v", ready.Round(time.Millisecond))
	return p, base
}

type request struct {
	method, path string
	body         string
}

// same are requests whose status, Content-Type and body must be exactly
// the Go sample's.
var same = []request{
	{"GET", "/health", ""},
	{"GET", "/ready", ""},
	{"GET", "/api/strings/abc", ""},
	{"GET", "/api/strings/Hello%2C%20World", ""},
	{"GET", "/api/generated/0", ""},
	{"GET", "/api/generated/7", ""},
	{"GET", "/api/generated/128", ""},
	{"GET", "/api/generated/100000", ""},
	{"POST", "/api/json", sample.SampleDocument},
	{"GET", "/api/sleep/0", ""},
}

// sameStatus are bad requests: the status must be the Go sample's and the
// body {"error":"..."}; the wording may differ.
var sameStatus = []request{
	{"GET", "/api/generated/x", ""},
	{"GET", "/api/generated/-1", ""},
	{"GET", "/api/generated/1048577", ""},
	{"GET", "/api/sleep/60001", ""},
	{"GET", "/api/sleep/ms", ""},
	{"POST", "/api/json", `{"id":1`},
	{"POST", "/api/json", `{"id":1,"extra":true}`},
	{"POST", "/api/json", sample.SampleDocument + `{}`},
	{"POST", "/api/json", ""},
	{"POST", "/api/json", `{"id":-1,"name":"","email":"x","score":101,"address":{"city":""}}`},
	{"POST", "/api/json", `{"id":1,"name":"` + strings.Repeat("x", 70000) + `"}`},
}

func TestEndpoints(t *testing.T) {
	goSample := httptest.NewServer(sample.NewHandler(sample.Config{WorkFactor: 10}))
	defer goSample.Close()
	logFile := t.TempDir() + "/access.log"
	p, base := start(t, nil, "--workers", "2", "--access-log", logFile)
	if want := "(event loops 2, work factor 10, access log " + logFile + ")"; !strings.Contains(p.Output.String(), want) {
		t.Errorf("listening line without %q:\n%s", want, p.Output)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	paths := []string{"/ready"} // start's readiness request
	do := func(r request) svctest.Reply {
		paths = append(paths, strings.SplitN(r.path, "?", 2)[0])
		ct := ""
		if r.method == "POST" {
			ct = "application/json"
		}
		return svctest.Do(t, client, r.method, base+r.path, ct, []byte(r.body))
	}
	for _, r := range same {
		want := svctest.Do(t, nil, r.method, goSample.URL+r.path, "application/json", []byte(r.body))
		got := do(r)
		if got.Status != want.Status || !bytes.Equal(got.Body, want.Body) ||
			!strings.EqualFold(got.Header.Get("Content-Type"), want.Header.Get("Content-Type")) ||
			got.Header.Get("Content-Length") != want.Header.Get("Content-Length") {
			t.Errorf("%s %s: %d %q (%s, length %s)\nGo sample: %d %q (%s, length %s)", r.method, r.path,
				got.Status, got.Body, got.Header.Get("Content-Type"), got.Header.Get("Content-Length"),
				want.Status, want.Body, want.Header.Get("Content-Type"), want.Header.Get("Content-Length"))
		}
	}
	for _, r := range sameStatus {
		want := svctest.Do(t, nil, r.method, goSample.URL+r.path, "application/json", []byte(r.body))
		got := do(r)
		var e struct{ Error string }
		if got.Status != want.Status || json.Unmarshal(got.Body, &e) != nil || e.Error == "" {
			t.Errorf("%s %s: %d %q, want %d and {\"error\":...} (Go sample: %q)", r.method, r.path[:min(len(r.path), 40)],
				got.Status, got.Body, want.Status, want.Body)
		}
	}
	if r := do(request{"GET", "/hello", ""}); r.Status != 200 || string(r.Body) != "Hello, World!" ||
		r.Header.Get("Content-Length") != "13" || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("GET /hello: %d %q %v", r.Status, r.Body, r.Header)
	}
	if r := do(request{"HEAD", "/hello", ""}); r.Status != 200 || len(r.Body) != 0 || r.Header.Get("Content-Length") != "13" {
		t.Errorf("HEAD /hello: %d %q %v", r.Status, r.Body, r.Header)
	}
	if r := do(request{"GET", "/nope", ""}); r.Status != 404 {
		t.Errorf("GET /nope: %d, want 404", r.Status)
	}
	if r := do(request{"POST", "/hello", ""}); r.Status != 405 {
		t.Errorf("POST /hello: %d, want 405", r.Status)
	}

	// the blocking dependency: 50 ms on a boundedElastic thread
	t0 := time.Now()
	if r := do(request{"GET", "/api/sleep/50", ""}); r.Status != 200 || string(r.Body) != `{"slept_ms":50}` || time.Since(t0) < 50*time.Millisecond {
		t.Errorf("GET /api/sleep/50: %d %q after %v", r.Status, r.Body, time.Since(t0))
	}
	threads := svctest.Threads(t, p.Pid())
	if n := svctest.CountMatching(threads, blocking); n < 1 {
		t.Errorf("no boundedElastic thread after /api/sleep: %q", threads)
	}

	// --workers 2: two event loops once connections landed on every one
	svctest.Spread(t, base+"/hello", 8)
	paths = append(paths, slices.Repeat([]string{"/hello"}, 8)...)
	svctest.CheckThreads(t, p.Pid(), eventLoop, 2, "--workers 2")
	p.Terminate(t, 10*time.Second, 143, 0)

	// after the exit every line is in the file: the last ones were flushed
	// at shutdown. The 8 spread requests came on parallel connections, so
	// only the multiset of paths is compared; readiness probes that timed
	// out while the JVM started may have been logged too (more /ready).
	lines := svctest.WaitLines(t, logFile, 0, time.Second)
	count := map[string]int{}
	for _, p := range paths {
		count[p]++
	}
	for i, l := range lines {
		e, err := svctest.ParseSampleLine(l)
		if err != nil || e.TS == "" || e.Status == 0 || e.Bytes == nil || e.DurUS == nil {
			t.Fatalf("access log line %d %q: %v", i+1, l, err)
		}
		count[e.Path]--
		if e.Path == "/api/generated/128" {
			t.Logf("access-log line for GET /api/generated/128: %d bytes", len(l)+1)
		}
	}
	for path, n := range count {
		if n != 0 && !(path == "/ready" && n < 0) {
			t.Errorf("path %s: %d requests more than access-log lines (%d lines)", path, n, len(lines))
		}
	}
}

// TestDefaults: no --workers on 2 processors gives Reactor Netty's
// max(processors, 4) = 4 event loops, the trap of the gateway study; no
// --access-log, no log file.
func TestDefaults(t *testing.T) {
	p, base := start(t, []string{"-XX:ActiveProcessorCount=2"})
	if want := "(event loops 4, work factor 10, access log off)"; !strings.Contains(p.Output.String(), want) {
		t.Errorf("listening line without %q:\n%s", want, p.Output)
	}
	svctest.Spread(t, base+"/hello", 8)
	svctest.CheckThreads(t, p.Pid(), eventLoop, 4, "2 processors and no --workers")
}

func TestBadSwitches(t *testing.T) {
	j := jar(t)
	for _, args := range [][]string{
		{"--port", "65536"},
		{"--workers", "0"},
		{"--bogus", "1"},
		{"--port"},
	} {
		p := svctest.Start(t, "webflux", nil, append([]string{"java", "-jar", j}, args...)...)
		if code := p.Wait(t, 60*time.Second); code != 2 || !strings.Contains(p.Output.String(), "usage:") {
			t.Errorf("%q: exit %d, want 2 with the usage:\n%s", args, code, p.Output)
		}
	}
}

// TestHeartbeat: /ws/heartbeat (svctest.CheckTargetHeartbeat) with 2 event
// loops.
func TestHeartbeat(t *testing.T) {
	svctest.CheckTargetHeartbeat(t, svctest.LookPath(t, "java", "apt-get install openjdk-17-jdk-headless (or make deps)"),
		jar(t), "--workers", "2")
}
