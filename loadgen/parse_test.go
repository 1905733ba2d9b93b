package loadgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// outcome is what a stream of response bytes did to a parser fed the way
// the worker feeds it: the bytes after a complete response start the next
// one.
type outcome struct {
	responses []string // "status close|keep" of each complete response
	err       error    // the error that ended the stream; nil if none
	pending   bool     // the stream ended inside a response
	eofDone   bool     // and the end of the connection would complete it
}

func (o outcome) String() string {
	return fmt.Sprintf("responses %v err %v pending %v eof %v", o.responses, o.err, o.pending, o.eofDone)
}

func (o outcome) equal(q outcome) bool {
	return fmt.Sprint(o.responses) == fmt.Sprint(q.responses) && o.err == q.err && o.pending == q.pending && o.eofDone == q.eofDone
}

// stream feeds data to a fresh parser in pieces of the sizes next returns
// (given what is left) and checks the parser's contract on every call: it
// never uses more than it was given; a call that neither completes nor
// fails uses everything; a complete response used at least one byte and
// has a final status; the carry buffer stays within MaxResponseHead.
func stream(tb testing.TB, data []byte, head bool, next func(left int) int) outcome {
	tb.Helper()
	p := &parser{headOnly: head}
	var o outcome
	fed := 0 // bytes of the current response fed so far
	for len(data) > 0 {
		piece := data[:max(min(next(len(data)), len(data)), 1)]
		data = data[len(piece):]
		for len(piece) > 0 {
			used, done, err := p.feed(piece)
			if used < 0 || used > len(piece) {
				tb.Fatalf("feed used %d of %d bytes", used, len(piece))
			}
			if len(p.carry) >= MaxResponseHead || cap(p.carry) > 2*MaxResponseHead {
				tb.Fatalf("carry buffer holds %d bytes (cap %d), bound %d", len(p.carry), cap(p.carry), MaxResponseHead)
			}
			fed += used
			if err != nil {
				o.err = err
				return o
			}
			if !done {
				if used != len(piece) {
					tb.Fatalf("feed used %d of %d bytes without completing or failing", used, len(piece))
				}
				break
			}
			if fed == 0 || p.status < 200 || p.status > 999 {
				tb.Fatalf("complete response after %d bytes with status %d", fed, p.status)
			}
			conn := "keep"
			if p.close {
				conn = "close"
			}
			o.responses = append(o.responses, fmt.Sprintf("%d %s", p.status, conn))
			piece = piece[used:]
			fed = 0
		}
	}
	o.pending = fed > 0
	o.eofDone = p.eof()
	return o
}

func pieces(n int) func(int) int { return func(int) int { return n } }

func TestParser(t *testing.T) {
	t.Parallel()
	ok := func(rs ...string) outcome { return outcome{responses: rs} }
	fails := func(err error, rs ...string) outcome { return outcome{responses: rs, err: err} }
	cases := []struct {
		name string
		resp string
		head bool
		want outcome
	}{
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false, ok("200 keep")},
		{"zero length", "HTTP/1.1 204 No Content\r\n\r\n", false, ok("204 keep")},
		{"no reason", "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", false, ok("200 keep")},
		{"header case", "HTTP/1.1 404 Not Found\r\ncOnTeNt-LeNgTh:3\r\n\r\nabc", false, ok("404 keep")},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1a;x=y\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-T: 1\r\n\r\n", false, ok("200 keep")},
		{"chunk size with space", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5 ;x\r\nhello\r\n0\r\n\r\n", false, ok("200 keep")},
		{"interim 100", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", false, ok("201 keep")},
		{"early hints", "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false, ok("200 keep")},
		{"head", "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", true, ok("200 keep")},
		{"close", "HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", false, ok("503 close")},
		{"http/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false, ok("200 close")},
		{"until close", "HTTP/1.1 200 OK\r\n\r\nsome body", false, outcome{pending: true, eofDone: true}},
		{"pipelined", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 404 NF\r\nContent-Length: 0\r\n\r\n", false, ok("200 keep", "404 keep")},
		// the worker counts bytes after a response as unasked-for; the
		// parser sees them as the start of a next response, however the
		// reads split, and refuses them as soon as they cannot be one
		{"trailing bytes", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab", false, fails(errParse, "200 keep")},
		{"start of a next response", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1", false, outcome{responses: []string{"200 keep"}, pending: true}},
		{"same length twice", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length:  2 \r\n\r\nok", false, ok("200 keep")},
		{"chunked wins over length", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", false, ok("200 keep")},
		{"gzip then chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", false, ok("200 keep")},
		{"chunked then gzip", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n2\r\nok\r\n0\r\n\r\n", false, outcome{pending: true, eofDone: true}},
		{"status 600", "HTTP/1.1 600 Odd\r\nContent-Length: 0\r\n\r\n", false, ok("600 keep")},

		{"garbage", "SSH-2.0-OpenSSH\r\n\r\n", false, fails(errParse)},
		{"garbage without an end", "HTTX" + strings.Repeat("x", 2*MaxResponseHead), false, fails(errParse)},
		{"http/2", "HTTP/2 200\r\n\r\n", false, fails(errParse)},
		{"status 099", "HTTP/1.1 099 Low\r\n\r\n", false, fails(errParse)},
		{"four-digit status", "HTTP/1.1 2000K\r\n\r\n", false, fails(errParse)},
		{"status with a letter", "HTTP/1.1 2x0 OK\r\n\r\n", false, fails(errParse)},
		{"minor version not a digit", "HTTP/1.x 200 OK\r\n\r\n", false, fails(errParse)},
		{"status 999", "HTTP/1.1 999 Odd\r\nContent-Length: 0\r\n\r\n", false, ok("999 keep")},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", false, fails(errParse)},
		{"negative length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", false, fails(errParse)},
		{"plus length", "HTTP/1.1 200 OK\r\nContent-Length: +1\r\n\r\n", false, fails(errParse)},
		{"overflowing length", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", false, fails(errParse)},
		{"two lengths", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nok", false, fails(errParse)},
		{"length list", "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok", false, fails(errParse)},
		{"length with space", "HTTP/1.1 200 OK\r\nContent-Length: 1 2\r\n\r\n", false, fails(errParse)},
		{"length over the bound", "HTTP/1.1 200 OK\r\nContent-Length: 1073741825\r\n\r\n", false, fails(errBodySize)},
		{"folded header", "HTTP/1.1 200 OK\r\nX-A: b\r\n c\r\n\r\n", false, fails(errParse)},
		{"space in name", "HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n", false, fails(errParse)},
		{"no colon", "HTTP/1.1 200 OK\r\nnocolon\r\n\r\n", false, fails(errParse)},
		{"bad chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false, fails(errParse)},
		{"negative chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", false, fails(errParse)},
		{"chunk size 16 digits", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n", false, fails(errParse)},
		{"chunk over the bound", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n40000001\r\n", false, fails(errBodySize)},
		{"chunk without CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n", false, fails(errParse)},
		{"chunk with LF only", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\n0\r\n\r\n", false, fails(errParse)},
		{"endless chunk extension", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;" + strings.Repeat("e", maxChunkLine), false, fails(errChunkLine)},
		{"bad trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nnocolon\r\n\r\n", false, fails(errParse)},
		{"endless trailers", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + strings.Repeat("X-T: 1\r\n", MaxResponseHead/8+1), false, fails(errHeaderSize)},
		{"endless headers", "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-A: b\r\n", MaxResponseHead/8+1), false, fails(errHeaderSize)},
		{"huge header line", "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", MaxResponseHead), false, fails(errHeaderSize)},
		{"switching protocols", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", false, fails(errUpgrade)},
		{"endless interim", strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", maxInterim+1), false, fails(errInterim)},
		{"error after a response", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 xyz\r\n\r\n", false, fails(errParse, "200 keep")},
	}
	for _, c := range cases {
		// every split of the stream must give the same answer
		for _, n := range []int{1, 2, 3, 7, 4096, 1 << 20} {
			if got := stream(t, []byte(c.resp), c.head, pieces(n)); !got.equal(c.want) {
				t.Errorf("%s, pieces of %d: %v, want %v", c.name, n, got, c.want)
			}
		}
	}
}

// TestParserHeadBound: a header block of exactly MaxResponseHead bytes is
// read; one byte more is refused, in one piece or many, and so is a final
// response whose 1xx responses used up the bound.
func TestParserHeadBound(t *testing.T) {
	t.Parallel()
	head := func(size int) string {
		h := "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX: \r\n\r\n"
		return strings.Replace(h, "X: ", "X: "+strings.Repeat("a", size-len(h)), 1)
	}
	interim := "HTTP/1.1 100 Continue\r\n\r\n"
	for _, n := range []int{1, 1000, 4096, 1 << 20} {
		if got := stream(t, []byte(head(MaxResponseHead)), false, pieces(n)); !got.equal(outcome{responses: []string{"200 keep"}}) {
			t.Errorf("head of %d bytes in pieces of %d: %v", MaxResponseHead, n, got)
		}
		if got := stream(t, []byte(head(MaxResponseHead+1)), false, pieces(n)); got.err != errHeaderSize {
			t.Errorf("head of %d bytes in pieces of %d: %v", MaxResponseHead+1, n, got)
		}
		if got := stream(t, []byte(interim+head(MaxResponseHead-len(interim)+1)), false, pieces(n)); got.err != errHeaderSize {
			t.Errorf("1xx and head of %d bytes in all, pieces of %d: %v", MaxResponseHead+1, n, got)
		}
	}
}

// TestParserBodyBound: bodies are counted, not kept, up to MaxResponseBody
// bytes; the byte after that fails, for chunked and close-delimited bodies.
func TestParserBodyBound(t *testing.T) {
	t.Parallel()
	buf := make([]byte, 64<<10)
	feedBody := func(p *parser, n int64) error {
		for n > 0 {
			k := min(n, int64(len(buf)))
			used, done, err := p.feed(buf[:k])
			if err != nil || done || int64(used) != k {
				return fmt.Errorf("used %d of %d, done %v, err %v", used, k, done, err)
			}
			n -= k
		}
		return nil
	}
	p := &parser{}
	if _, _, err := p.feed([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n", MaxResponseBody-1))); err != nil {
		t.Fatal(err)
	}
	if err := feedBody(p, MaxResponseBody-1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.feed([]byte("\r\n1\r\nx\r\n")); err != nil {
		t.Fatalf("chunked body of exactly %d bytes: %v", MaxResponseBody, err)
	}
	if _, _, err := p.feed([]byte("1\r\n")); err != errBodySize {
		t.Fatalf("chunked body past %d bytes: err %v, want %v", MaxResponseBody, err, errBodySize)
	}
	if p.carry != nil && cap(p.carry) > 64 {
		t.Errorf("carry grew to %d bytes for a body", cap(p.carry))
	}

	p = &parser{}
	if _, _, err := p.feed([]byte("HTTP/1.1 200 OK\r\n\r\n")); err != nil || !p.eof() {
		t.Fatalf("close-delimited head: err %v, eof %v", err, p.eof())
	}
	if err := feedBody(p, MaxResponseBody); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.feed([]byte("x")); err != errBodySize {
		t.Fatalf("close-delimited body past %d bytes: err %v, want %v", MaxResponseBody, err, errBodySize)
	}
}

// TestParserRandomSplits: a mixed stream gives the same outcome whatever
// the read sizes.
func TestParserRandomSplits(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"+
		"HTTP/1.1 404 NF\r\nTransfer-Encoding: chunked\r\n\r\n3;a=b\r\nabc\r\n0\r\nT: 1\r\n\r\n", 20) + "HTTP/1.1 200 OK\r\n\r\ntail"
	want := stream(t, []byte(s), false, pieces(len(s)))
	if len(want.responses) != 40 || want.err != nil || !want.eofDone {
		t.Fatalf("whole: %v", want)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		if got := stream(t, []byte(s), false, func(left int) int { return 1 + rng.IntN(64) }); !got.equal(want) {
			t.Fatalf("random splits: %v, want %v", got, want)
		}
	}
}

func TestParserRelease(t *testing.T) {
	t.Parallel()
	p := &parser{}
	if _, _, err := p.feed([]byte("HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 32<<10))); err != nil {
		t.Fatal(err)
	}
	p.release()
	if p.carry != nil || p.state != stHead {
		t.Errorf("release kept a %d-byte carry buffer, state %d", cap(p.carry), p.state)
	}
	if got := stream(t, []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), false, pieces(5)); len(got.responses) != 1 {
		t.Errorf("after release: %v", got)
	}
}

func TestParserSequence(t *testing.T) {
	t.Parallel()
	one := "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
	if got := stream(t, []byte(strings.Repeat(one, 3)), false, pieces(4)); len(got.responses) != 3 || got.err != nil || got.pending {
		t.Fatalf("three responses: %v", got)
	}
}

func BenchmarkParser(b *testing.B) {
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 13\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\n\r\nHello, World!")
	p := &parser{}
	b.ReportAllocs()
	b.SetBytes(int64(len(resp)))
	for b.Loop() {
		if n, done, err := p.feed(resp); !done || err != nil || n != len(resp) {
			b.Fatal(n, done, err)
		}
	}
}
