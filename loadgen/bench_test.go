package loadgen

import (
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// rawServer is a loopback HTTP/1.1 server that answers every request with
// a canned response. It allocates nothing per request, so a benchmark
// that counts allocations counts the load generator's alone.
func rawServer(tb testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!")
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				match := 0 // how much of "\r\n\r\n" the stream ends with
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					for _, b := range buf[:n] {
						switch {
						case b == "\r\n\r\n"[match]:
							match++
						case b == '\r':
							match = 1
						default:
							match = 0
						}
						if match == 4 {
							match = 0
							if _, err := c.Write(resp); err != nil {
								return
							}
						}
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/hello"
}

// BenchmarkRequest measures the load generator's per-request hot path
// (pick the request, write it, wait in epoll, read and parse the response,
// record the latency) over one keep-alive loopback connection. Its
// allocs/op must be 0.
func BenchmarkRequest(b *testing.B) {
	url := rawServer(b)
	spec := Spec{URL: url, Connections: 1, Duration: Duration(time.Hour)}
	s := spec.withDefaults()
	hostport, _ := TargetAddr(s.URL)
	addr, err := resolve(hostport, nil)
	if err != nil {
		b.Fatal(err)
	}
	reqs, err := renderRequests(&s, hostport)
	if err != nil {
		b.Fatal(err)
	}
	w, err := newWorker(addr, reqs, 1, 0)
	if err != nil {
		b.Fatal(err)
	}
	var stop atomic.Bool
	out := make(chan *tally, 4096)
	free := make(chan *tally, 4)
	final := make(chan *tally, 1)
	w.addConn(0)
	w.prepare()
	for range cap(free) {
		free <- newTally()
	}
	w.end, w.timeout, w.stop, w.out, w.free = int64(time.Hour), int64(10*time.Second), &stop, out, free
	w.step = int64(100 * time.Millisecond) // the default interval: without one, roll would never end
	w.quota = int64(b.N)
	go func() { // the aggregator's part: recycle the per-interval tallies
		for t := range out {
			t.clear()
			free <- t
		}
	}()
	b.ReportAllocs()
	b.ResetTimer()
	w.start = time.Now()
	w.run(final)
	b.StopTimer()
	close(out)
	t := <-final
	if w.quota != 0 || w.outstanding != 0 {
		b.Fatalf("%d requests left unsent, %d outstanding", w.quota, w.outstanding)
	}
	if w.err != nil {
		b.Fatal(w.err)
	}
	var errs int64
	for _, e := range t.errs {
		errs += e
	}
	if errs != 0 {
		b.Fatalf("%d errors: %v", errs, t.errs)
	}
}
