package sample

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// dialHeartbeat connects to the heartbeat endpoint with
// github.com/coder/websocket, an independent client implementation.
func dialHeartbeat(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func TestHeartbeatSchedule(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(NewHandler(Config{AccessLog: &bytes.Buffer{}}))
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws/heartbeat?period_ms=100"
	c := dialHeartbeat(t, url)
	up := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for seq := int64(1); seq <= 5; seq++ {
		typ, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		recv := time.Now()
		f := strings.Fields(string(msg))
		if typ != websocket.MessageText || len(f) != 2 || f[0] != strconv.FormatInt(seq, 10) {
			t.Fatalf("heartbeat %d: %v %q", seq, typ, msg)
		}
		sent, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || sent > recv.UnixNano() || recv.UnixNano()-sent > int64(50*time.Millisecond) {
			t.Errorf("heartbeat %d: SENT_NS %s, received at %d", seq, f[1], recv.UnixNano())
		}
		// due at upgrade + seq*period: never early, and on time on an idle host
		due := up.Add(time.Duration(seq) * 100 * time.Millisecond)
		if d := recv.Sub(due); d < -10*time.Millisecond || d > 60*time.Millisecond {
			t.Errorf("heartbeat %d: %s from its due time", seq, d)
		}
	}
	// a ping is answered (Ping waits for the pong, which a reader must
	// take in) while pushes go on
	go func() {
		for {
			if _, _, err := c.Read(ctx); err != nil {
				return
			}
		}
	}()
	if err := c.Ping(ctx); err != nil {
		t.Errorf("ping: %v", err)
	}
	if err := c.Close(websocket.StatusNormalClosure, "bye"); err != nil && !strings.Contains(err.Error(), "already wrote close") {
		t.Errorf("close handshake: %v", err)
	}
}

func TestHeartbeatRefusesBadRequests(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(NewHandler(Config{}))
	defer srv.Close()
	for _, q := range []string{"?period_ms=99", "?period_ms=600001", "?period_ms=x", "?period_ms=1.5"} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/ws/heartbeat"+q, nil)
		cancel()
		if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %v %v", q, err, resp)
		}
	}
	resp, err := http.Get(srv.URL + "/ws/heartbeat") // no upgrade
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("plain GET: %d", resp.StatusCode)
	}
}

// TestHeartbeatClosesBadClients: an unmasked client frame and an
// oversized one end the connection with a close frame.
func TestHeartbeatClosesBadClients(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(NewHandler(Config{}))
	defer srv.Close()
	for name, frame := range map[string][]byte{
		"unmasked":  {0x81, 0x01, 'x'},
		"huge":      {0x82, 0xff, 0, 0, 0, 1, 0, 0, 0, 0, 1, 2, 3, 4},
		"long ping": append([]byte{0x89, 0xfe, 0, 200, 1, 2, 3, 4}, make([]byte, 200)...),
	} {
		c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = c.Write([]byte("GET /ws/heartbeat HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"))
		_, _ = c.Write(frame)
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		var all []byte
		buf := make([]byte, 512)
		for {
			n, err := c.Read(buf)
			all = append(all, buf[:n]...)
			if err != nil {
				break
			}
		}
		c.Close()
		if !bytes.Contains(all, []byte("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")) || !bytes.Contains(all, []byte{0x88, 0x02}) {
			t.Errorf("%s: the server answered %q, want a 101 then a close frame", name, all)
		}
	}
}
