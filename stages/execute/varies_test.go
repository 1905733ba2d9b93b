package execute

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"yardstick/loadgen"
	"yardstick/pipeline"
)

// rawServer is a loopback HTTP/1.1 server that keeps the bytes of every
// request it reads and answers each with the value of its X-Vary header,
// so that the answer varies with {vary} when the header carries it.
type rawServer struct {
	ln   net.Listener
	mu   sync.Mutex
	seen map[string]bool
}

func startRawServer(t *testing.T) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, seen: map[string]bool{}}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

// serve reads requests one at a time (both the probe and a closed loop
// wait for the answer), so the bytes read for one are that request's.
func (s *rawServer) serve(c net.Conn) {
	defer c.Close()
	var raw bytes.Buffer
	br := bufio.NewReader(io.TeeReader(c, &raw))
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return
		}
		s.mu.Lock()
		s.seen[raw.String()] = true
		s.mu.Unlock()
		raw.Reset()
		v := req.Header.Get("X-Vary")
		if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(v))+"\r\n\r\n"+v); err != nil {
			return
		}
	}
}

func (s *rawServer) port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// TestProbeVariesSendsTheMeasuredRequest: with {vary} only in a header
// and {payload_text} in the body, the probe runs (it used to look for
// {vary} in the path and body alone, and sent "{payload_text}" as it is),
// sees two different answers, and each request it sent is byte for byte
// one the load generator sends for the same cell.
func TestProbeVariesSendsTheMeasuredRequest(t *testing.T) {
	srv := startRawServer(t)
	payload := 5
	b := &pipeline.Batch{Name: "main", Timeout: pipeline.Duration(2 * time.Second), Request: pipeline.Request{
		Method: "POST", Path: "/echo/{payload}", Headers: map[string]string{"X-Vary": "{vary}"}, Body: "{payload_text}",
		Vary: &pipeline.Vary{Min: 10, Max: 20},
	}}
	v := &pipeline.Variant{Process: pipeline.Process{Port: srv.port()}}
	c := &pipeline.Cell{ID: "0123456789ab", Point: pipeline.Point{Mode: "closed", Concurrency: 2, Payload: &payload}}
	r := &planRun{}
	dial := (&net.Dialer{}).DialContext

	p := probeVaries(context.Background(), dial, r.requestSpec(b, v, c), b, v.Port)
	if p == nil || p.Error != "" || len(p.Values) != 2 || p.Same {
		t.Fatalf("probe = %+v, want two values and two different answers", p)
	}
	srv.mu.Lock()
	probed := make([]string, 0, len(srv.seen))
	for raw := range srv.seen {
		probed = append(probed, raw)
	}
	clear(srv.seen)
	srv.mu.Unlock()
	if len(probed) != 2 {
		t.Fatalf("server read %d distinct probe requests, want 2", len(probed))
	}
	for _, raw := range probed {
		if !bytes.Contains([]byte(raw), []byte("/echo/5 HTTP/1.1\r\n")) || !bytes.HasSuffix([]byte(raw), []byte("\r\n\r\nabcde")) {
			t.Errorf("probe request %q: want path /echo/5 and body abcde ({payload_text} of 5)", raw)
		}
	}

	// The load generator, on the same cell's spec: 11 {vary} values
	// (10..20), each a request; the two probed ones are among them.
	spec, err := r.loadSpec(b, v, c, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	spec.CPUs, spec.MaxRequests = nil, 400
	if _, err := loadgen.Run(context.Background(), spec, nil); err != nil {
		t.Fatal(err)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for _, raw := range probed {
		if !srv.seen[raw] {
			t.Errorf("the probe sent %q, which the load generator never sent (it sent %d distinct requests)", raw, len(srv.seen))
		}
	}
}

// TestProbeVariesSkipsAFixedRequest: a request without {vary} anywhere
// is not probed.
func TestProbeVariesSkipsAFixedRequest(t *testing.T) {
	b := &pipeline.Batch{Timeout: pipeline.Duration(time.Second), Request: pipeline.Request{Method: "GET", Path: "/fixed", Headers: map[string]string{"X-A": "b"}}}
	v := &pipeline.Variant{Process: pipeline.Process{Port: 1}}
	c := &pipeline.Cell{ID: "0123456789ab", Point: pipeline.Point{Mode: "closed", Concurrency: 1}}
	r := &planRun{}
	if p := probeVaries(context.Background(), (&net.Dialer{}).DialContext, r.requestSpec(b, v, c), b, v.Port); p != nil {
		t.Errorf("probe of a fixed request = %+v, want none", p)
	}
}
