package svctest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// GatewayPaths are the requests CheckGateway sends through a gateway, in
// order: fixed bodies of several sizes, a query string, a 404.
var GatewayPaths = []string{
	"/hello",
	"/api/generated/128",
	"/api/generated/0",
	"/api/generated/1048576",
	"/hello?q=1&r=two",
	"/nope",
	"/health",
}

// CheckGateway sends each of GatewayPaths to the upstream directly and
// then through the gateway at gatewayBase, and checks that both answers
// have the same status, body and Content-Length. The upstream must have
// its access log on: its new lines must come in pairs, the direct request
// and the forwarded one with the same path, which proves that the gateway
// forwarded each request rather than answering it itself.
func CheckGateway(t testing.TB, gatewayBase string, up Upstream) {
	t.Helper()
	if up.AccessLog == "" {
		t.Fatal("CheckGateway needs the upstream's access log on")
	}
	before := len(WaitLines(t, up.AccessLog, 0, time.Second))
	direct := &http.Client{Timeout: 10 * time.Second}
	via := &http.Client{Timeout: 10 * time.Second}
	defer direct.CloseIdleConnections()
	defer via.CloseIdleConnections()
	for _, path := range GatewayPaths {
		want := Get(t, direct, up.Base+path)
		got := Get(t, via, gatewayBase+path)
		if got.Status != want.Status || !bytes.Equal(got.Body, want.Body) ||
			got.Header.Get("Content-Length") != want.Header.Get("Content-Length") {
			t.Errorf("GET %s through the gateway: %d, %d bytes, Content-Length %q; upstream: %d, %d bytes, %q",
				path, got.Status, len(got.Body), got.Header.Get("Content-Length"),
				want.Status, len(want.Body), want.Header.Get("Content-Length"))
		}
	}
	lines := WaitLines(t, up.AccessLog, before+2*len(GatewayPaths), 5*time.Second)[before:]
	if len(lines) != 2*len(GatewayPaths) {
		t.Fatalf("upstream logged %d requests, want %d (each path directly, then through the gateway)",
			len(lines), 2*len(GatewayPaths))
	}
	for i, path := range GatewayPaths {
		path, _, _ = strings.Cut(path, "?")
		for _, l := range lines[2*i : 2*i+2] {
			var e struct {
				Path string `json:"path"`
			}
			if err := json.Unmarshal([]byte(l), &e); err != nil || e.Path != path {
				t.Errorf("upstream access log line %q (%v), want path %s", l, err, path)
			}
		}
	}
}

// CheckCaddyLog reads a gateway's access log in the Go gateway's (Caddy's)
// JSON format, which both gateways write: after the readiness requests,
// one line per request of CheckGateway, in order (one connection, one
// request at a time), each with its method, URI, host, status, size,
// duration and headers. base is the gateway's http://127.0.0.1:PORT.
func CheckCaddyLog(t testing.TB, file, base string) {
	t.Helper()
	paths := GatewayPaths
	lines := WaitRequests(t, file, len(paths), func(l string) bool { return strings.Contains(l, `"uri":"/ready"`) },
		5*time.Second)
	if len(lines) != len(paths) {
		t.Fatalf("access log has %d lines for %d requests", len(lines), len(paths))
	}
	for i, l := range lines {
		var e caddyLine
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("access log line %d %q: %v", i+1, l, err)
		}
		wantStatus, wantSize := 200, -1
		switch paths[i] {
		case "/nope":
			wantStatus = 404
		case "/api/generated/128":
			wantSize = 128
		case "/api/generated/1048576":
			wantSize = 1 << 20
		}
		if e.Level != "info" || e.Msg != "handled request" || e.TS < 1e9 || e.Request.RemoteIP != "127.0.0.1" ||
			e.Request.Method != "GET" || e.Request.URI != paths[i] || e.Request.Host != strings.TrimPrefix(base, "http://") ||
			len(e.Request.Headers["User-Agent"]) != 1 || e.Status != wantStatus || (wantSize >= 0 && e.Size != wantSize) ||
			e.Duration <= 0 || len(e.RespHeaders["Content-Length"]) != 1 {
			t.Errorf("access log line %d, want GET %s %d: %s", i+1, paths[i], wantStatus, l)
		}
		if paths[i] == "/api/generated/128" {
			t.Logf("access-log line for GET /api/generated/128: %d bytes", len(l)+1)
		}
	}
}

// caddyLine is what CheckCaddyLog reads of a line of Caddy's access log.
type caddyLine struct {
	Level   string  `json:"level"`
	TS      float64 `json:"ts"`
	Msg     string  `json:"msg"`
	Request struct {
		RemoteIP string              `json:"remote_ip"`
		Method   string              `json:"method"`
		Host     string              `json:"host"`
		URI      string              `json:"uri"`
		Headers  map[string][]string `json:"headers"`
	} `json:"request"`
	Duration    float64             `json:"duration"`
	Size        int                 `json:"size"`
	Status      int                 `json:"status"`
	RespHeaders map[string][]string `json:"resp_headers"`
}
