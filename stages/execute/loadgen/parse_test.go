package loadgen

import (
	"strings"
	"testing"
)

// feedAll feeds resp to a fresh parser in pieces of size n and reports how
// many complete responses went by and the first error.
func feedAll(p *parser, resp string, n int) (done int, err error) {
	for i := 0; i < len(resp); i += n {
		piece := resp[i:min(i+n, len(resp))]
		d, e := p.feed([]byte(piece))
		if e != nil {
			return done, e
		}
		if d {
			done++
		}
	}
	return done, nil
}

func TestParser(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		resp   string
		head   bool
		status int
		close  bool
		done   int
		err    bool
		whole  bool
	}{
		{name: "content-length", resp: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", status: 200, done: 1},
		{name: "zero length", resp: "HTTP/1.1 204 No Content\r\n\r\n", status: 204, done: 1},
		{name: "header case", resp: "HTTP/1.1 404 Not Found\r\ncOnTeNt-LeNgTh:3\r\n\r\nabc", status: 404, done: 1},
		{name: "chunked", resp: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1a;x=y\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-T: 1\r\n\r\n", status: 200, done: 1},
		{name: "interim 100", resp: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", status: 201, done: 1},
		{name: "head", resp: "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", head: true, status: 200, done: 1},
		{name: "close", resp: "HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", status: 503, close: true, done: 1},
		{name: "http/1.0", resp: "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", status: 200, close: true, done: 1},
		{name: "until close", resp: "HTTP/1.1 200 OK\r\n\r\nsome body", status: 200, close: true, done: 0},
		{name: "garbage", resp: "SSH-2.0-OpenSSH\r\n\r\n", err: true},
		{name: "bad length", resp: "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", err: true},
		{name: "bad chunk", resp: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", err: true},
		// in one read only: split, the extra byte looks like the start of a
		// next response, which the worker rejects as unasked-for bytes
		{name: "trailing bytes", resp: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab", err: true, whole: true},
	}
	for _, c := range cases {
		// every split of the stream must give the same answer
		for _, n := range []int{1, 2, 3, 7, 1 << 20} {
			if c.whole && n < len(c.resp) {
				continue
			}
			p := &parser{headOnly: c.head}
			done, err := feedAll(p, c.resp, n)
			if (err != nil) != c.err {
				t.Errorf("%s/%d: err = %v, want error %v", c.name, n, err, c.err)
				continue
			}
			if c.err {
				continue
			}
			if done != c.done || p.status != c.status || p.close != c.close {
				t.Errorf("%s/%d: done %d status %d close %v, want %d %d %v", c.name, n, done, p.status, p.close, c.done, c.status, c.close)
			}
		}
	}
}

func TestParserHeaderBound(t *testing.T) {
	t.Parallel()
	p := &parser{}
	huge := "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", maxHeaderBytes) + "\r\n\r\n"
	if _, err := feedAll(p, huge, 4096); err != errHeaderSize {
		t.Fatalf("err = %v, want %v", err, errHeaderSize)
	}
}

func TestParserSequence(t *testing.T) {
	t.Parallel()
	p := &parser{}
	one := "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
	for i := range 3 {
		if done, err := feedAll(p, one, 4); err != nil || done != 1 {
			t.Fatalf("response %d: done %d err %v", i, done, err)
		}
	}
}

func BenchmarkParser(b *testing.B) {
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 13\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\n\r\nHello, World!")
	p := &parser{}
	b.ReportAllocs()
	b.SetBytes(int64(len(resp)))
	for b.Loop() {
		if done, err := p.feed(resp); !done || err != nil {
			b.Fatal(done, err)
		}
	}
}
