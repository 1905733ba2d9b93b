// Package targettest runs a framework target's jar, as `make frameworks`
// built it into bin/, on a free loopback port and checks it from outside:
// every endpoint's status, type and body against the samples' answers, the
// access-log switch and its lines, the threads in /proc and the SIGTERM
// exit. It serves the tests of targets/helidon, targets/vertx and
// targets/quarkus; a missing jar or JDK 25 fails them, never skips. What
// every target's tests share (the repository root, artifacts, free ports,
// process output, /proc threads) is targets/internal/svctest's.
package targettest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
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

	"yardstick/targets/internal/svctest"
)

// DefaultJavaHome is where the framework targets' JDK 25 is looked for
// unless $JAVA25_HOME names another (the build scripts use the same rule).
const DefaultJavaHome = "/usr/lib/jvm/temurin-25-jdk-amd64"

// Java returns the java launcher of the JDK 25 the targets are built with,
// or fails the test with how to get one.
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

// Artifact is the absolute path of bin/name, or fails the test, saying to
// run make frameworks, when it is not there.
func Artifact(t testing.TB, name string) string {
	t.Helper()
	return svctest.Artifact(t, filepath.Join("bin", name))
}

// FreePort is a TCP port on 127.0.0.1 that was free a moment ago.
var FreePort = svctest.FreePort

// Spec says how to start a target.
type Spec struct {
	Java    string   // the java launcher
	JVMArgs []string // before -jar
	Jar     string
	Port    int      // where to wait for /ready; given to the target by Args or Env
	Args    []string // after the jar
	Env     []string // added to the environment
}

// Proc is a running target.
type Proc struct {
	Cmd      *exec.Cmd
	Base     string // http://127.0.0.1:port
	Output   *svctest.Buffer
	ReadyIn  time.Duration // from exec to the first 200 on /ready
	Requests int           // requests sent that reached the server, /ready polls included
	done     chan struct{}
	waitErr  error
	client   *http.Client
}

// ReadyTimeout bounds the wait for /ready: a loaded 2-core machine takes
// many seconds to start a framework.
const ReadyTimeout = 60 * time.Second

// Start runs java JVMArgs -jar Jar Args in its own process group and waits
// for /ready to answer 200. The process group is killed when the test
// ends, whatever happens.
func Start(t testing.TB, s Spec) *Proc {
	t.Helper()
	p := &Proc{
		Base:   fmt.Sprintf("http://127.0.0.1:%d", s.Port),
		Output: &svctest.Buffer{},
		done:   make(chan struct{}),
		client: &http.Client{
			Timeout:   10 * time.Second,
			Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 16},
		},
	}
	argv := append(slices.Clone(s.JVMArgs), "-jar", s.Jar)
	argv = append(argv, s.Args...)
	p.Cmd = exec.Command(s.Java, argv...)
	p.Cmd.Env = append(os.Environ(), s.Env...)
	p.Cmd.Stdout = p.Output
	p.Cmd.Stderr = p.Output
	p.Cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t0 := time.Now()
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.waitErr = p.Cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.client.CloseIdleConnections()
		_ = syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	})

	deadline := t0.Add(ReadyTimeout)
	for {
		select {
		case <-p.done:
			t.Fatalf("%s exited before it was ready: %v\n%s", filepath.Base(s.Jar), p.waitErr, p.Output)
		default:
		}
		resp, err := p.client.Get(p.Base + "/ready")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			p.Requests++
			if resp.StatusCode == http.StatusOK {
				p.ReadyIn = time.Since(t0)
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not ready after %v: %v\n%s", filepath.Base(s.Jar), ReadyTimeout, err, p.Output)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("%s: exec to first 200 on /ready: %v", filepath.Base(s.Jar), p.ReadyIn.Round(time.Millisecond))
	return p
}

// Stop sends SIGTERM and waits, at most 15 s, for the exit, which must be
// status 143 (128+SIGTERM, the JVM's after its shutdown hooks) or 0.
func (p *Proc) Stop(t testing.TB) {
	t.Helper()
	p.client.CloseIdleConnections()
	t0 := time.Now()
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		t.Fatalf("still running 15s after SIGTERM\n%s", p.Output)
	}
	var ee *exec.ExitError
	if p.waitErr != nil && !(errors.As(p.waitErr, &ee) && ee.ExitCode() == 143) {
		t.Errorf("exit after SIGTERM: %v, want status 0 or 143\n%s", p.waitErr, p.Output)
	}
	t.Logf("SIGTERM to exit: %v", time.Since(t0).Round(time.Millisecond))
}

// Reply is an HTTP answer as the client read it.
type Reply struct {
	Status  int
	Header  http.Header
	Body    string
	BodyLen int64 // Content-Length as the client read it, -1 when absent
}

// Do sends one request and reads the whole answer.
func (p *Proc) Do(t testing.TB, method, path, body string) Reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, p.Base+path, rd)
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
	p.Requests++
	return Reply{resp.StatusCode, resp.Header, string(b), resp.ContentLength}
}

// Threads counts the process's threads whose /proc comm (the name's first
// 15 bytes) matches re, and returns all names.
func Threads(t testing.TB, pid int, re *regexp.Regexp) (n int, names []string) {
	t.Helper()
	names = svctest.Threads(t, pid)
	slices.Sort(names)
	return svctest.CountMatching(names, re), names
}

// The answers of the samples (targets/go, targets/java) with work factor 2,
// which every framework target must give byte for byte; they are the ones
// targets/java/sample_test.go checks the JVM sample against.
const (
	WorkFactor     = 2
	StringsABC     = `{"length":3,"work_factor":2,"uppercase":"ABC","lowercase":"abc","reverse":"cba","crc32":891568578,"checksum":551891156}`
	StringsNonASCI = `{"length":4,"work_factor":2,"uppercase":"É` + "\uFFFD" + `\u003c","lowercase":"é` + "\uFFFD" +
		`\u003c","reverse":"\u003c` + "\uFFFD" + `é","crc32":794720750,"checksum":1412219373}`
	Generated128   = `{"length":128,"work_factor":2,"crc32":3535086682,"checksum":1731481683}`
	Generated2048  = `{"length":2048,"work_factor":2,"crc32":2492546827,"checksum":1402639770}`
	Generated0     = `{"length":0,"work_factor":2,"crc32":0,"checksum":0}`
	SampleDocument = `{"id":12345,"name":"Ada Lovelace","email":"ada@example.org","active":true,"score":87.5,` +
		`"tags":["math","engines","poetry","notes"],"address":{"street":"12 St James's Square","city":"London",` +
		`"zip":"SW1Y 4JH","country":"GB"},"created":"2024-03-01T12:00:00Z"}`
	JSONType = "application/json"
	TextType = "text/plain; charset=utf-8"
)

// Case is one request and the exact answer it must get.
type Case struct {
	Method, Path, Body string
	Status             int
	Type               string
	Want               string // the exact body
	Allow              string // the Allow header of a 405
}

// Cases are every endpoint with good and bad input, and the routing
// answers (404, 405) of Go's ServeMux.
func Cases() []Case {
	sizeErr := `{"error":"size must be an integer from 0 to 1048576"}`
	msErr := `{"error":"ms must be an integer from 0 to 60000"}`
	return []Case{
		{"GET", "/health", "", 200, JSONType, `{"status":"UP"}`, ""},
		{"GET", "/ready", "", 200, JSONType, `{"status":"UP"}`, ""},
		{"GET", "/hello", "", 200, TextType, "Hello, World!", ""},
		{"GET", "/api/strings/abc", "", 200, JSONType, StringsABC, ""},
		{"GET", "/api/strings/%C3%A9%FF%3C", "", 200, JSONType, StringsNonASCI, ""},
		{"GET", "/api/generated/128", "", 200, JSONType, Generated128, ""},
		{"GET", "/api/generated/2048", "", 200, JSONType, Generated2048, ""},
		{"GET", "/api/generated/0", "", 200, JSONType, Generated0, ""},
		{"GET", "/api/sleep/20", "", 200, JSONType, `{"slept_ms":20}`, ""},
		{"POST", "/api/json", SampleDocument, 200, JSONType, SampleDocument, ""},
		{"POST", "/api/json", `{"id":1,"name":"x<y","email":"a@b","score":1e-7,"tags":null,` +
			`"address":{"city":"c"},"created":"2024-02-29T23:59:59.120+01:30"}`, 200, JSONType,
			`{"id":1,"name":"x\u003cy","email":"a@b","active":false,"score":1e-7,"tags":null,` +
				`"address":{"street":"","city":"c","zip":"","country":""},"created":"2024-02-29T23:59:59.12+01:30"}`, ""},

		{"GET", "/api/generated/-1", "", 400, JSONType, sizeErr, ""},
		{"GET", "/api/generated/1048577", "", 400, JSONType, sizeErr, ""},
		{"GET", "/api/generated/abc", "", 400, JSONType, sizeErr, ""},
		{"GET", "/api/generated/99999999999999999999999", "", 400, JSONType, sizeErr, ""},
		{"GET", "/api/sleep/60001", "", 400, JSONType, msErr, ""},
		{"GET", "/api/sleep/x", "", 400, JSONType, msErr, ""},
		{"POST", "/api/json", `{"id":1,"extra":true}`, 400, JSONType, `{"error":"bad JSON document: json: unknown field \"extra\""}`, ""},
		{"POST", "/api/json", `{"id":"1"}`, 400, JSONType,
			`{"error":"bad JSON document: json: cannot unmarshal string into Go struct field Document.id of type int64"}`, ""},
		{"POST", "/api/json", `{"id":1,`, 400, JSONType, `{"error":"bad JSON document: unexpected EOF"}`, ""},
		{"POST", "/api/json", SampleDocument + ` {}`, 400, JSONType, `{"error":"one JSON document expected"}`, ""},
		{"POST", "/api/json", `{"id":0,"score":101,"address":{},"created":"0001-01-01T00:00:00Z"}`, 422, JSONType,
			`{"error":"id must be positive\nname must have 1 to 200 bytes\nemail is not an address\n` +
				`score must be within 0..100\naddress.city is required\ncreated is required"}`, ""},
		{"POST", "/api/json", strings.Repeat(" ", 65<<10) + SampleDocument, 400, JSONType,
			`{"error":"bad JSON document: http: request body too large"}`, ""},

		{"GET", "/nope", "", 404, TextType, "404 page not found\n", ""},
		{"GET", "/api/strings/", "", 404, TextType, "404 page not found\n", ""},
		{"GET", "/api/strings/a/b", "", 404, TextType, "404 page not found\n", ""},
		{"GET", "/api/json", "", 405, TextType, "Method Not Allowed\n", "POST"},
		{"POST", "/hello", "x", 405, TextType, "Method Not Allowed\n", "GET, HEAD"},
	}
}

// Logged is what the access log must say about one request.
type Logged struct {
	Method, Path string
	Status, Size int
}

// CheckCases sends every case in order and checks status, Content-Type,
// Content-Length and body, then that /api/generated/129 and /130 differ; it
// returns what the access log must say about those requests, in order.
func CheckCases(t *testing.T, p *Proc, cases []Case) []Logged {
	t.Helper()
	var sent []Logged
	for _, c := range cases {
		r := p.Do(t, c.Method, c.Path, c.Body)
		name := c.Method + " " + c.Path
		if len(name) > 60 {
			name = name[:60] + "..."
		}
		if r.Status != c.Status {
			t.Errorf("%s: status %d, want %d (body %.200q)", name, r.Status, c.Status, r.Body)
		}
		if got := r.Header.Get("Content-Type"); got != c.Type {
			t.Errorf("%s: Content-Type %q, want %q", name, got, c.Type)
		}
		if cl := r.Header.Get("Content-Length"); cl != strconv.Itoa(len(r.Body)) {
			t.Errorf("%s: Content-Length %q, body has %d bytes", name, cl, len(r.Body))
		}
		if r.Body != c.Want {
			t.Errorf("%s: body\n got %s\nwant %s", name, r.Body, c.Want)
		}
		if c.Allow != "" && r.Header.Get("Allow") != c.Allow {
			t.Errorf("%s: Allow %q, want %q", name, r.Header.Get("Allow"), c.Allow)
		}
		sent = append(sent, Logged{c.Method, c.Path, r.Status, len(r.Body)})
	}
	// answers vary with their input (nothing cached)
	a, b := p.Do(t, "GET", "/api/generated/129", ""), p.Do(t, "GET", "/api/generated/130", "")
	if a.Status != 200 || b.Status != 200 || a.Body == b.Body {
		t.Errorf("/api/generated/129 and /130: %d %s and %d %s, want two different 200s", a.Status, a.Body, b.Status, b.Body)
	}
	sent = append(sent, Logged{"GET", "/api/generated/129", a.Status, len(a.Body)},
		Logged{"GET", "/api/generated/130", b.Status, len(b.Body)})
	return sent
}

// accessLine is the samples' access-log line, fields in their order.
var accessLine = regexp.MustCompile(`^\{"ts":"[^"]+","method":"[A-Z]+","path":"[^"]*","status":\d{3},"bytes":\d+,"dur_us":\d+\}$`)

// CheckAccessLog reads the log (after Stop, which flushes it): one line
// per request p made, in the samples' shape, and for the requests in sent,
// which were the last ones but extra, their method, decoded path, status
// and body size.
func CheckAccessLog(t *testing.T, path string, p *Proc, sent []Logged, extra int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("access log: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != p.Requests {
		t.Fatalf("access log has %d lines, the test made %d requests:\n%s", len(lines), p.Requests, b)
	}
	first := len(lines) - len(sent) - extra
	for i, l := range lines {
		if !accessLine.MatchString(l) {
			t.Errorf("access log line %d has not the samples' shape: %s", i+1, l)
			continue
		}
		var e struct {
			TS     string `json:"ts"`
			Method string `json:"method"`
			Path   string `json:"path"`
			Status int    `json:"status"`
			Bytes  int    `json:"bytes"`
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
			want := s.Path
			if strings.Contains(want, "%") { // the log has the decoded path, as Go's r.URL.Path
				want = "/api/strings/é\ufffd<"
			}
			if e.Method != s.Method || e.Path != want || e.Status != s.Status || e.Bytes != s.Size {
				t.Errorf("access log line %d: %s %q %d %d, want %s %q %d %d", i+1,
					e.Method, e.Path, e.Status, e.Bytes, s.Method, want, s.Status, s.Size)
			}
		}
	}
}

// Concurrently sends n GET path at once and returns how long the last one
// took; every answer must be 200.
func Concurrently(t *testing.T, p *Proc, n int, path string) time.Duration {
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
			io.Copy(io.Discard, resp.Body)
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

// CheckBadSwitch runs the jar with a bad switch: exit status 2 and a
// one-line error starting with prog, no stack trace.
func CheckBadSwitch(t *testing.T, java, jar, prog string) {
	t.Helper()
	for _, args := range [][]string{{"--bogus"}, {"--port", "70000"}, {"--work-factor", "0"}, {"stray"}} {
		cmd := exec.Command(java, append([]string{"-Xshare:auto", "-XX:TieredStopAtLevel=1", "-jar", jar}, args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		done := make(chan struct{})
		var out []byte
		var err error
		go func() { out, err = cmd.CombinedOutput(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
			t.Errorf("%q: still running after 20s", args)
			continue
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%q: %v, want exit status 2\n%s", args, err, out)
			continue
		}
		if !bytes.HasPrefix(out, []byte(prog+": ")) || bytes.Contains(out, []byte("\tat ")) {
			t.Errorf("%q: want a one-line error and the usage, no stack trace:\n%s", args, out)
		}
	}
}

// Client is the HTTP client Do uses, for requests a test makes itself.
func (p *Proc) Client() *http.Client { return p.client }

// CheckHead sends HEAD path and then GET path on one raw keep-alive
// connection: the HEAD answer must be 200 without a body (a body would be
// read as the start of the GET's answer, which then fails to parse) and,
// when wantLength is true, carry the GET body's Content-Length, as Go's
// server sends it. It returns the GET's body.
func CheckHead(t *testing.T, p *Proc, path string, wantLength bool) string {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(p.Base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	read := func(method string) *http.Response {
		req, _ := http.NewRequest(method, p.Base+path, nil)
		if _, err := fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", method, path); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			t.Fatalf("%s %s after HEAD on the same connection: %v (did HEAD send a body?)", method, path, err)
		}
		p.Requests++
		return resp
	}
	h := read("HEAD")
	h.Body.Close()
	g := read("GET")
	body, err := io.ReadAll(g.Body)
	g.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if h.StatusCode != 200 || g.StatusCode != 200 {
		t.Errorf("HEAD then GET %s: %d, %d; want 200s", path, h.StatusCode, g.StatusCode)
	}
	if cl := h.Header.Get("Content-Length"); wantLength && cl != strconv.Itoa(len(body)) {
		t.Errorf("HEAD %s: Content-Length %q, want the GET body's %d", path, cl, len(body))
	}
	return string(body)
}

// CheckPortInUse runs the jar on a port something else listens on: it must
// exit with status 2 and say why on a line starting with prog, within
// ReadyTimeout.
func CheckPortInUse(t *testing.T, java, jar, prog string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	cmd := exec.Command(java, "-XX:TieredStopAtLevel=1", "-jar", jar, "--port", strconv.Itoa(port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	done := make(chan struct{})
	var out []byte
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(ReadyTimeout):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("--port %d (in use): still running after %v\n%s", port, ReadyTimeout, out)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Errorf("--port %d (in use): %v, want exit status 2\n%s", port, err, out)
	}
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(prog) + `: .*`).Match(out) {
		t.Errorf("--port %d (in use): no line starting with %q:\n%s", port, prog+": ", out)
	}
}
