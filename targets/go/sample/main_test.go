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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	logPath := filepath.Join(t.TempDir(), "access.log")
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"-port", "0", "-nodelay=false", "-access-log", logPath, "-work-factor", "2"}, pw, io.Discard)
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimSpace(strings.TrimPrefix(line, "sample-go listening on "))
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
	cancel() // what SIGTERM does
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(logPath)
	if err != nil || !strings.Contains(string(b), `"path":"/hello"`) {
		t.Errorf("access log %q: %v", b, err)
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
