//go:build integration

// Package java_test builds the JVM sample target (targets/java) with its
// build.sh and checks the running service from outside: every endpoint,
// the access log, the worker threads in /proc, TCP_NODELAY, switches and
// SIGTERM. A JDK 17 is a requirement of the project (.ci/deps installs it),
// so a missing java or javac fails the tests; it never skips them. They
// need the JDK, not Go alone, so they carry the build tag integration and
// run in make test-integration.
package java_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"yardstick/targets/internal/svctest"
)

// jar is the sample built once by TestMain.
var jar string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	flag.Parse()
	for _, tool := range []string{"java", "javac", "jar"} {
		if _, err := exec.LookPath(tool); err != nil {
			fmt.Fprintf(os.Stderr, "targets/java: %s not found on PATH: these tests need a JDK 17 "+
				"(Debian: apt-get install openjdk-17-jdk-headless, or run .ci/deps demo)\n", tool)
			return 1
		}
	}
	dir, err := os.MkdirTemp("", "sample-jvm-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	jar = filepath.Join(dir, "sample-jvm.jar")
	start := time.Now()
	out, err := exec.Command("./build.sh", jar).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "targets/java: build.sh failed: %v\n%s", err, out)
		return 1
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "targets/java: built %s in %v\n", jar, time.Since(start).Round(time.Millisecond))
	}
	return m.Run()
}

// start runs java jvmArgs -jar sample-jvm.jar args on port (given to it by
// args or env) and waits for /ready (svctest.StartJar): the process group is
// killed when the test ends, whatever happens, and it must exit within 5 s
// of SIGTERM.
func start(t *testing.T, port int, jvmArgs, args, env []string) *svctest.Target {
	t.Helper()
	return svctest.StartJar(t, svctest.Spec{Java: "java", JVMArgs: jvmArgs, Jar: jar, Port: port, Args: args, Env: env,
		StopTimeout: 5 * time.Second})
}

// workerRE matches the worker threads, sample-worker-1..N.
var workerRE = regexp.MustCompile(`^sample-worker-`)

func TestIntegrationEndpoints(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "access.log")
	port := svctest.FreePort(t)
	p := start(t, port, []string{"-Xms64m", "-Xmx64m", "-Dsample.workers=2"},
		[]string{"--port", strconv.Itoa(port), "--access-log", logPath, "--work-factor", strconv.Itoa(svctest.WorkFactor)}, nil)

	// The workers are named for eventLoopThreads: "^sample-worker-" in the
	// experiments, and there are exactly sample.workers of them.
	svctest.CheckThreads(t, p.Pid(), workerRE, 2, "-Dsample.workers=2")

	// every JVM target's cases, and an empty body (Go's decoder says EOF)
	cases := append(svctest.Cases(), svctest.Case{Method: "POST", Path: "/api/json", Status: 400,
		Type: svctest.JSONType, Want: `{"error":"bad JSON document: EOF"}`})
	sent := svctest.CheckCases(t, p, cases)
	// HEAD: no body, but the length of the GET's body (as Go sends it), logged as sent
	if body := svctest.CheckHead(t, p, "/api/generated/128", true); body != svctest.Generated128 {
		t.Errorf("GET /api/generated/128 after HEAD: %s", body)
	}
	sent = append(sent, svctest.Logged{Method: "HEAD", Path: "/api/generated/128", Status: 200, Size: len(svctest.Generated128)},
		svctest.Logged{Method: "GET", Path: "/api/generated/128", Status: 200, Size: len(svctest.Generated128)})

	p.Stop(t)
	// one JSON line per request, the Go sample's fields in its order
	svctest.CheckAccessLog(t, logPath, p, sent, 0)
	if !strings.Contains(p.Output.String(), "sample-jvm listening on 127.0.0.1:"+strconv.Itoa(port)) {
		t.Errorf("no listening line on stderr:\n%s", p.Output)
	}
}

// medianLatency sends n requests for path over one keep-alive connection
// and returns the median time to the complete response.
func medianLatency(t *testing.T, port, n int, path string) time.Duration {
	t.Helper()
	c := svctest.DialRaw(t, port)
	var d []time.Duration
	for range n {
		t0 := time.Now()
		if _, _, err := c.Do("GET", path); err != nil {
			t.Fatal(err)
		}
		d = append(d, time.Since(t0))
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// TestIntegrationNoDelayAndDefaults starts the service from the
// environment ($PORT, $WORK_FACTOR), with --nodelay false and no sample.workers, and checks
// that: the worker count follows -XX:ActiveProcessorCount; the work factor
// comes from $WORK_FACTOR; and without TCP_NODELAY the JDK's server shows
// the Nagle + delayed-ACK floor (~40 ms per keep-alive request, because it
// writes the headers and the body in two writes) that --nodelay true (the
// default, checked in the same way) removes.
func TestIntegrationNoDelayAndDefaults(t *testing.T) {
	port := svctest.FreePort(t)
	p := start(t, port, []string{"-Xms64m", "-Xmx64m", "-XX:ActiveProcessorCount=3"}, []string{"--nodelay", "false"},
		[]string{"PORT=" + strconv.Itoa(port), "WORK_FACTOR=3"})
	svctest.CheckThreads(t, p.Pid(), workerRE, 3, "-XX:ActiveProcessorCount=3")
	if r := p.Do(t, "GET", "/api/generated/0", ""); string(r.Body) != `{"length":0,"work_factor":3,"crc32":0,"checksum":0}` {
		t.Errorf("WORK_FACTOR=3: got %s", r.Body)
	}
	slow := medianLatency(t, port, 7, "/api/generated/128")
	p.Stop(t)

	port2 := svctest.FreePort(t)
	q := start(t, port2, []string{"-Xms64m", "-Xmx64m", "-Dsample.workers=1"}, []string{"--port", strconv.Itoa(port2)}, nil)
	fast := medianLatency(t, port2, 7, "/api/generated/128")
	q.Stop(t)

	t.Logf("median keep-alive latency: --nodelay false %v, default (true) %v", slow, fast)
	if slow < 30*time.Millisecond {
		t.Errorf("--nodelay false: median %v, expected the ~40 ms Nagle/delayed-ACK floor", slow)
	}
	if fast >= 20*time.Millisecond {
		t.Errorf("--nodelay true: median %v, expected well under the 40 ms floor", fast)
	}
}

// TestIntegrationBadSwitches: exit 2 and a one-line error for the switches every JVM
// target refuses, the sample's own, and a port already in use.
func TestIntegrationBadSwitches(t *testing.T) {
	svctest.CheckBadSwitch(t, "java", jar, "sample-jvm",
		[]string{"--nodelay=maybe"}, []string{"--fault-log-pad", "-1"}, []string{"--fault-static=maybe"})
	svctest.CheckPortInUse(t, "java", jar, "sample-jvm")
}

// ---- fault-injection switches
//
// Each --fault-... switch makes the service unfair in the one way a
// yardstick fairness check measures; these tests prove that every switch
// really does it, and that a fair twin started the same way without it
// does not.

// logLines reads an access log (after stop, which flushes it).
func logLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// lastLineFor is the last access-log line for path, as it is and with ts
// and dur_us, which vary from request to request, set to constants.
func lastLineFor(t *testing.T, lines []string, path string) (raw, normal string) {
	t.Helper()
	ts := regexp.MustCompile(`"ts":"[^"]*"`)
	dur := regexp.MustCompile(`"dur_us":\d+`)
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], `"path":"`+path+`"`) {
			return lines[i], dur.ReplaceAllString(ts.ReplaceAllString(lines[i], `"ts":""`), `"dur_us":0`)
		}
	}
	t.Fatalf("no access-log line for %s in %q", path, lines)
	return "", ""
}

// keepAlive sends GET path twice on one raw TCP connection and reports
// whether the first response said Connection: close, whether the server
// then closed the connection (within wait), and whether the second request
// was answered.
func keepAlive(t *testing.T, port int, path string, wait time.Duration) (saidClose, closed, second bool) {
	t.Helper()
	c := svctest.DialRaw(t, port)
	resp, _, err := c.Do("GET", path)
	if err != nil {
		t.Fatalf("first request: %v", err)
	}
	saidClose = resp.Close // ReadResponse moves a Connection: close header here
	if closed, err = c.Closed(wait); err != nil {
		t.Errorf("after the first response: %v", err)
	}
	resp, _, err = c.Do("GET", path)
	return saidClose, closed, err == nil && resp.StatusCode == http.StatusOK
}

// TestIntegrationFaults starts a fair server and one server per fault
// switch, all with -Dsample.workers=2 and --work-factor 2, and checks each switch
// against the fair twin:
//   - --fault-log-pad 858 (1108 vs 250 bytes/request, docs/methodology.md#duties): the line
//     for the same request is 858 bytes longer; FAULT_LOG_PAD=5 (the
//     environment, small enough for spaces instead of a field): 5 bytes;
//   - --fault-extra-workers 3: 5 sample-worker-* threads in /proc, the twin 2;
//   - --fault-static: /api/generated/7 and /128 (and /api/strings/abc and
//     /xyz) get the same body, the twin different ones;
//   - --fault-close: Connection: close on the first response of a raw
//     keep-alive client, then EOF; the twin answers the second request.
func TestIntegrationFaults(t *testing.T) {
	jvm := []string{"-Xms32m", "-Xmx32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dsample.workers=2"}
	type server struct {
		name string
		args []string
		env  []string
		log  string
		p    *svctest.Target
	}
	servers := []*server{
		{name: "fair"},
		{name: "log-pad", args: []string{"--fault-log-pad", "858"}},
		{name: "log-pad-env", env: []string{"FAULT_LOG_PAD=5"}},
		{name: "extra-workers", args: []string{"--fault-extra-workers", "3"}},
		{name: "static", args: []string{"--fault-static"}},
		{name: "close", args: []string{"--fault-close"}},
	}
	byName := map[string]*server{}
	for _, s := range servers {
		byName[s.name] = s
		s.log = filepath.Join(t.TempDir(), s.name+".log")
		port := svctest.FreePort(t)
		args := append([]string{"--port", strconv.Itoa(port), "--access-log", s.log, "--work-factor", "2"}, s.args...)
		s.p = start(t, port, jvm, args, s.env)
	}
	fair := byName["fair"]

	t.Run("extra-workers", func(t *testing.T) {
		svctest.CheckThreads(t, fair.p.Pid(), workerRE, 2, "fair: the declared sample.workers=2")
		svctest.CheckThreads(t, byName["extra-workers"].p.Pid(), workerRE, 2+3, "--fault-extra-workers 3 over sample.workers=2")
	})

	t.Run("static", func(t *testing.T) {
		st := byName["static"]
		for _, pair := range [][2]string{{"/api/generated/7", "/api/generated/128"}, {"/api/strings/abc", "/api/strings/xyz"}} {
			f1, f2 := fair.p.Do(t, "GET", pair[0], ""), fair.p.Do(t, "GET", pair[1], "")
			s1, s2 := st.p.Do(t, "GET", pair[0], ""), st.p.Do(t, "GET", pair[1], "")
			if f1.Status != 200 || f2.Status != 200 || bytes.Equal(f1.Body, f2.Body) {
				t.Errorf("fair %s, %s: %d %s / %d %s, want two different 200s", pair[0], pair[1], f1.Status, f1.Body, f2.Status, f2.Body)
			}
			if s1.Status != 200 || !bytes.Equal(s1.Body, f1.Body) || s2.Status != 200 || !bytes.Equal(s2.Body, s1.Body) {
				t.Errorf("--fault-static %s then %s: %d %s / %d %s, want the fair first answer %s twice",
					pair[0], pair[1], s1.Status, s1.Body, s2.Status, s2.Body, f1.Body)
			}
		}
		// whatever the parameter, even a bad one, once a body is remembered
		if r := st.p.Do(t, "GET", "/api/generated/-1", ""); r.Status != 200 || !bytes.HasPrefix(r.Body, []byte(`{"length":7,`)) {
			t.Errorf("--fault-static /api/generated/-1: %d %s, want the first answer", r.Status, r.Body)
		}
	})

	t.Run("close", func(t *testing.T) {
		for _, s := range []*server{fair, byName["close"]} {
			faulty := s != fair
			wait := 300 * time.Millisecond // to be sure the fair twin keeps it open
			if faulty {
				wait = 5 * time.Second // for the close to arrive on a busy machine
			}
			saidClose, closed, second := keepAlive(t, s.p.Port, "/api/generated/16", wait)
			t.Logf("%s: Connection: close %v, closed after the first response %v, second request answered %v",
				s.name, saidClose, closed, second)
			if saidClose != faulty || closed != faulty || second == faulty {
				t.Errorf("%s: Connection: close %v, closed %v, second answered %v; want %v, %v, %v",
					s.name, saidClose, closed, second, faulty, faulty, !faulty)
			}
		}
	})

	// log pad: the same request on the fair and the padded servers
	for _, s := range []*server{fair, byName["log-pad"], byName["log-pad-env"]} {
		s.p.Do(t, "GET", "/api/generated/128", "")
	}
	for _, s := range servers {
		s.p.Stop(t)
		if got := strings.Contains(s.p.Output.String(), " FAULTS: "); got != (s != fair) {
			t.Errorf("%s: listening line mentions FAULTS %v:\n%s", s.name, got, s.p.Output)
		}
	}
	t.Run("log-pad", func(t *testing.T) {
		wantRaw, want := lastLineFor(t, logLines(t, fair.log), "/api/generated/128")
		for _, c := range []struct {
			name string
			pad  int
		}{{"log-pad", 858}, {"log-pad-env", 5}} {
			gotRaw, got := lastLineFor(t, logLines(t, byName[c.name].log), "/api/generated/128")
			t.Logf("%s: %d bytes for GET /api/generated/128 with its newline, fair %d", c.name, len(gotRaw)+1, len(wantRaw)+1)
			if len(got)-len(want) != c.pad {
				t.Errorf("%s: line grew by %d bytes, want %d\nfair   %s\nfaulty %s", c.name, len(got)-len(want), c.pad, want, got)
			}
			if !json.Valid([]byte(got)) || !strings.HasPrefix(got, strings.TrimSuffix(want, "}")) {
				t.Errorf("%s: padded line is not the fair line plus padding:\nfair   %s\nfaulty %s", c.name, want, got)
			}
		}
	})
}
