package svctest

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// Reply is an HTTP answer read whole.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends one request with a 10 s time-out and reads the whole answer.
func Do(t testing.TB, client *http.Client, method, url, contentType string, body []byte) Reply {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
		defer client.CloseIdleConnections()
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	return Reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Get is Do with GET and no body.
func Get(t testing.TB, client *http.Client, url string) Reply {
	t.Helper()
	return Do(t, client, http.MethodGet, url, "", nil)
}

// Spread sends one GET to url on each of n new connections, all open at
// once, so that a server handing connections round-robin to its event
// loops (Reactor Netty, nginx with reuseport) puts work on every loop.
// Each answer must be 200.
func Spread(t testing.TB, url string, n int) {
	t.Helper()
	clients := make([]*http.Client, n)
	for i := range clients {
		clients[i] = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
	}
	defer func() {
		for _, c := range clients {
			c.CloseIdleConnections()
		}
	}()
	for _, c := range clients { // connections stay open: idle in each transport
		if r := Get(t, c, url); r.Status != http.StatusOK {
			t.Fatalf("GET %s: status %d", url, r.Status)
		}
	}
}

// WaitLines waits at most d for file to hold at least n lines and returns
// its lines.
func WaitLines(t testing.TB, file string, n int, d time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		b, err := os.ReadFile(file)
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if len(b) == 0 {
			lines = nil
		}
		if err == nil && len(lines) >= n {
			return lines
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d lines after %v, want %d (%v)", file, len(lines), d, n, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitRequests waits at most d for file to hold n lines after the leading
// ones that readiness probes left (those for which isReady is true: the
// probe's 200, and probes that timed out while the server was starting but
// were answered later), and returns those n or more lines. It fails the
// test when no readiness line leads the file.
func WaitRequests(t testing.TB, file string, n int, isReady func(line string) bool, d time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		lines := WaitLines(t, file, 0, d)
		k := 0
		for k < len(lines) && isReady(lines[k]) {
			k++
		}
		if k > 0 && len(lines)-k >= n {
			return lines[k:]
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d lines, want readiness lines then %d: %q", file, len(lines), n, lines)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
