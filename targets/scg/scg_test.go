//go:build frameworks

// Package scg_test checks targets/scg, Spring Cloud Gateway, from outside:
// bin/scg.jar (make frameworks) runs in front of the nginx upstream
// (targets/nginx) on free loopback ports; the tests check forwarding, the
// access log, the Reactor Netty event-loop threads in /proc with and
// without reactor.netty.ioWorkerCount, the loopback-only upstream and
// SIGTERM. A missing jar, java or nginx fails them with how to get it.
package scg_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"yardstick/targets/internal/svctest"
)

// eventLoop matches the comm of Reactor Netty's event-loop threads, shared
// by the gateway's server and its client to the upstream: they are named
// reactor-http-epoll-N with the native transport (Linux), reactor-http-nio-N
// without it, and Linux keeps the first 15 bytes of a thread's name in
// /proc/PID/task/TID/comm: "reactor-http-ep" or "reactor-http-ni".
var eventLoop = regexp.MustCompile(`^reactor-http-(ep|ni)$`)

func jar(t *testing.T) string {
	t.Helper()
	svctest.LookPath(t, "java", "apt-get install openjdk-17-jdk-headless (or make deps)")
	return svctest.Artifact(t, "bin/scg.jar", "targets/scg/build.sh", "targets/scg/pom.xml", "targets/scg/src")
}

// start runs the gateway with jvmArgs in front of upstream on a port of its
// choosing and waits until /ready answers through it (one request, forwarded).
func start(t *testing.T, upstream string, jvmArgs ...string) (*svctest.Proc, string) {
	t.Helper()
	argv := append([]string{"java"}, jvmArgs...)
	argv = append(argv, "-jar", jar(t), "--server.port=0")
	p := svctest.Start(t, "scg", []string{"UPSTREAM=" + upstream}, argv...)
	port := p.ListenPort(t, 300*time.Second)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	ready := p.WaitReady(t, base+"/ready", 60*time.Second)
	t.Logf("exec to first 200 on /ready through the gateway: %v", ready.Round(time.Millisecond))
	return p, base
}

// isReady tells an access-log line of a readiness request.
func isReady(line string) bool { return strings.Contains(line, `"uri":"/ready"`) }

func TestGateway(t *testing.T) {
	up := svctest.Nginx(t, svctest.NginxOptions{AccessLog: t.TempDir() + "/upstream.log"})
	logFile := t.TempDir() + "/scg.log"
	p, base := start(t, up.Base, "-XX:ActiveProcessorCount=2", "-Dreactor.netty.ioWorkerCount=2",
		"-Dgateway.access-log="+logFile)
	if want := "(upstream " + up.Base + ", event loops 2, access log " + logFile + ")"; !strings.Contains(p.Output.String(), want) {
		t.Errorf("listening line without %q:\n%s", want, p.Output)
	}

	svctest.CheckGateway(t, base, up)

	// one line per request, in order (one connection, one at a time):
	// start's readiness requests, then CheckGateway's
	paths := svctest.GatewayPaths
	lines := svctest.WaitRequests(t, logFile, len(paths), isReady, 5*time.Second)
	if len(lines) != len(paths) {
		t.Fatalf("access log has %d lines for %d requests", len(lines), len(paths))
	}
	for i, l := range lines {
		var e struct {
			Level   string  `json:"level"`
			TS      float64 `json:"ts"`
			Msg     string  `json:"msg"`
			Request struct {
				RemoteIP string              `json:"remote_ip"`
				Method   string              `json:"method"`
				Host     string              `json:"host"`
				URI      string              `json:"uri"`
				Headers  map[string][]string `json:"headers"`
			} `json:"request"`
			Duration    float64             `json:"duration"`
			Size        int                 `json:"size"`
			Status      int                 `json:"status"`
			RespHeaders map[string][]string `json:"resp_headers"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("access log line %d %q: %v", i+1, l, err)
		}
		wantStatus, wantSize := 200, -1
		switch paths[i] {
		case "/nope":
			wantStatus = 404
		case "/api/generated/128":
			wantSize = 128
		case "/api/generated/1048576":
			wantSize = 1 << 20
		}
		if e.Level != "info" || e.Msg != "handled request" || e.TS < 1e9 || e.Request.RemoteIP != "127.0.0.1" ||
			e.Request.Method != "GET" || e.Request.URI != paths[i] || e.Request.Host != strings.TrimPrefix(base, "http://") ||
			len(e.Request.Headers["User-Agent"]) != 1 || e.Status != wantStatus || (wantSize >= 0 && e.Size != wantSize) ||
			e.Duration <= 0 || len(e.RespHeaders["Content-Length"]) != 1 {
			t.Errorf("access log line %d, want GET %s %d: %s", i+1, paths[i], wantStatus, l)
		}
		if paths[i] == "/api/generated/128" {
			t.Logf("access-log line for GET /api/generated/128: %d bytes", len(l)+1)
		}
	}

	// ioWorkerCount=2: two event loops once connections landed on every one
	svctest.Spread(t, base+"/hello", 8)
	threads := svctest.Threads(t, p.Pid())
	if n := svctest.CountMatching(threads, eventLoop); n != 2 {
		t.Errorf("%d threads named %s with -Dreactor.netty.ioWorkerCount=2, want 2: %q", n, eventLoop, threads)
	}

	code, took := p.Stop(t, 10*time.Second)
	if code != 143 && code != 0 {
		t.Errorf("exit status after SIGTERM: %d, want 143 (or 0)\n%s", code, p.Output)
	}
	t.Logf("SIGTERM to exit: %v", took.Round(time.Millisecond))
}

// TestEventLoopDefault shows the trap the gateway study found: on 2
// processors Reactor Netty still starts max(processors, 4) = 4 event loops
// unless reactor.netty.ioWorkerCount says otherwise. The access log is off.
func TestEventLoopDefault(t *testing.T) {
	up := svctest.Nginx(t, svctest.NginxOptions{})
	p, base := start(t, up.Base, "-XX:ActiveProcessorCount=2")
	if want := "event loops 4, access log off)"; !strings.Contains(p.Output.String(), want) {
		t.Errorf("listening line without %q:\n%s", want, p.Output)
	}
	svctest.Spread(t, base+"/hello", 8)
	threads := svctest.Threads(t, p.Pid())
	if n := svctest.CountMatching(threads, eventLoop); n != 4 {
		t.Errorf("%d threads named %s with 2 processors and no ioWorkerCount, want 4: %q", n, eventLoop, threads)
	}
	// no access log: no file open for writing but the JVM's own
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", p.Pid()))
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", p.Pid(), fd.Name()))
		if err == nil && strings.HasSuffix(target, ".log") {
			t.Errorf("fd %s open on %s with the access log off", fd.Name(), target)
		}
	}
	if r := svctest.Get(t, nil, base+"/hello"); r.Status != http.StatusOK || string(r.Body) != "Hello, World!" {
		t.Errorf("GET /hello: %d %q", r.Status, r.Body)
	}
}

// TestUpstreamLoopbackOnly: an upstream off the machine is refused at
// start-up (nothing is sent to it: the address is a literal, never looked
// up or contacted).
func TestUpstreamLoopbackOnly(t *testing.T) {
	p := svctest.Start(t, "scg", []string{"UPSTREAM=http://192.0.2.1:80"},
		"java", "-jar", jar(t), "--server.port=0")
	code := p.Wait(t, 120*time.Second)
	if code == 0 || !strings.Contains(p.Output.String(), "upstream http://192.0.2.1:80: 192.0.2.1 is not a loopback address") {
		t.Errorf("exit %d, want non-zero with the reason:\n%s", code, p.Output)
	}
}
