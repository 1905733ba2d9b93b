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
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
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

// proc is a running sample service.
type proc struct {
	cmd      *exec.Cmd
	base     string // http://127.0.0.1:port
	port     int
	done     chan struct{} // closed when Wait has returned
	waitErr  error
	stderr   *lockedBuffer
	readyIn  time.Duration // exec to the first 200 on /ready
	requests int           // requests the test has sent that reached the server
	client   *http.Client
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// start runs java jvmArgs -jar sample-jvm.jar args in its own process
// group, with env added to the environment, and waits for /ready. The
// process group is killed when the test ends, whatever happens.
func start(t *testing.T, jvmArgs, args, env []string) *proc {
	t.Helper()
	p := &proc{
		done:   make(chan struct{}),
		stderr: &lockedBuffer{},
		client: &http.Client{
			Timeout:   10 * time.Second,
			Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4},
		},
	}
	argv := append(slices.Clone(jvmArgs), "-jar", jar)
	argv = append(argv, args...)
	p.cmd = exec.Command("java", argv...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout = p.stderr
	p.cmd.Stderr = p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t0 := time.Now()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.waitErr = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.client.CloseIdleConnections()
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	})

	// the port: from a switch or from $PORT
	for i, a := range args {
		if a == "--port" && i+1 < len(args) {
			p.port, _ = strconv.Atoi(args[i+1])
		}
	}
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "PORT="); ok && p.port == 0 {
			p.port, _ = strconv.Atoi(v)
		}
	}
	p.base = fmt.Sprintf("http://127.0.0.1:%d", p.port)

	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-p.done:
			t.Fatalf("sample-jvm exited before it was ready: %v\n%s", p.waitErr, p.stderr)
		default:
		}
		resp, err := p.client.Get(p.base + "/ready")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			p.requests++
			if resp.StatusCode == http.StatusOK {
				p.readyIn = time.Since(t0)
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("sample-jvm not ready after 20s: %v\n%s", err, p.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("exec to first 200 on /ready: %v", p.readyIn.Round(time.Millisecond))
	return p
}

// stop sends SIGTERM and waits for the exit, at most a few seconds.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	p.client.CloseIdleConnections()
	t0 := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		t.Fatalf("sample-jvm still running 5s after SIGTERM\n%s", p.stderr)
	}
	// the JVM exits 143 (128+SIGTERM) after its shutdown hooks ran
	var ee *exec.ExitError
	if p.waitErr != nil && !(errors.As(p.waitErr, &ee) && ee.ExitCode() == 143) {
		t.Errorf("exit after SIGTERM: %v, want status 0 or 143", p.waitErr)
	}
	t.Logf("SIGTERM to exit: %v", time.Since(t0).Round(time.Millisecond))
}

type reply struct {
	status  int
	header  http.Header
	body    string
	bodyLen int64 // Content-Length as the client read it
}

func (p *proc) do(t *testing.T, method, path, body string) reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, p.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	p.requests++
	return reply{resp.StatusCode, resp.Header, string(b), resp.ContentLength}
}

// threads counts the process's threads whose /proc comm matches re.
func threads(t *testing.T, pid int, re *regexp.Regexp) (n int, names []string) {
	t.Helper()
	dirs, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/comm", pid))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no threads under /proc/%d/task: %v", pid, err)
	}
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a thread that has just ended
		}
		name := strings.TrimSuffix(string(b), "\n")
		names = append(names, name)
		if re.MatchString(name) {
			n++
		}
	}
	return n, names
}

// The expected bodies below were obtained by running the Go sample of the
// loadgen branch (go run ./targets/go -work-factor 2, at commit 876b0c4 of
// /work/wt-loadgen) with curl: the JVM sample must answer byte for byte the
// same. The Go package cannot be imported from this branch, so they are
// copied here.
const (
	goStringsABC = `{"length":3,"work_factor":2,"uppercase":"ABC","lowercase":"abc","reverse":"cba",` +
		`"crc32":891568578,"checksum":551891156}`
	// %C3%A9%FF%3C is é, an invalid byte, <: the invalid byte becomes a raw
	// U+FFFD (the transforms decode it as one) and < is escaped as \u003c.
	goStringsNonASCII = `{"length":4,"work_factor":2,"uppercase":"É` + "\uFFFD" + `\u003c","lowercase":"é` + "\uFFFD" +
		`\u003c","reverse":"\u003c` + "\uFFFD" + `é","crc32":794720750,"checksum":1412219373}`
	goGenerated128  = `{"length":128,"work_factor":2,"crc32":3535086682,"checksum":1731481683}`
	goGenerated2048 = `{"length":2048,"work_factor":2,"crc32":2492546827,"checksum":1402639770}`
	goGenerated0    = `{"length":0,"work_factor":2,"crc32":0,"checksum":0}`
	sampleDocument  = `{"id":12345,"name":"Ada Lovelace","email":"ada@example.org","active":true,"score":87.5,` +
		`"tags":["math","engines","poetry","notes"],"address":{"street":"12 St James's Square","city":"London",` +
		`"zip":"SW1Y 4JH","country":"GB"},"created":"2024-03-01T12:00:00Z"}`
)

func TestIntegrationEndpoints(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "access.log")
	port := freePort(t)
	p := start(t, []string{"-Xms64m", "-Xmx64m", "-Dsample.workers=2"},
		[]string{"--port", strconv.Itoa(port), "--access-log", logPath, "--work-factor", "2"}, nil)

	// The workers are named for eventLoopThreads: "^sample-worker-" in the
	// experiments, and there are exactly sample.workers of them.
	n, names := threads(t, p.cmd.Process.Pid, regexp.MustCompile(`^sample-worker-`))
	if n != 2 {
		t.Errorf("%d threads named sample-worker-*, want 2 (-Dsample.workers=2); threads: %q", n, names)
	}

	const (
		jsonCT = "application/json"
		textCT = "text/plain; charset=utf-8"
	)
	cases := []struct {
		method, path, body string
		status             int
		ct                 string
		want               string // the exact body; "" means check status and type only
	}{
		{"GET", "/health", "", 200, jsonCT, `{"status":"UP"}`},
		{"GET", "/ready", "", 200, jsonCT, `{"status":"UP"}`},
		{"GET", "/hello", "", 200, textCT, "Hello, World!"},
		{"GET", "/api/strings/abc", "", 200, jsonCT, goStringsABC},
		{"GET", "/api/strings/%C3%A9%FF%3C", "", 200, jsonCT, goStringsNonASCII},
		{"GET", "/api/generated/128", "", 200, jsonCT, goGenerated128},
		{"GET", "/api/generated/2048", "", 200, jsonCT, goGenerated2048},
		{"GET", "/api/generated/0", "", 200, jsonCT, goGenerated0},
		{"GET", "/api/sleep/20", "", 200, jsonCT, `{"slept_ms":20}`},
		{"POST", "/api/json", sampleDocument, 200, jsonCT, sampleDocument},
		{"POST", "/api/json", `{"id":1,"name":"x<y","email":"a@b","score":1e-7,"tags":null,` +
			`"address":{"city":"c"},"created":"2024-02-29T23:59:59.120+01:30"}`, 200, jsonCT,
			`{"id":1,"name":"x\u003cy","email":"a@b","active":false,"score":1e-7,"tags":null,` +
				`"address":{"street":"","city":"c","zip":"","country":""},"created":"2024-02-29T23:59:59.12+01:30"}`},

		// bad input: 4xx with a JSON error, never a 500
		{"GET", "/api/generated/-1", "", 400, jsonCT, `{"error":"size must be an integer from 0 to 1048576"}`},
		{"GET", "/api/generated/1048577", "", 400, jsonCT, `{"error":"size must be an integer from 0 to 1048576"}`},
		{"GET", "/api/generated/abc", "", 400, jsonCT, `{"error":"size must be an integer from 0 to 1048576"}`},
		{"GET", "/api/generated/99999999999999999999999", "", 400, jsonCT, `{"error":"size must be an integer from 0 to 1048576"}`},
		{"GET", "/api/sleep/60001", "", 400, jsonCT, `{"error":"ms must be an integer from 0 to 60000"}`},
		{"GET", "/api/sleep/x", "", 400, jsonCT, `{"error":"ms must be an integer from 0 to 60000"}`},
		{"POST", "/api/json", `{"id":1,"extra":true}`, 400, jsonCT, `{"error":"bad JSON document: json: unknown field \"extra\""}`},
		{"POST", "/api/json", `{"id":"1"}`, 400, jsonCT,
			`{"error":"bad JSON document: json: cannot unmarshal string into Go struct field Document.id of type int64"}`},
		{"POST", "/api/json", `{"id":1,`, 400, jsonCT, `{"error":"bad JSON document: unexpected EOF"}`},
		{"POST", "/api/json", ``, 400, jsonCT, `{"error":"bad JSON document: EOF"}`},
		{"POST", "/api/json", sampleDocument + ` {}`, 400, jsonCT, `{"error":"one JSON document expected"}`},
		{"POST", "/api/json", `{"id":0,"score":101,"address":{},"created":"0001-01-01T00:00:00Z"}`, 422, jsonCT,
			`{"error":"id must be positive\nname must have 1 to 200 bytes\nemail is not an address\n` +
				`score must be within 0..100\naddress.city is required\ncreated is required"}`},
		{"POST", "/api/json", strings.Repeat(" ", 65<<10) + sampleDocument, 400, jsonCT,
			`{"error":"bad JSON document: http: request body too large"}`},

		// routing as Go's ServeMux does it
		{"GET", "/nope", "", 404, textCT, "404 page not found\n"},
		{"GET", "/api/strings/", "", 404, textCT, "404 page not found\n"},
		{"GET", "/api/strings/a/b", "", 404, textCT, "404 page not found\n"},
		{"GET", "/api/json", "", 405, textCT, "Method Not Allowed\n"},
		{"POST", "/hello", "x", 405, textCT, "Method Not Allowed\n"},
	}
	type logged struct {
		method, path string
		status, size int
	}
	var sent []logged
	for _, c := range cases {
		r := p.do(t, c.method, c.path, c.body)
		name := c.method + " " + c.path
		if len(name) > 60 {
			name = name[:60] + "..."
		}
		if r.status != c.status {
			t.Errorf("%s: status %d, want %d (body %.200q)", name, r.status, c.status, r.body)
		}
		if got := r.header.Get("Content-Type"); got != c.ct {
			t.Errorf("%s: Content-Type %q, want %q", name, got, c.ct)
		}
		if cl := r.header.Get("Content-Length"); cl != strconv.Itoa(len(r.body)) || r.bodyLen != int64(len(r.body)) {
			t.Errorf("%s: Content-Length %q (client saw %d), body has %d bytes", name, cl, r.bodyLen, len(r.body))
		}
		if c.want != "" && r.body != c.want {
			t.Errorf("%s: body\n got %s\nwant %s", name, r.body, c.want)
		}
		if c.status >= 400 && c.ct == jsonCT && !json.Valid([]byte(r.body)) {
			t.Errorf("%s: error body is not JSON: %q", name, r.body)
		}
		if c.status == 405 {
			if a := r.header.Get("Allow"); a == "" {
				t.Errorf("%s: 405 without Allow", name)
			}
		}
		sent = append(sent, logged{c.method, c.path, r.status, len(r.body)})
	}

	// HEAD: no body, but the length of the GET's body (as Go sends it)
	h := p.do(t, "HEAD", "/api/generated/128", "")
	if h.status != 200 || h.body != "" || h.header.Get("Content-Length") != strconv.Itoa(len(goGenerated128)) {
		t.Errorf("HEAD /api/generated/128: status %d, Content-Length %q, body %q; want 200, %d, empty",
			h.status, h.header.Get("Content-Length"), h.body, len(goGenerated128))
	}

	// responses vary with their input (no cached answer)
	if a, b := p.do(t, "GET", "/api/generated/129", "").body, p.do(t, "GET", "/api/generated/130", "").body; a == b {
		t.Errorf("/api/generated/129 and /130 answered the same: %s", a)
	}

	p.stop(t)

	// one JSON line per request, the Go sample's fields in its order
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != p.requests {
		t.Fatalf("access log has %d lines, the test made %d requests:\n%s", len(lines), p.requests, b)
	}
	shape := regexp.MustCompile(`^\{"ts":"[^"]+","method":"[A-Z]+","path":"[^"]*","status":\d{3},"bytes":\d+,"dur_us":\d+\}$`)
	// lines[0 : p.requests-len(sent)-3] are the /ready polls; then the cases in order
	first := len(lines) - len(sent) - 3
	for i, l := range lines {
		if !shape.MatchString(l) {
			t.Errorf("access log line %d has not the Go sample's shape: %s", i+1, l)
			continue
		}
		var e struct {
			TS     string `json:"ts"`
			Method string `json:"method"`
			Path   string `json:"path"`
			Status int    `json:"status"`
			Bytes  int    `json:"bytes"`
			DurUS  int64  `json:"dur_us"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Errorf("access log line %d: %v: %s", i+1, err, l)
			continue
		}
		if _, err := time.Parse(time.RFC3339Nano, e.TS); err != nil || !strings.HasSuffix(e.TS, "Z") {
			t.Errorf("access log line %d: ts %q is not RFC 3339 UTC: %v", i+1, e.TS, err)
		}
		if k := i - first; k >= 0 && k < len(sent) {
			s := sent[k]
			want := s.path
			if strings.Contains(want, "%") { // the log has the decoded path, as Go's r.URL.Path
				want = "/api/strings/é\ufffd<"
			}
			if e.Method != s.method || e.Path != want || e.Status != s.status || e.Bytes != s.size {
				t.Errorf("access log line %d: %s %q %d %d, want %s %q %d %d", i+1,
					e.Method, e.Path, e.Status, e.Bytes, s.method, want, s.status, s.size)
			}
		}
	}
	if !strings.Contains(p.stderr.String(), "sample-jvm listening on 127.0.0.1:"+strconv.Itoa(port)) {
		t.Errorf("no listening line on stderr:\n%s", p.stderr)
	}
}

// medianLatency sends n requests for path over one keep-alive connection
// and returns the median time to the complete response.
func medianLatency(t *testing.T, port, n int, path string) time.Duration {
	t.Helper()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	req := "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
	var d []time.Duration
	for range n {
		t0 := time.Now()
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
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
	port := freePort(t)
	p := start(t, []string{"-Xms64m", "-Xmx64m", "-XX:ActiveProcessorCount=3"}, []string{"--nodelay", "false"},
		[]string{"PORT=" + strconv.Itoa(port), "WORK_FACTOR=3"})
	n, names := threads(t, p.cmd.Process.Pid, regexp.MustCompile(`^sample-worker-`))
	if n != 3 {
		t.Errorf("%d threads named sample-worker-*, want 3 (-XX:ActiveProcessorCount=3); threads: %q", n, names)
	}
	if r := p.do(t, "GET", "/api/generated/0", ""); r.body != `{"length":0,"work_factor":3,"crc32":0,"checksum":0}` {
		t.Errorf("WORK_FACTOR=3: got %s", r.body)
	}
	slow := medianLatency(t, port, 7, "/api/generated/128")
	p.stop(t)

	port2 := freePort(t)
	q := start(t, []string{"-Xms64m", "-Xmx64m", "-Dsample.workers=1"}, []string{"--port", strconv.Itoa(port2)}, nil)
	fast := medianLatency(t, port2, 7, "/api/generated/128")
	q.stop(t)

	t.Logf("median keep-alive latency: --nodelay false %v, default (true) %v", slow, fast)
	if slow < 30*time.Millisecond {
		t.Errorf("--nodelay false: median %v, expected the ~40 ms Nagle/delayed-ACK floor", slow)
	}
	if fast >= 20*time.Millisecond {
		t.Errorf("--nodelay true: median %v, expected well under the 40 ms floor", fast)
	}
}

func TestIntegrationBadSwitches(t *testing.T) {
	for _, args := range [][]string{
		{"--work-factor", "0"},
		{"--port", "70000"},
		{"--bogus"},
		{"--nodelay=maybe"},
		{"stray"},
		{"--fault-log-pad", "-1"},
		{"--fault-static=maybe"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, "java", append([]string{"-Xms32m", "-Xmx32m", "-jar", jar}, args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out, err := cmd.CombinedOutput()
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%q: %v, want exit status 2\n%s", args, err, out)
			continue
		}
		if !bytes.HasPrefix(out, []byte("sample-jvm: ")) || bytes.Contains(out, []byte("\tat ")) {
			t.Errorf("%q: want a one-line error and usage, no stack trace:\n%s", args, out)
		}
	}
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
// then closed the connection (EOF or a reset; an open connection makes the
// read time out, after wait), and whether the second request was answered.
func keepAlive(t *testing.T, port int, path string, wait time.Duration) (saidClose, closed, second bool) {
	t.Helper()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	req := "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("first request: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	saidClose = resp.Close // ReadResponse moves a Connection: close header here
	c.SetReadDeadline(time.Now().Add(wait))
	var ne net.Error
	if _, err := br.Peek(1); errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
		closed = true
	} else if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("after the first response the connection reads %v, want EOF or a timeout", err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		return saidClose, closed, false
	}
	if resp, err = http.ReadResponse(br, nil); err != nil {
		return saidClose, closed, false
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return saidClose, closed, resp.StatusCode == http.StatusOK
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
		p    *proc
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
		args := append([]string{"--port", strconv.Itoa(freePort(t)), "--access-log", s.log, "--work-factor", "2"}, s.args...)
		s.p = start(t, jvm, args, s.env)
	}
	fair := byName["fair"]
	pid := func(s *server) int { return s.p.cmd.Process.Pid }
	workerRE := regexp.MustCompile(`^sample-worker-`)

	t.Run("extra-workers", func(t *testing.T) {
		nf, _ := threads(t, pid(fair), workerRE)
		n, names := threads(t, pid(byName["extra-workers"]), workerRE)
		t.Logf("sample-worker-* threads: fair %d, --fault-extra-workers 3: %d (sample.workers=2)", nf, n)
		if nf != 2 {
			t.Errorf("fair: %d sample-worker-* threads, want the declared 2", nf)
		}
		if n != 2+3 {
			t.Errorf("--fault-extra-workers 3: %d sample-worker-* threads, want 5; threads %q", n, names)
		}
	})

	t.Run("static", func(t *testing.T) {
		st := byName["static"]
		for _, pair := range [][2]string{{"/api/generated/7", "/api/generated/128"}, {"/api/strings/abc", "/api/strings/xyz"}} {
			f1, f2 := fair.p.do(t, "GET", pair[0], ""), fair.p.do(t, "GET", pair[1], "")
			s1, s2 := st.p.do(t, "GET", pair[0], ""), st.p.do(t, "GET", pair[1], "")
			if f1.status != 200 || f2.status != 200 || f1.body == f2.body {
				t.Errorf("fair %s, %s: %d %s / %d %s, want two different 200s", pair[0], pair[1], f1.status, f1.body, f2.status, f2.body)
			}
			if s1.status != 200 || s1.body != f1.body || s2.status != 200 || s2.body != s1.body {
				t.Errorf("--fault-static %s then %s: %d %s / %d %s, want the fair first answer %s twice",
					pair[0], pair[1], s1.status, s1.body, s2.status, s2.body, f1.body)
			}
		}
		// whatever the parameter, even a bad one, once a body is remembered
		if r := st.p.do(t, "GET", "/api/generated/-1", ""); r.status != 200 || !strings.HasPrefix(r.body, `{"length":7,`) {
			t.Errorf("--fault-static /api/generated/-1: %d %s, want the first answer", r.status, r.body)
		}
	})

	t.Run("close", func(t *testing.T) {
		for _, s := range []*server{fair, byName["close"]} {
			faulty := s != fair
			wait := 300 * time.Millisecond // to be sure the fair twin keeps it open
			if faulty {
				wait = 5 * time.Second // for the close to arrive on a busy machine
			}
			saidClose, closed, second := keepAlive(t, s.p.port, "/api/generated/16", wait)
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
		s.p.do(t, "GET", "/api/generated/128", "")
	}
	for _, s := range servers {
		s.p.stop(t)
		if got := strings.Contains(s.p.stderr.String(), " FAULTS: "); got != (s != fair) {
			t.Errorf("%s: listening line mentions FAULTS %v:\n%s", s.name, got, s.p.stderr)
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
