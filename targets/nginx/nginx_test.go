//go:build frameworks

// Package nginx_test checks targets/nginx, the nginx upstream of the
// gateway experiments: run.sh renders its config and starts the real nginx
// (Debian's package) on a free loopback port; the tests check the bodies it
// serves, the access-log switch, the worker processes and SIGTERM. A
// missing nginx fails them with how to install it.
package nginx_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"yardstick/targets/internal/svctest"
)

func TestServes(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "access.log")
	up := svctest.Nginx(t, svctest.NginxOptions{Workers: 2, AccessLog: logFile})
	t.Logf("exec to first 200 on /ready: %v", time.Since(up.Started).Round(time.Millisecond))
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()

	var paths []string
	get := func(path string) svctest.Reply {
		paths = append(paths, path)
		return svctest.Get(t, client, up.Base+path)
	}
	for _, path := range []string{"/health", "/ready"} {
		r := get(path)
		if r.Status != 200 || string(r.Body) != `{"status":"UP"}` || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s: %d %q %q", path, r.Status, r.Header.Get("Content-Type"), r.Body)
		}
	}
	r := get("/hello")
	if r.Status != 200 || string(r.Body) != "Hello, World!" || r.Header.Get("Content-Length") != "13" {
		t.Errorf("GET /hello: %d %q (Content-Length %q)", r.Status, r.Body, r.Header.Get("Content-Length"))
	}
	// every default size, exactly that many bytes of the fixed text
	line := "The quick brown fox jumps over the lazy dog 0123456789 abcdefgh\n"
	text := strings.Repeat(line, (1<<20)/len(line))
	for _, size := range []int{0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
		32768, 65536, 131072, 262144, 524288, 1048576, 10, 100, 1000, 10000, 100000, 1000000} {
		r := get("/api/generated/" + strconv.Itoa(size))
		if r.Status != 200 || !bytes.Equal(r.Body, []byte(text[:size])) ||
			r.Header.Get("Content-Length") != strconv.Itoa(size) {
			t.Errorf("GET /api/generated/%d: %d, %d bytes (Content-Length %q), want 200 and %d bytes of the text",
				size, r.Status, len(r.Body), r.Header.Get("Content-Length"), size)
		}
	}
	for _, path := range []string{"/api/generated/129", "/api/generated/-1", "/api/generated/x", "/nope", "/"} {
		if r := get(path); r.Status != 404 {
			t.Errorf("GET %s: %d, want 404", path, r.Status)
		}
	}

	// the access log: one JSON line per request, the samples' fields
	// (one connection, one request at a time: the lines are in order)
	lines := svctest.WaitRequests(t, logFile, len(paths),
		func(l string) bool { return strings.Contains(l, `"path":"/ready"`) }, 5*time.Second)
	if len(lines) != len(paths) {
		t.Fatalf("access log has %d lines for %d requests", len(lines), len(paths))
	}
	for i, l := range lines {
		var e struct {
			TS     string   `json:"ts"`
			Method string   `json:"method"`
			Path   string   `json:"path"`
			Status int      `json:"status"`
			Bytes  int      `json:"bytes"`
			DurS   *float64 `json:"dur_s"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("access log line %d %q: %v", i+1, l, err)
		}
		if e.Method != "GET" || e.Path != paths[i] || e.Status == 0 || e.TS == "" || e.DurS == nil {
			t.Errorf("access log line %d %q, want GET %s", i+1, l, paths[i])
		}
	}
	t.Logf("access-log line for GET /health: %d bytes", len(lines[0])+1)

	// worker_processes 2: two worker children of the master
	if n := workers(t, up.Pid()); n != 2 {
		t.Errorf("%d worker processes, want 2", n)
	}

	code, took := up.Stop(t, 5*time.Second)
	if code != 0 {
		t.Errorf("exit status after SIGTERM: %d, want 0\n%s", code, up.Output)
	}
	if n := workers(t, up.Pid()); n != 0 {
		t.Errorf("%d worker processes left after the master exited", n)
	}
	t.Logf("SIGTERM to exit: %v", took.Round(time.Millisecond))
}

// workers counts the processes whose parent is pid and whose command line
// is nginx's worker title.
func workers(t *testing.T, pid int) int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range stats {
		b, err := os.ReadFile(s)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		rest := string(b[bytes.LastIndexByte(b, ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 2 || f[1] != strconv.Itoa(pid) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(s), "cmdline"))
		if strings.HasPrefix(string(cmdline), "nginx: worker process") {
			n++
		}
	}
	return n
}

func TestAccessLogOff(t *testing.T) {
	up := svctest.Nginx(t, svctest.NginxOptions{})
	for range 3 {
		if r := svctest.Get(t, nil, up.Base+"/hello"); r.Status != 200 {
			t.Fatalf("GET /hello: %d", r.Status)
		}
	}
	// the config says access_log off, and nginx's prefix directory holds
	// no file but the config, the pid file and the (empty) error log
	conf, err := os.ReadFile(filepath.Join(up.Dir, "nginx.conf"))
	if err != nil || !strings.Contains(string(conf), "\taccess_log off;\n") {
		t.Errorf("nginx.conf has no 'access_log off;' (%v)", err)
	}
	entries, err := os.ReadDir(up.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() && !slices.Contains([]string{"nginx.conf", "nginx.pid", "error.log"}, e.Name()) {
			t.Errorf("%s in nginx's directory with the access log off", e.Name())
		}
	}
	if n := workers(t, up.Pid()); n != 1 {
		t.Errorf("%d worker processes, want run.sh's default 1", n)
	}
}

func TestBadSwitches(t *testing.T) {
	run := filepath.Join(svctest.RepoRoot(t), "targets/nginx/run.sh")
	for _, args := range [][]string{
		{"--port", "18090"}, // no --dir
		{"--dir", t.TempDir()},
		{"--dir", t.TempDir(), "--port", "0"},
		{"--dir", t.TempDir(), "--port", "65536"},
		{"--dir", t.TempDir(), "--port", "x"},
		{"--dir", t.TempDir(), "--port", "18090", "--workers", "0"},
		{"--dir", t.TempDir(), "--port", "18090", "--sizes", "1 2 1048577"},
		{"--dir", t.TempDir(), "--port", "18090", "--access-log", "a b"},
		{"--dir", t.TempDir(), "--port", "18090", "--bogus"},
		{"--dir", t.TempDir(), "--port"},
	} {
		p := svctest.Start(t, "run.sh", nil, append([]string{run}, args...)...)
		if code := p.Wait(t, 5*time.Second); code != 2 || !strings.Contains(p.Output.String(), "Usage:") {
			t.Errorf("run.sh %q: exit %d, want 2 with the usage:\n%s", args, code, p.Output)
		}
	}
}
