package svctest

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// EventLoopTarget is a JVM framework target on Vert.x's event loops that
// runs the blocking /api/sleep on a worker pool (targets/vertx,
// targets/quarkus), with the switches --event-loops and --workers.
type EventLoopTarget struct {
	Prog    string // its name: bin/Prog.jar, and what its listening line and errors start with
	Workers string // a regular expression for the comm of its worker-pool threads
	// HeadLength says whether HEAD carries the GET's Content-Length (and
	// the access log counts the body HEAD does not send).
	HeadLength bool
}

// vertxEventLoops matches Vert.x's event-loop threads,
// vert.x-eventloop-thread-N, cut to 15 bytes in /proc.
var vertxEventLoops = regexp.MustCompile(`^vert\.x-eventloo`)

// RunEventLoopTarget runs the checks of an event-loop target as subtests:
// endpoints (CheckEventLoopTarget), env (CheckEventLoopEnv),
// bad-switches (CheckBadSwitches) and heartbeat (CheckTargetHeartbeat,
// with --event-loops 2).
func RunEventLoopTarget(t *testing.T, e EventLoopTarget) {
	t.Run("endpoints", func(t *testing.T) { CheckEventLoopTarget(t, e) })
	t.Run("env", func(t *testing.T) { CheckEventLoopEnv(t, e) })
	t.Run("bad-switches", func(t *testing.T) { CheckBadSwitches(t, e.Prog+".jar", e.Prog) })
	t.Run("heartbeat", func(t *testing.T) {
		CheckTargetHeartbeat(t, Java(t), Artifact(t, "bin/"+e.Prog+".jar"), "--event-loops", "2")
	})
}

// jvmArgs keep a framework's JVM small and quick to start on 2 cores.
var jvmArgs = []string{"-Xms64m", "-Xmx128m", "-XX:TieredStopAtLevel=1"}

// CheckEventLoopTarget starts the target with --event-loops 2, --workers 3
// and the access log on, and checks: both event loops before any load;
// every endpoint (CheckCases, CheckHead); 6 concurrent sleeps of 300 ms in
// two waves on the 3 workers while /health still answers at once; the
// thread counts after the load; the SIGTERM exit; every request in the
// access log; the listening line.
func CheckEventLoopTarget(t *testing.T, e EventLoopTarget) {
	logPath := t.TempDir() + "/access.log"
	port := FreePort(t)
	p := StartJar(t, Spec{
		Java: Java(t), JVMArgs: jvmArgs, Jar: Artifact(t, "bin/"+e.Prog+".jar"), Port: port,
		Args: []string{"--port", strconv.Itoa(port), "--access-log", logPath, "--work-factor", strconv.Itoa(WorkFactor),
			"--event-loops", "2", "--workers", "3"},
	})
	// one server (verticle) per event loop: both loops run before any load
	CheckThreads(t, p.Pid(), vertxEventLoops, 2, "--event-loops 2, before any load")

	sent := CheckCases(t, p, Cases())
	if body := CheckHead(t, p, "/api/generated/128", e.HeadLength); body != Generated128 {
		t.Errorf("GET /api/generated/128 after HEAD: %s", body)
	}
	headSize := 0
	if e.HeadLength {
		headSize = len(Generated128)
	}
	sent = append(sent, Logged{Method: "HEAD", Path: "/api/generated/128", Status: 200, Size: headSize},
		Logged{Method: "GET", Path: "/api/generated/128", Status: 200, Size: len(Generated128)})

	checkSleepWaves(t, p)
	CheckThreads(t, p.Pid(), regexp.MustCompile(e.Workers), 3, "--workers 3, after 6 concurrent sleeps")
	CheckThreads(t, p.Pid(), vertxEventLoops, 2, "--event-loops 2, after the load")

	p.Stop(t)
	CheckAccessLog(t, logPath, p, sent, 7)
	if !strings.Contains(p.Output.String(), e.Prog+" listening on 127.0.0.1:"+strconv.Itoa(port)) {
		t.Errorf("no listening line:\n%s", p.Output)
	}
}

// checkSleepWaves sends 6 sleeps of 300 ms to a target with 3 workers:
// two waves, so at least 600 ms, and the event loops stay free meanwhile
// (a /health sent during the waves answers at once). Seven requests.
func checkSleepWaves(t *testing.T, p *Target) {
	t.Helper()
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
	d := Concurrently(t, p, 6, "/api/sleep/300")
	p.Requests++ // the /health above
	hd := <-healthDone
	t.Logf("6 concurrent /api/sleep/300 on 3 workers: %v; /health meanwhile: %v", d, hd)
	if d < 600*time.Millisecond {
		t.Errorf("6 concurrent /api/sleep/300 on 3 workers took %v, want two waves (>= 600 ms)", d)
	}
	if hd > 250*time.Millisecond {
		t.Errorf("/health took %v while the workers slept: the event loop is blocked", hd)
	}
}

// CheckEventLoopEnv starts the target from the environment ($PORT,
// $EVENT_LOOPS, $WORK_FACTOR) with the access log switched off by an empty
// --access-log over $ACCESS_LOG: 3 event loops, the work factor in the
// answer, no log file.
func CheckEventLoopEnv(t *testing.T, e EventLoopTarget) {
	logPath := t.TempDir() + "/access.log"
	port := FreePort(t)
	p := StartJar(t, Spec{
		Java: Java(t), JVMArgs: jvmArgs, Jar: Artifact(t, "bin/"+e.Prog+".jar"), Port: port,
		Args: []string{"--access-log", ""},
		Env:  []string{"PORT=" + strconv.Itoa(port), "EVENT_LOOPS=3", "WORK_FACTOR=2", "ACCESS_LOG=" + logPath},
	})
	CheckThreads(t, p.Pid(), vertxEventLoops, 3, "EVENT_LOOPS=3")
	if r := p.Do(t, "GET", "/api/generated/128", ""); string(r.Body) != Generated128 {
		t.Errorf("GET /api/generated/128 with WORK_FACTOR=2: %d %s", r.Status, r.Body)
	}
	p.Stop(t)
	CheckNoFile(t, logPath)
}
