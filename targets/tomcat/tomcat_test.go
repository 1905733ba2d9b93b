//go:build frameworks

// Package tomcat_test checks targets/tomcat, the sample service and the
// heartbeat WebSocket on Spring Boot's servlet stack (Spring MVC on
// embedded Tomcat), as `make frameworks` built it (bin/tomcat.jar), from
// outside: every endpoint against the samples' answers, the access log,
// the blocking /api/sleep on Tomcat's request threads, the threads in
// /proc, the defaults, bad switches, /ws/heartbeat with 2,000 connections
// held, and SIGTERM. A missing jar or java fails the tests; they never
// skip.
package tomcat_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"yardstick/targets/internal/svctest"
)

// tomcatThreads matches the comm of Tomcat's connector threads: the
// request threads http-nio-127.0.0.1-PORT-exec-N, the Poller and the
// Acceptor, which Linux cuts alike to 15 bytes.
var tomcatThreads = regexp.MustCompile(`^http-nio-127\.0\.$`)

// heartbeatThreads matches the pool that writes the pushes.
var heartbeatThreads = regexp.MustCompile(`^heartbeat-\d+$`)

// textType is the samples' text/plain; charset=utf-8 as Tomcat writes it:
// it rebuilds the Content-Type from its parts, without the space.
const textType = "text/plain;charset=utf-8"

// java is the JDK 17 launcher on PATH, which the Spring targets run on.
func java(t *testing.T) string {
	t.Helper()
	return svctest.LookPath(t, "java", "apt-get install openjdk-17-jdk-headless (or make deps)")
}

func jar(t *testing.T) string {
	t.Helper()
	return svctest.Artifact(t, "bin/tomcat.jar", "targets/tomcat/build.sh", "targets/tomcat/pom.xml", "targets/tomcat/src",
		"targets/jvm-common/pom.xml", "targets/jvm-common/src")
}

func start(t *testing.T, env []string, args ...string) *svctest.Target {
	t.Helper()
	return svctest.StartJar(t, svctest.Spec{
		Java: java(t), JVMArgs: []string{"-Xms64m", "-Xmx128m", "-XX:TieredStopAtLevel=1"}, Jar: jar(t),
		Args: append([]string{"--port", "0"}, args...), Env: env, ReadyTimeout: 5 * time.Minute,
	})
}

// cases are the samples' cases with Tomcat's spelling of the text type.
func cases() []svctest.Case {
	cs := svctest.Cases()
	for i := range cs {
		if cs[i].Type == svctest.TextType {
			cs[i].Type = textType
		}
	}
	return cs
}

// TestEndpoints (--threads 3, access log on): every endpoint, HEAD, 6
// concurrent /api/sleep/300 in two waves on the 3 request threads, the
// connector's threads, the access log, the listening line, exit 143.
func TestEndpoints(t *testing.T) {
	logPath := t.TempDir() + "/access.log"
	p := start(t, nil, "--threads", "3", "--access-log", logPath, "--work-factor", strconv.Itoa(svctest.WorkFactor))
	// 3 request threads (min spare threads 10, capped by maxThreads), the Poller and the Acceptor
	svctest.CheckThreads(t, p.Pid(), tomcatThreads, 5, "--threads 3: 3 request threads, the poller, the acceptor")

	sent := svctest.CheckCases(t, p, cases())
	if body := svctest.CheckHead(t, p, "/api/generated/128", true); body != svctest.Generated128 {
		t.Errorf("GET /api/generated/128 after HEAD: %s", body)
	}
	sent = append(sent, svctest.Logged{Method: "HEAD", Path: "/api/generated/128", Status: 200, Size: len(svctest.Generated128)},
		svctest.Logged{Method: "GET", Path: "/api/generated/128", Status: 200, Size: len(svctest.Generated128)})

	d := svctest.Concurrently(t, p, 6, "/api/sleep/300")
	t.Logf("6 concurrent /api/sleep/300 on 3 request threads: %v", d)
	if d < 600*time.Millisecond {
		t.Errorf("6 concurrent /api/sleep/300 on 3 request threads took %v, want two waves (>= 600 ms)", d)
	}
	svctest.CheckThreads(t, p.Pid(), tomcatThreads, 5, "--threads 3, after 6 concurrent sleeps")

	p.Stop(t)
	svctest.CheckAccessLog(t, logPath, p, sent, 6)
	want := "tomcat listening on 127.0.0.1:" + strconv.Itoa(p.Port) + " (threads 3, max connections 8192, accept count 100, " +
		"heartbeat threads 1, nodelay true, work factor 2)"
	if !strings.Contains(p.Output.String(), want) {
		t.Errorf("no line %q:\n%s", want, p.Output)
	}
}

// TestEnv: the port (0: a free one), request threads and work factor from the environment
// ($PORT, $THREADS, $WORK_FACTOR), the access log switched off by an empty
// --access-log over $ACCESS_LOG.
func TestEnv(t *testing.T) {
	logPath := t.TempDir() + "/access.log"
	p := svctest.StartJar(t, svctest.Spec{
		Java: java(t), JVMArgs: []string{"-Xmx128m", "-XX:TieredStopAtLevel=1"}, Jar: jar(t),
		Args:         []string{"--access-log", ""},
		Env:          []string{"PORT=0", "THREADS=4", "WORK_FACTOR=2", "ACCESS_LOG=" + logPath},
		ReadyTimeout: 5 * time.Minute,
	})
	svctest.CheckThreads(t, p.Pid(), tomcatThreads, 6, "THREADS=4: 4 request threads, the poller, the acceptor")
	if r := p.Do(t, "GET", "/api/generated/128", ""); string(r.Body) != svctest.Generated128 {
		t.Errorf("GET /api/generated/128 with WORK_FACTOR=2: %d %s", r.Status, r.Body)
	}
	p.Stop(t)
	svctest.CheckNoFile(t, logPath)
}

// TestDefaults: no switches give Tomcat's and Spring Boot's defaults,
// which the listening line states: 200 request threads (10 started), 8192
// connections, a backlog of 100, one heartbeat thread.
func TestDefaults(t *testing.T) {
	p := start(t, nil)
	want := " (threads 200, max connections 8192, accept count 100, heartbeat threads 1, nodelay true, work factor 10)"
	if !strings.Contains(p.Output.String(), want) {
		t.Errorf("listening line without %q:\n%s", want, p.Output)
	}
	// min spare threads: 10 request threads, the poller, the acceptor
	svctest.CheckThreads(t, p.Pid(), tomcatThreads, 12, "the defaults: 10 spare request threads, the poller, the acceptor")
}

// TestBadSwitches: exit 2 and a one-line error for bad switches, and for a
// port already in use.
func TestBadSwitches(t *testing.T) {
	j, java := jar(t), java(t)
	svctest.CheckBadSwitch(t, java, j, "tomcat", []string{"--threads", "0"}, []string{"--max-connections", "x"},
		[]string{"--heartbeat-threads", "0"})
	svctest.CheckPortInUse(t, java, j, "tomcat")
}

// TestHeartbeat: the heartbeat protocol (svctest.CheckHeartbeat), then
// svctest.HoldConns connections held at the default period on the
// defaults (200 request threads, 8192 connections): the held connections
// take no thread each; the pushes run on the one heartbeat thread.
func TestHeartbeat(t *testing.T) {
	p := svctest.StartJar(t, svctest.Spec{
		Java: java(t), JVMArgs: svctest.HeartbeatJVMArgs, Jar: jar(t),
		Args: []string{"--port", "0"}, ReadyTimeout: 5 * time.Minute,
	})
	svctest.CheckHeartbeat(t, p.Base, 4, 3, 200*time.Millisecond)
	h := svctest.CheckHeartbeatHold(t, p.Base, p.Pid(), svctest.HoldConns, 0)
	t.Logf("tomcat hold: %v", h)
	svctest.CheckThreads(t, p.Pid(), heartbeatThreads, 1, "--heartbeat-threads 1 (the default)")
	if grown := h.ThreadsHeld - h.ThreadsFirst; grown >= svctest.HoldConns/10 {
		t.Errorf("threads grew by %d with %d connections held: a thread per connection?", grown, svctest.HoldConns)
	}
	p.Stop(t)
}
