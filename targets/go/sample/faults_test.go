package sample

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// helperEnv makes the test binary run Main with its arguments instead of
// the tests: TestFaultAffinity needs the server in a process of its own,
// since the fault re-pins every thread of its process.
const helperEnv = "YARDSTICK_SAMPLE_GO_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// varying fields of an access-log line, set to constants so that lines for
// the same request compare byte for byte
var (
	tsField  = regexp.MustCompile(`"ts":"[^"]*"`)
	durField = regexp.MustCompile(`"dur_us":\d+`)
)

func normalizeLogLine(l string) string {
	return durField.ReplaceAllString(tsField.ReplaceAllString(l, `"ts":""`), `"dur_us":0`)
}

type logEntry struct {
	TS     time.Time `json:"ts"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	Status int       `json:"status"`
	Bytes  int       `json:"bytes"`
	DurUS  int64     `json:"dur_us"`
	Pad    string    `json:"pad"`
}

// TestFaultLogPad: with LogPad N every access-log line is exactly N bytes
// longer than the fair server's line for the same request, and still one
// JSON object with the same fields.
func TestFaultLogPad(t *testing.T) {
	t.Parallel()
	logLine := func(pad int, path string) string {
		var buf bytes.Buffer
		h := NewHandler(Config{WorkFactor: 1, AccessLog: &buf, Faults: Faults{LogPad: pad}})
		do(t, h, "GET", path, "")
		l, ok := strings.CutSuffix(buf.String(), "\n")
		if !ok || strings.Contains(l, "\n") {
			t.Fatalf("pad %d: want one line, got %q", pad, buf.String())
		}
		return l
	}
	for _, path := range []string{"/api/generated/128", "/hello", "/nope"} {
		fair := logLine(0, path)
		// 858 is the gap of docs/methodology.md#duties: 1108 vs 250 bytes/request
		for _, n := range []int{0, 1, 8, 9, 10, 858} {
			got := logLine(n, path)
			if d := len(normalizeLogLine(got)) - len(normalizeLogLine(fair)); d != n {
				t.Errorf("%s pad %d: line grew by %d bytes\nfair   %s\nfaulty %s", path, n, d, fair, got)
			}
			var f, g logEntry
			if err := json.Unmarshal([]byte(fair), &f); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(got), &g); err != nil {
				t.Errorf("%s pad %d: not JSON: %v: %s", path, n, err, got)
				continue
			}
			if g.Path != f.Path || g.Status != f.Status || g.Bytes != f.Bytes || g.Method != f.Method {
				t.Errorf("%s pad %d: fields differ: %+v vs fair %+v", path, n, g, f)
			}
			if n >= padSyntax && len(g.Pad) != n-padSyntax {
				t.Errorf("%s pad %d: pad field has %d bytes", path, n, len(g.Pad))
			}
		}
	}
}

// TestFaultStatic: with Static the two parameterised endpoints repeat the
// first body they sent whatever the parameter; without it they vary.
func TestFaultStatic(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		first, second, bad string
	}{
		{"/api/generated/7", "/api/generated/128", "/api/generated/-1"},
		{"/api/strings/abc", "/api/strings/xyz", "/api/strings/"},
	} {
		fair := NewHandler(Config{WorkFactor: 2})
		faulty := NewHandler(Config{WorkFactor: 2, Faults: Faults{Static: true}})
		f1, f2 := do(t, fair, "GET", tc.first, ""), do(t, fair, "GET", tc.second, "")
		if f1.Code != 200 || f2.Code != 200 || f1.Body.String() == f2.Body.String() {
			t.Errorf("fair %s and %s: %d %s / %d %s, want two different 200s", tc.first, tc.second, f1.Code, f1.Body, f2.Code, f2.Body)
		}
		s1, s2 := do(t, faulty, "GET", tc.first, ""), do(t, faulty, "GET", tc.second, "")
		if s1.Code != 200 || s1.Body.String() != f1.Body.String() {
			t.Errorf("static %s: first answer %d %s, want the fair one %s", tc.first, s1.Code, s1.Body, f1.Body)
		}
		if s2.Code != 200 || s2.Body.String() != s1.Body.String() {
			t.Errorf("static %s after %s: %d %s, want the first answer again %s", tc.second, tc.first, s2.Code, s2.Body, s1.Body)
		}
		// whatever the parameter: not even parsed once the body is remembered
		if s3 := do(t, faulty, "GET", tc.bad, ""); tc.bad == "/api/generated/-1" && (s3.Code != 200 || s3.Body.String() != s1.Body.String()) {
			t.Errorf("static %s: %d %s, want the first answer", tc.bad, s3.Code, s3.Body)
		}
	}
	// other endpoints are untouched
	faulty := NewHandler(Config{Faults: Faults{Static: true}})
	if a, b := do(t, faulty, "GET", "/api/sleep/0", ""), do(t, faulty, "GET", "/api/sleep/1", ""); a.Body.String() == b.Body.String() {
		t.Errorf("static fault reached /api/sleep: %s", a.Body)
	}
	// errors before the first 200 are not remembered
	faulty = NewHandler(Config{Faults: Faults{Static: true}})
	if r := do(t, faulty, "GET", "/api/generated/x", ""); r.Code != 400 {
		t.Errorf("static, first request bad: %d", r.Code)
	}
	if r := do(t, faulty, "GET", "/api/generated/3", ""); r.Code != 200 || !strings.HasPrefix(r.Body.String(), `{"length":3,`) {
		t.Errorf("static, first good request: %d %s", r.Code, r.Body)
	}
}

// TestFaultHeaderPad: every response carries an X-Pad header of exactly N
// bytes, and the body is the fair one.
func TestFaultHeaderPad(t *testing.T) {
	t.Parallel()
	fair := NewHandler(Config{WorkFactor: 2})
	faulty := NewHandler(Config{WorkFactor: 2, Faults: Faults{HeaderPad: 300}})
	for _, path := range []string{"/hello", "/api/strings/abc", "/api/generated/7", "/api/generated/x"} {
		f, p := do(t, fair, "GET", path, ""), do(t, faulty, "GET", path, "")
		if f.Header().Get("X-Pad") != "" {
			t.Errorf("fair %s has an X-Pad header", path)
		}
		if got := len(p.Header().Get("X-Pad")); got != 300 {
			t.Errorf("%s: X-Pad of %d bytes, want 300", path, got)
		}
		if p.Code != f.Code || p.Body.String() != f.Body.String() {
			t.Errorf("%s: header pad changed the answer: %d %s vs %d %s", path, p.Code, p.Body, f.Code, f.Body)
		}
	}
}

// TestFaultWarmup: a request right after start costs close to WarmupCost
// more CPU than one after the warm-up, and the answer is the fair one.
func TestFaultWarmup(t *testing.T) {
	const warmup = 300 * time.Millisecond
	faulty := NewHandler(Config{WorkFactor: 1, Faults: Faults{Warmup: warmup}})
	over := time.Now().Add(warmup) // the warm-up started before this
	fair := NewHandler(Config{WorkFactor: 1})
	took := func(h http.Handler) (time.Duration, string) {
		start := time.Now()
		r := do(t, h, "GET", "/api/strings/abc", "")
		return time.Since(start), r.Body.String()
	}
	early, body := took(faulty)
	if _, want := took(fair); body != want {
		t.Errorf("warm-up changed the answer: %s vs %s", body, want)
	}
	if early < WarmupCost/2 {
		t.Errorf("a request at the start took %s, want about %s more than a fair one", early, WarmupCost)
	}
	// Past the warm-up's end (a clock time, not a margin), the fastest of
	// five requests (one may be preempted on a busy machine) has no extra
	// cost.
	time.Sleep(time.Until(over))
	late := time.Hour
	for range 5 {
		d, _ := took(faulty)
		late = min(late, d)
	}
	if late > WarmupCost/2 {
		t.Errorf("a request after the warm-up took %s, want no extra cost", late)
	}
}

// TestFaultClose: a raw client on one connection. With Close the first
// response carries Connection: close and the server then closes the
// connection, so the second request gets EOF (or a reset); the fair server
// keeps it open and answers the second request.
func TestFaultClose(t *testing.T) {
	t.Parallel()
	for _, faulty := range []bool{false, true} {
		srv := httptest.NewServer(NewHandler(Config{WorkFactor: 1, Faults: Faults{Close: faulty}}))
		defer srv.Close()
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		br := bufio.NewReader(c)
		const req = "GET /api/generated/16 HTTP/1.1\r\nHost: x\r\n\r\n"
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("close=%v: first request: %v", faulty, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		// ReadResponse moves a Connection: close header into resp.Close
		if resp.Close != faulty || resp.StatusCode != 200 {
			t.Errorf("close=%v: status %d, Connection: close %v", faulty, resp.StatusCode, resp.Close)
		}
		// is the connection still open? The fair server keeps it idle (the
		// read times out); the faulty one closes it (EOF).
		wait := 200 * time.Millisecond
		if faulty {
			wait = 5 * time.Second
		}
		c.SetReadDeadline(time.Now().Add(wait))
		_, err = br.Peek(1)
		var ne net.Error
		switch {
		case faulty && !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET):
			t.Errorf("close=true: after the first response the connection reads %v, want EOF", err)
		case !faulty && !(errors.As(err, &ne) && ne.Timeout()):
			t.Errorf("close=false: after the first response the connection reads %v, want it open and idle", err)
		}
		c.SetReadDeadline(time.Time{})

		_, werr := io.WriteString(c, req)
		resp, err = http.ReadResponse(br, nil)
		if faulty {
			if werr == nil && err == nil {
				t.Errorf("close=true: second request on the same connection answered %d", resp.StatusCode)
			}
			continue
		}
		if werr != nil || err != nil {
			t.Fatalf("close=false: second request: %v %v", werr, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("close=false: second request: %d", resp.StatusCode)
		}
	}
}

// TestRunFaultFlags: the switches reach the server through flags and
// environment variables of Main.
func TestRunFaultFlags(t *testing.T) {
	t.Setenv("FAULT_CLOSE", "true") // not parallel: Setenv
	logPath := filepath.Join(t.TempDir(), "access.log")
	addr, stop := startRun(t, "-port", "0", "-access-log", logPath, "-fault-log-pad", "100", "-fault-static")
	client := &http.Client{Timeout: 10 * time.Second}
	var bodies []string
	for _, p := range []string{"/api/generated/7", "/api/generated/128"} {
		resp, err := client.Get("http://" + addr + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		bodies = append(bodies, string(b))
		if !resp.Close {
			t.Errorf("%s: response without Connection: close ($FAULT_CLOSE)", p)
		}
	}
	if bodies[0] != bodies[1] {
		t.Errorf("-fault-static: bodies differ: %q", bodies)
	}
	stop()
	b, _ := os.ReadFile(logPath)
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e logEntry
		if err := json.Unmarshal([]byte(l), &e); err != nil || len(e.Pad) != 100-padSyntax {
			t.Errorf("-fault-log-pad 100: line %s: %v", l, err)
		}
	}
	for _, args := range [][]string{{"-fault-log-pad", "-1"}, {"-fault-log-pad", "2000000"}, {"-fault-affinity", "x"}, {"-fault-affinity", "3-1"}} {
		if err := run(context.Background(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

// cpusAllowed reads Cpus_allowed_list from a /proc status file.
func cpusAllowed(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("%s: no Cpus_allowed_list", path)
}

// TestFaultAffinity runs the server in a process of its own (this test
// binary, as Main) with -fault-affinity set to the first CPU this test may
// use, makes it start threads with concurrent requests, and reads back
// Cpus_allowed_list of every one of its threads: all must be that CPU. Its
// fair twin's threads keep the placement they were started with (this
// test's own).
func TestFaultAffinity(t *testing.T) {
	t.Parallel()
	var mine unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mine); err != nil {
		t.Fatal(err)
	}
	first := -1
	for c := 0; c < len(mine)*64; c++ {
		if mine.IsSet(c) {
			first = c
			break
		}
	}
	if first < 0 {
		t.Fatal("this process may run on no CPU")
	}
	inherited, err := cpusAllowed("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, faulty := range []bool{false, true} {
		args := []string{"-port", "0"}
		want := inherited
		if faulty {
			want = fmt.Sprint(first)
			args = append(args, "-fault-affinity", want)
		}
		pid, threads := runHelper(t, args)
		t.Logf("fault=%v: %d threads of pid %d", faulty, threads, pid)
		status, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
		if len(status) < 2 {
			t.Fatalf("fault=%v: %d threads", faulty, len(status))
		}
		for _, f := range status {
			got, err := cpusAllowed(f)
			if errors.Is(err, os.ErrNotExist) {
				continue // the thread has exited
			}
			if err != nil || got != want {
				t.Errorf("fault=%v: %s: Cpus_allowed_list %q (%v), want %q", faulty, f, got, err, want)
			}
		}
	}
	if inherited == fmt.Sprint(first) {
		t.Logf("this test may only use CPU %s: the fair twin cannot differ from the faulty one here", inherited)
	}
}

// runHelper starts this test binary as the sample service with args, sends
// it concurrent requests (so that its runtime starts more threads), and
// returns its pid while it still runs and how many threads it has; it is
// stopped when the test ends.
func runHelper(t *testing.T, args []string) (pid, threads int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("sample %q: %v\n%s", args, err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("sample %q: still running 10s after SIGTERM", args)
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("sample %q: %v\n%s", args, err, stderr.String())
	}
	addr := strings.TrimSpace(strings.TrimPrefix(line, "sample-go listening on "))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			resp, err := http.Get("http://" + addr + "/api/generated/65536")
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	}
	wg.Wait()
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", cmd.Process.Pid))
	return cmd.Process.Pid, len(ents)
}
