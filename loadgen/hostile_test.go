package loadgen

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// hostileServer listens on loopback and hands every connection, once its
// first request has arrived, to misbehave. It counts the bytes misbehave
// wrote through the returned counter, and at cleanup closes the listener
// and every connection and waits for its goroutines.
func hostileServer(t *testing.T, misbehave func(c net.Conn, wrote *atomic.Int64)) (url string, wrote *atomic.Int64) {
	t.Helper()
	return hostileServerOn(t, net.ListenConfig{}, misbehave)
}

// hostileServerOn is hostileServer with a listener made by lc.
func hostileServerOn(t *testing.T, lc net.ListenConfig, misbehave func(c net.Conn, wrote *atomic.Int64)) (url string, wrote *atomic.Int64) {
	t.Helper()
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	wrote = new(atomic.Int64)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
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
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				var req []byte
				buf := make([]byte, 4096)
				for !bytes.Contains(req, []byte("\r\n\r\n")) {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					req = append(req, buf[:n]...)
				}
				misbehave(c, wrote)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "http://" + ln.Addr().String() + "/", wrote
}

// writeForever writes prefix, then chunk again and again, every gap,
// until the connection fails (the load generator closed it, or cleanup).
func writeForever(c net.Conn, wrote *atomic.Int64, prefix, chunk []byte, gap time.Duration) {
	n, err := c.Write(prefix)
	wrote.Add(int64(n))
	if err != nil {
		return
	}
	for {
		n, err := c.Write(chunk)
		wrote.Add(int64(n))
		if err != nil {
			return
		}
		if gap > 0 {
			time.Sleep(gap)
		}
	}
}

// heapPeak samples the live heap every millisecond until stop is closed
// and returns the largest value seen. runtime/metrics reads it without
// stopping the world.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// TestHostileTargets runs the load generator against targets that break
// HTTP in the ways a broken or hostile server can. Every run must end by
// its bounds with no complete response, the misbehaviour counted as the
// right kind of error, and the load generator's live heap bounded
// whatever the target sent. Not parallel: the heap is measured alone.
func TestHostileTargets(t *testing.T) {
	const (
		duration = 1500 * time.Millisecond
		timeout  = 300 * time.Millisecond
		heapMax  = 64 << 20 // far above the run's own needs, far below what is sent
	)
	okHead := []byte("HTTP/1.1 200 OK\r\n")
	cases := []struct {
		name      string
		misbehave func(c net.Conn, wrote *atomic.Int64)
		maxReqs   int64    // bounds a target that makes the load generator reconnect at once
		kinds     []string // the error kinds a failed request may have
		minSent   int64    // the load generator must read at least this much for the heap bound to mean something
	}{
		{
			// headers that never end: the header bound cuts each one off
			name: "endless headers",
			misbehave: func(c net.Conn, w *atomic.Int64) {
				writeForever(c, w, okHead, bytes.Repeat([]byte("X-Endless: yes\r\n"), 256), 0)
			},
			maxReqs: 40, kinds: []string{"parse"}, minSent: 40 * MaxResponseHead,
		},
		{
			// a chunked body that never ends, as fast as loopback goes: the
			// request timeout (or the body bound) ends each one
			name: "endless chunked body",
			misbehave: func(c net.Conn, w *atomic.Int64) {
				chunk := append([]byte("8000\r\n"), bytes.Repeat([]byte("b"), 0x8000)...)
				writeForever(c, w, []byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), append(chunk, "\r\n"...), 0)
			},
			kinds: []string{"timeout", "parse"}, minSent: 4 * heapMax,
		},
		{
			// a valid response, one byte at a time, forever: the timeout
			// runs from the send, so trickling bytes do not extend it
			name: "trickling bytes",
			misbehave: func(c net.Conn, w *atomic.Int64) {
				writeForever(c, w, []byte("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n"), []byte("t"), 10*time.Millisecond)
			},
			kinds: []string{"timeout"},
		},
		{
			// fewer body bytes than promised, then the close
			name: "short body then close",
			misbehave: func(c net.Conn, w *atomic.Int64) {
				n, _ := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this"))
				w.Add(int64(n))
			},
			maxReqs: 200, kinds: []string{"short_read"},
		},
		{
			// not HTTP at all
			name: "garbage",
			misbehave: func(c net.Conn, w *atomic.Int64) {
				writeForever(c, w, []byte("\x00\xffSSH-2.0-nonsense\r\n"), bytes.Repeat([]byte{0xde, 0xad, '\r', '\n'}, 1024), time.Millisecond)
			},
			maxReqs: 200, kinds: []string{"parse"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url, wrote := hostileServer(t, c.misbehave)
			spec := Spec{URL: url, Connections: 2, Workers: 1, Duration: Duration(duration), Timeout: Duration(timeout), MaxRequests: c.maxReqs}
			stop := make(chan struct{})
			peak := heapPeak(stop)
			start := time.Now()
			res, err := Run(context.Background(), spec, nil)
			elapsed := time.Since(start)
			close(stop)
			heap := <-peak
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d sends, errors %v, %d response bytes read, target wrote %d, %s, live heap peak %.1f MiB",
				c.name, res.Sends, res.ErrorsByKind, res.ResponseBytes, wrote.Load(), elapsed.Round(time.Millisecond), float64(heap)/(1<<20))
			if elapsed > duration+2*time.Second {
				t.Errorf("run took %s; bounded by %s", elapsed, duration)
			}
			if res.Requests != 0 {
				t.Errorf("%d complete responses from a target that never sent one", res.Requests)
			}
			// every request sent failed as expected, or was still out at the end
			var failed int64
			for _, k := range c.kinds {
				failed += res.ErrorsByKind[k]
			}
			if failed == 0 || failed+res.Incomplete != res.Sends {
				t.Errorf("%d sends, %d incomplete, errors %v: want every other send to fail as %v", res.Sends, res.Incomplete, res.ErrorsByKind, c.kinds)
			}
			if heap > heapMax {
				t.Errorf("live heap peaked at %d bytes, bound %d", heap, heapMax)
			}
			if res.ResponseBytes < c.minSent {
				t.Errorf("the load generator read only %d bytes, want more than %d for the heap bound to show anything", res.ResponseBytes, c.minSent)
			}
		})
	}
}

// TestEarlyResponse: a target that answers before it has read the whole
// request, as a server refusing a large upload does (413, 401). Whether the
// answer arrives before or after the load generator has written the last
// byte depends on the kernel's socket buffers and on scheduling, so each
// case is built to hold either way:
//
//   - "closes": net/http answers 413 without reading the 32 MiB body and
//     closes the connection (Connection: close); every request is answered
//     on its own connection.
//   - "drains": net/http answers 413 at once, then reads and discards the
//     body (full duplex) and keeps the connection; every request is
//     answered, on as many connections as the timing gave (1 to 5).
//   - "never reads": a server with a small receive buffer answers 413 and
//     never reads the body, so the load generator is still writing when
//     the answer comes: it must stop writing and replace the connection
//     rather than reuse it with a half-written request in it (reusing it
//     would wait for an answer that never comes).
//
// In every case the run must end with exactly the 5 answers, no timeout or
// other error, long before its 10 s bound.
func TestEarlyResponse(t *testing.T) {
	t.Parallel()
	const sends = 5
	run := func(t *testing.T, url string) {
		t.Helper()
		start := time.Now()
		res, err := Run(context.Background(), Spec{URL: url, Method: "POST", Body: "{payload_text}", Payload: 32 << 20,
			Connections: 1, Duration: Duration(10 * time.Second), Timeout: Duration(10 * time.Second), MaxRequests: sends}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests != sends || res.ErrorsByKind["status_4xx"] != sends || res.Errors != sends {
			t.Errorf("%d responses, errors %v after %s: want %d 413s and no other error",
				res.Requests, res.ErrorsByKind, time.Since(start).Round(time.Millisecond), sends)
		}
	}
	t.Run("closes", func(t *testing.T) {
		t.Parallel()
		url, conns := earlyServer(t, false)
		run(t, url)
		if n := conns.Load(); n != sends {
			t.Errorf("%d connections: want %d, one per request (each 413 closes its connection)", n, sends)
		}
	})
	t.Run("drains", func(t *testing.T) {
		t.Parallel()
		url, conns := earlyServer(t, true)
		run(t, url)
		if n := conns.Load(); n < 1 || n > sends {
			t.Errorf("%d connections: want 1 to %d", n, sends)
		}
	})
	t.Run("never reads", func(t *testing.T) {
		t.Parallel()
		// A 64 KiB receive buffer set on the listener (and so on every
		// accepted socket, without autotuning) bounds what the load
		// generator can write before it must wait: its own send buffer
		// (tcp_wmem's maximum) plus this, far below the 32 MiB request.
		if max := tcpWmemMax(t); max >= 16<<20 {
			t.Fatalf("tcp_wmem allows a %d-byte send buffer: the 32 MiB request could be written whole before the answer", max)
		}
		lc := net.ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error {
			var serr error
			err := rc.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 64<<10) })
			return errors.Join(err, serr)
		}}
		release := make(chan struct{})
		var accepted atomic.Int64
		url, _ := hostileServerOn(t, lc, func(c net.Conn, w *atomic.Int64) {
			accepted.Add(1)
			n, _ := c.Write([]byte("HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\n\r\n"))
			w.Add(int64(n))
			<-release // hold the connection, unread, until the test ends
		})
		t.Cleanup(func() { close(release) }) // runs before hostileServerOn's cleanup
		run(t, url)
		if n := accepted.Load(); n != sends {
			t.Errorf("%d connections answered: want %d, one per request", n, sends)
		}
	})
}

// earlyServer is a net/http server that answers every request 413 before
// reading its body. With drain it then reads and discards the body and
// keeps the connection (full duplex); without it, net/http closes the
// connection rather than read an unread body that large. It counts the
// connections it accepted.
func earlyServer(t *testing.T, drain bool) (string, *atomic.Int64) {
	t.Helper()
	conns := new(atomic.Int64)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if drain {
			if err := rc.EnableFullDuplex(); err != nil {
				t.Error(err)
			}
		}
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		if err := rc.Flush(); err != nil {
			return
		}
		if drain {
			_, _ = io.Copy(io.Discard, r.Body)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL + "/", conns
}

// tcpWmemMax reads the largest send buffer TCP autotuning may give a socket.
func tcpWmemMax(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_wmem")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) != 3 {
		t.Fatalf("tcp_wmem: %q", b)
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		t.Fatalf("tcp_wmem: %v", err)
	}
	return n
}
