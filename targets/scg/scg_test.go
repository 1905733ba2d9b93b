//go:build frameworks

// Package scg_test checks targets/scg, Spring Cloud Gateway, from outside:
// bin/scg.jar (make frameworks) runs in front of the nginx upstream
// (targets/nginx) on free loopback ports; the tests check forwarding, the
// access log, the Reactor Netty event-loop threads in /proc with and
// without reactor.netty.ioWorkerCount, the loopback-only upstream and
// SIGTERM. A missing jar, java or nginx fails them with how to get it.
package scg_test

import (
	"fmt"
	"net/http"
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

func TestGateway(t *testing.T) {
	up := svctest.Nginx(t, svctest.NginxOptions{AccessLog: t.TempDir() + "/upstream.log"})
	logFile := t.TempDir() + "/scg.log"
	p, base := start(t, up.Base, "-XX:ActiveProcessorCount=2", "-Dreactor.netty.ioWorkerCount=2",
		"-Dgateway.access-log="+logFile)
	if want := "(upstream " + up.Base + ", event loops 2, access log " + logFile + ")"; !strings.Contains(p.Output.String(), want) {
		t.Errorf("listening line without %q:\n%s", want, p.Output)
	}

	svctest.CheckGateway(t, base, up)

	svctest.CheckCaddyLog(t, logFile, base)

	// ioWorkerCount=2: two event loops once connections landed on every one
	svctest.Spread(t, base+"/hello", 8)
	svctest.CheckThreads(t, p.Pid(), eventLoop, 2, "-Dreactor.netty.ioWorkerCount=2")
	p.Terminate(t, 10*time.Second, 143, 0)
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
	svctest.CheckThreads(t, p.Pid(), eventLoop, 4, "2 processors and no ioWorkerCount")
	// no access log: no file open for writing but the JVM's own
	svctest.CheckNoLogOpen(t, p.Pid())
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
