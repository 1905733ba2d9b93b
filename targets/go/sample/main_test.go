package sample

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunServesAndShutsDown(t *testing.T) {
	t.Parallel()
	logPath := filepath.Join(t.TempDir(), "access.log")
	addr, stop := startRun(t, "-port", "0", "-nodelay=false", "-access-log", logPath, "-work-factor", "2")
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("listening on %q, want loopback", addr)
	}
	resp, err := http.Get("http://" + addr + "/hello")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "Hello, World!" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	stop()
	b, err := os.ReadFile(logPath)
	if err != nil || !strings.Contains(string(b), `"path":"/hello"`) {
		t.Errorf("access log %q: %v", b, err)
	}
}

// startRun runs Main's run with args in a goroutine and returns the
// address it says it listens on, and stop, which cancels it (what SIGTERM
// does) and fails the test when run returned an error. The test's end
// stops it too.
func startRun(t *testing.T, args ...string) (addr string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pr, pw := io.Pipe()
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, args, pw, io.Discard) }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(strings.TrimPrefix(line, "sample-go listening on ")), func() {
		cancel()
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
}

func TestRunBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-work-factor", "0"}, {"-port", "-1"}, {"extra"}, {"-nope"}} {
		if err := run(context.Background(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
