package loadgen

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"yardstick/loadgen/wsframe"
)

// wsHostileServer accepts connections, answers each upgrade with a valid
// 101 (unless behave writes its own response: then it gets raw=true
// before the handshake), and hands the connection to behave with its
// index. Every connection is closed when the test ends.
func wsHostileServer(t *testing.T, raw bool, behave func(c net.Conn, i int)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	var n atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			i := int(n.Add(1) - 1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				if !raw && !upgrade(c) {
					return
				}
				behave(c, i)
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/ws/heartbeat"
}

// upgrade reads the request and writes a valid 101.
func upgrade(c net.Conn) bool {
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return false
	}
	var acc [wsframe.AcceptLen]byte
	wsframe.Accept(&acc, []byte(req.Header.Get("Sec-WebSocket-Key")))
	_, err = fmt.Fprintf(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n", acc[:])
	return err == nil
}

// runHostile holds n connections for hold against url and checks that the
// run ends on time, whatever the server does.
func runHostile(t *testing.T, url string, n int, hold time.Duration, tweak func(*Hold)) *HoldStep {
	t.Helper()
	h := &Hold{Protocol: "websocket", Steps: []int{n}, OpenRate: 2000, StepHold: Duration(hold),
		Period: Duration(200 * time.Millisecond), HandshakeTimeout: Duration(500 * time.Millisecond)}
	if tweak != nil {
		tweak(h)
	}
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	start := time.Now()
	res, err := Run(context.Background(), Spec{URL: url, Hold: h}, nil)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if limit := time.Duration(float64(n)/h.OpenRate*float64(time.Second)) + hold + time.Second; took > limit {
		t.Errorf("the run took %s, more than %s", took, limit)
	}
	runtime.ReadMemStats(&ms1)
	if grew := int64(ms1.HeapInuse) - int64(ms0.HeapInuse); grew > 32<<20 {
		t.Errorf("the heap grew by %d MiB against a hostile server", grew>>20)
	}
	return &res.Hold.Steps[0]
}

func TestHoldHostileOversized(t *testing.T) {
	url := wsHostileServer(t, false, func(c net.Conn, i int) {
		// a binary frame announcing 1 GiB, then bytes for as long as the client reads
		_, _ = c.Write([]byte{0x82, 127, 0, 0, 0, 0, 0x40, 0, 0, 0})
		junk := make([]byte, 64<<10)
		for {
			if _, err := c.Write(junk); err != nil {
				return
			}
		}
	})
	st := runHostile(t, url, 8, 500*time.Millisecond, nil)
	if st.Dropped != 8 || st.ErrorsByKind["oversized"] != 8 || st.Failure != "dropped" {
		t.Errorf("%+v", st)
	}
}

func TestHoldHostileMalformed(t *testing.T) {
	frames := [][]byte{
		{0x81, 0x81, 1, 2, 3, 4, 'x'},         // masked
		{0xc1, 0x01, 'x'},                     // RSV1
		{0x83, 0x00},                          // reserved opcode
		{0x09, 0x00},                          // fragmented ping
		{0x82, 126, 0, 3, 'a', 'b', 'c'},      // non-minimal length
		{0x81, 0x05, 'h', 'e', 'l', 'l', 'o'}, // not a heartbeat
		{0x81, 0x03, '2', ' ', '1'},           // SEQ 2 first
		{0x01, 0x01, '1'},                     // a fragmented heartbeat
	}
	url := wsHostileServer(t, false, func(c net.Conn, i int) {
		_, _ = c.Write(frames[i%len(frames)])
		_, _ = c.Read(make([]byte, 1)) // until the client closes
	})
	st := runHostile(t, url, len(frames), 500*time.Millisecond, nil)
	if st.Dropped != int64(len(frames)) || st.ErrorsByKind["protocol"] != 5 || st.ErrorsByKind["heartbeat"] != 3 {
		t.Errorf("%+v", st)
	}
}

// TestHoldHostileFlood: a server that floods pongs and pings without ever
// reading: the client answers the pings until its replies no longer fit
// the socket, then drops the connection ("write") rather than queue them.
func TestHoldHostileFlood(t *testing.T) {
	url := wsHostileServer(t, false, func(c net.Conn, i int) {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4096) // a server that reads nothing needs no room for it
		}
		var b []byte
		for len(b) < 64<<10 {
			b = wsframe.AppendServerFrame(b, true, wsframe.OpPing, make([]byte, 125))
		}
		for {
			if _, err := c.Write(b); err != nil {
				return
			}
		}
	})
	st := runHostile(t, url, 4, 2*time.Second, nil)
	if st.Dropped != 4 || st.ErrorsByKind["write"] != 4 {
		t.Errorf("%+v", st)
	}
}

// TestHoldHostilePongFlood: a server that floods pongs (which a client
// ignores) for the whole run and never sends a heartbeat: the run still
// ends on time, every heartbeat is counted missed.
func TestHoldHostilePongFlood(t *testing.T) {
	url := wsHostileServer(t, false, func(c net.Conn, i int) {
		var b []byte
		for len(b) < 64<<10 {
			b = wsframe.AppendServerFrame(b, true, wsframe.OpPong, nil)
		}
		for {
			if _, err := c.Write(b); err != nil {
				return
			}
		}
	})
	st := runHostile(t, url, 4, time.Second, nil)
	if st.Dropped != 0 || st.Heartbeats != 0 || st.Missed < 4*3 || st.Failure != "missed_heartbeats" {
		t.Errorf("%+v", st)
	}
}

// TestHoldHostileCloseHalf: the server closes every other connection at
// once, half with a close frame and half by resetting the TCP connection.
func TestHoldHostileCloseHalf(t *testing.T) {
	var mu sync.Mutex
	var held []net.Conn
	url := wsHostileServer(t, false, func(c net.Conn, i int) {
		if i%2 == 1 {
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
			_, _ = c.Read(make([]byte, 64))
			return
		}
		time.Sleep(300 * time.Millisecond)
		if i%4 == 0 {
			_, _ = c.Write([]byte{0x88, 0x02, 0x03, 0xe9}) // 1001 going away
			_, _ = c.Read(make([]byte, 64))                // the client's close
		} else if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
	})
	st := runHostile(t, url, 40, time.Second, func(h *Hold) { h.Period = Duration(10 * time.Second) })
	if st.Dropped != 20 || st.ErrorsByKind["close_frame"] != 10 || st.ErrorsByKind["closed"] != 10 || st.Held != 20 {
		t.Errorf("%+v", st)
	}
}

func TestHoldHostileHandshake(t *testing.T) {
	silent := wsHostileServer(t, true, func(c net.Conn, i int) { _, _ = c.Read(make([]byte, 4096)); time.Sleep(2 * time.Second) })
	st := runHostile(t, silent, 3, time.Second, nil)
	if st.Refused != 3 || st.ErrorsByKind["handshake_timeout"] != 3 || st.Failure != "refused" {
		t.Errorf("silent: %+v", st)
	}
	wrong := wsHostileServer(t, true, func(c net.Conn, i int) {
		_, _ = c.Read(make([]byte, 4096))
		_, _ = c.Write([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n"))
		_, _ = c.Read(make([]byte, 64))
	})
	st = runHostile(t, wrong, 3, 500*time.Millisecond, nil)
	if st.Refused != 3 || st.ErrorsByKind["handshake"] != 3 {
		t.Errorf("wrong accept: %+v", st)
	}
	endless := wsHostileServer(t, true, func(c net.Conn, i int) {
		_, _ = c.Read(make([]byte, 4096))
		_, _ = c.Write([]byte("HTTP/1.1 101 Switching Protocols\r\n"))
		for {
			if _, err := c.Write([]byte("X-Junk: 0123456789012345678901234567890123456789\r\n")); err != nil {
				return
			}
		}
	})
	st = runHostile(t, endless, 3, 500*time.Millisecond, nil)
	if st.Refused != 3 || st.ErrorsByKind["handshake"] != 3 {
		t.Errorf("endless head: %+v", st)
	}
}

func TestHoldRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/ws/heartbeat"
	ln.Close() // nothing listens there now
	st := runHostile(t, url, 5, 300*time.Millisecond, nil)
	if st.Refused != 5 || st.ErrorsByKind["connect"] != 5 || st.Failure != "refused" {
		t.Errorf("%+v", st)
	}
}

// TestHoldConnSmall: a held connection costs the load generator a fixed
// few dozen bytes besides its socket (a frame split across reads adds a
// buffer bounded by Hold.MaxFrame).
func TestHoldConnSmall(t *testing.T) {
	if n := unsafe.Sizeof(holdConn{}); n > 192 {
		t.Errorf("holdConn is %d bytes", n)
	}
}

func TestHoldSpecRefused(t *testing.T) {
	ok := Hold{Protocol: "websocket", Steps: []int{10, 20}, OpenRate: 100, StepHold: Duration(time.Second)}
	for name, c := range map[string]struct {
		mut  func(s *Spec)
		want string
	}{
		"protocol":   {func(s *Spec) { s.Hold.Protocol = "mqtt" }, "protocol"},
		"http":       {func(s *Spec) { s.Hold.Protocol = "http" }, "not implemented"},
		"steps":      {func(s *Spec) { s.Hold.Steps = []int{20, 10} }, "steps[1]"},
		"rate":       {func(s *Spec) { s.Hold.OpenRate = 0 }, "open_rate"},
		"period":     {func(s *Spec) { s.Hold.Period = Duration(50 * time.Millisecond) }, "period"},
		"too long":   {func(s *Spec) { s.Hold.StepHold = Duration(time.Hour) }, "more than 1h"},
		"req rate":   {func(s *Spec) { s.Rate = 10 }, "do not apply"},
		"conns":      {func(s *Spec) { s.Connections = 5 }, "last step"},
		"off host":   {func(s *Spec) { s.URL = "http://10.1.2.3/ws" }, "loopback"},
		"max_frame":  {func(s *Spec) { s.Hold.MaxFrame = 10 }, "max_frame"},
		"source":     {func(s *Spec) { s.Hold.SourceAddrs = 100 }, "source_addrs"},
		"body":       {func(s *Spec) { s.Body = "x" }, "body"},
		"bad header": {func(s *Spec) { s.Headers = []string{"nocolon"} }, "header"},
	} {
		h := ok
		h.Steps = append([]int(nil), ok.Steps...)
		s := Spec{URL: "http://127.0.0.1:1/ws/heartbeat", Hold: &h}
		c.mut(&s)
		if err := s.Validate(); err == nil || !holdContains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error about %q", name, err, c.want)
		}
	}
	s := Spec{URL: "http://127.0.0.1:1/ws/heartbeat", Hold: &ok}
	if err := s.Validate(); err != nil {
		t.Errorf("a good hold spec: %v", err)
	}
}

func holdContains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestSourceAddrsFor(t *testing.T) {
	for _, c := range []struct{ n, ports, want int }{{100, 28232, 1}, {21174, 28232, 1}, {21175, 28232, 2}, {50000, 28232, 3}, {100000, 28232, 5}} {
		if got := SourceAddrsFor(c.n, c.ports); got != c.want {
			t.Errorf("SourceAddrsFor(%d, %d) = %d, want %d", c.n, c.ports, got, c.want)
		}
	}
	if p, err := EphemeralPorts(); err != nil || p < 1 {
		t.Errorf("EphemeralPorts: %d, %v", p, err)
	}
}

func TestParseHeartbeat(t *testing.T) {
	for in, want := range map[string]bool{"1 1764856800123456789": true, "12 0": true, "0 5": false, "1": false, "1 ": false, " 1 2": false, "1 2 3": false, "1 99999999999999999999": false, "a 1": false} {
		if _, _, ok := parseHeartbeat([]byte(in)); ok != want {
			t.Errorf("%q: ok %v", in, ok)
		}
	}
}

// TestHoldSourceAddrs: connections are spread over the source addresses
// asked for, each bound before its connect.
func TestHoldSourceAddrs(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	url := wsHostileServer(t, false, func(c net.Conn, i int) {
		host, _, _ := net.SplitHostPort(c.RemoteAddr().String())
		mu.Lock()
		seen[host]++
		mu.Unlock()
		_, _ = c.Read(make([]byte, 64))
	})
	st := runHostile(t, url, 9, 300*time.Millisecond, func(h *Hold) { h.SourceAddrs = 3; h.Period = Duration(10 * time.Second) })
	mu.Lock()
	defer mu.Unlock()
	if st.Established != 9 || len(seen) != 3 || seen["127.0.0.1"] != 3 || seen["127.0.0.2"] != 3 || seen["127.0.0.3"] != 3 {
		t.Errorf("established %d, from %v", st.Established, seen)
	}
}

// TestRaiseNoFile: the soft limit goes up to the hard one, and a need
// beyond what the kernel allows fails saying what to raise.
func TestRaiseNoFile(t *testing.T) {
	nf, err := raiseNoFile(64)
	if err != nil || nf.Soft != nf.Hard || nf.Soft < 64 {
		t.Errorf("%+v, %v", nf, err)
	}
	if _, err := raiseNoFile(1 << 40); err == nil || !holdContains(err.Error(), "ulimit -Hn") {
		t.Errorf("an impossible need: %v", err)
	}
}
