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
