package loadgen

import (
	"bytes"
	"errors"
)

// The response parser is incremental: feed hands it whatever one read
// returned, and it says how much of that it used and whether a whole
// response has gone by. It keeps only what it must (a partial header block
// or line, never more than MaxResponseHead bytes) and counts bodies as they
// pass instead of keeping them, so it never allocates once its carry buffer
// has grown to the size of the largest header block it was sent.
//
// Whatever a target sends, feed either completes a response, asks for more
// bytes, or fails with one of the errors below; where it fails or completes
// depends only on the bytes, not on how the reads split them.

const (
	// maxChunkLine bounds one chunk-size line, extensions and CRLF included.
	maxChunkLine = 4 << 10
	// maxInterim bounds the 1xx responses that may precede the final one.
	maxInterim = 16
)

type parseState uint8

const (
	stHead       parseState = iota // status line and headers
	stBody                         // Content-Length body, remaining bytes left
	stChunkSize                    // chunk-size line
	stChunkData                    // chunk data, remaining bytes left
	stChunkEnd                     // the CRLF after chunk data; remaining: bytes of it seen
	stTrailer                      // trailer lines up to the empty line
	stUntilClose                   // body delimited by the end of the connection
)

var (
	errParse      = errors.New("malformed HTTP response")
	errHeaderSize = errors.New("response header block too large")
	errBodySize   = errors.New("response body too large")
	errChunkLine  = errors.New("chunk-size line too long")
	errInterim    = errors.New("too many 1xx interim responses")
	errUpgrade    = errors.New("101 Switching Protocols: the load generator speaks only HTTP/1.1")
)

type parser struct {
	state     parseState
	remaining int64 // body or chunk bytes left (stBody, stChunkData); CRLF bytes seen (stChunkEnd)
	body      int64 // body bytes of this response so far
	headUsed  int   // bytes of this response's header block (1xx heads included) or trailers
	interim   int   // 1xx responses before this one
	carry     []byte
	status    int
	close     bool // the server will close the connection after this response
	headOnly  bool // the request was HEAD: no body follows
}

// reset readies the parser for the next response. The carry buffer is kept
// for reuse unless a hostile target made it large.
func (p *parser) reset() {
	p.state = stHead
	p.remaining = 0
	p.body = 0
	p.headUsed = 0
	p.interim = 0
	p.carry = p.carry[:0]
	p.status = 0
	p.close = false
}

// release resets p and lets go of a carry buffer larger than a typical
// header block; the worker calls it when a connection is dropped.
func (p *parser) release() {
	p.reset()
	if cap(p.carry) > 4<<10 {
		p.carry = nil
	}
}

// feed consumes bytes from data and returns how many it used. done is true
// when that completed a response: status and close then describe it, and
// data[n:] holds whatever came after it (the caller decides what such
// bytes mean); the parser is ready for the next response. When done is
// false and err is nil, all of data was used and the parser waits for more.
// An error is final for the connection.
//
// Each state has its own step method; feed runs them in turn until one
// completes a response, needs more bytes or fails.
func (p *parser) feed(data []byte) (n int, done bool, err error) {
	for {
		var used int
		var s step
		switch p.state {
		case stHead:
			used, s, err = p.head(data[n:])
		case stBody, stChunkData:
			used, s = p.counted(data[n:])
		case stChunkSize:
			used, s, err = p.chunkSize(data[n:])
		case stChunkEnd:
			used, s, err = p.chunkEnd(data[n:])
		case stTrailer:
			used, s, err = p.trailer(data[n:])
		case stUntilClose:
			used, s, err = p.untilClose(data[n:])
		}
		n += used
		if err != nil || s != stepOn {
			return n, s == stepDone, err
		}
	}
}

// step is what a state's step method did with the bytes it was given,
// besides the bytes it used.
type step uint8

const (
	stepOn   step = iota // moved to another state; feed goes on with the rest
	stepMore             // used all it was given and waits for the next read
	stepDone             // completed a response
)

// head reads the status line and headers (stHead), 1xx heads included, and
// moves to the state that frames the body.
func (p *parser) head(data []byte) (int, step, error) {
	if !p.maybeStatusLine(data) {
		return 0, stepMore, errParse
	}
	head, used, ok, err := p.take(data, crlfcrlf, MaxResponseHead-p.headUsed)
	if err != nil {
		return used, stepMore, errHeaderSize
	}
	if !ok {
		return used, stepMore, nil
	}
	p.headUsed += len(head)
	return used, stepOn, p.parseHead(head)
}

// counted passes over the remaining bytes of a Content-Length body
// (stBody) or of one chunk's data (stChunkData).
func (p *parser) counted(data []byte) (int, step) {
	k := min(int64(len(data)), p.remaining)
	p.remaining -= k
	if p.remaining > 0 {
		return int(k), stepMore
	}
	if p.state == stBody {
		p.complete()
		return int(k), stepDone
	}
	p.state = stChunkEnd
	return int(k), stepOn
}

// chunkSize reads one chunk-size line (stChunkSize); size 0 ends the
// chunks and starts the trailers.
func (p *parser) chunkSize(data []byte) (int, step, error) {
	line, used, ok, err := p.take(data, crlf, maxChunkLine)
	if err != nil {
		return used, stepMore, errChunkLine
	}
	if !ok {
		return used, stepMore, nil
	}
	size, okSize := parseHex(line[:len(line)-2])
	if !okSize {
		return used, stepMore, errParse
	}
	if size == 0 {
		p.state = stTrailer
		p.headUsed = 0
		return used, stepOn, nil
	}
	if size > MaxResponseBody-p.body {
		return used, stepMore, errBodySize
	}
	p.body += size
	p.remaining = size
	p.state = stChunkData
	return used, stepOn, nil
}

// chunkEnd checks the CRLF after a chunk's data (stChunkEnd), which reads
// may split.
func (p *parser) chunkEnd(data []byte) (int, step, error) {
	n := 0
	for p.remaining < 2 {
		if n == len(data) {
			return n, stepMore, nil
		}
		if data[n] != crlf[p.remaining] {
			return n, stepMore, errParse
		}
		n++
		p.remaining++
	}
	p.remaining = 0
	p.state = stChunkSize
	return n, stepOn, nil
}

// trailer reads one trailer line (stTrailer); the empty line completes the
// response.
func (p *parser) trailer(data []byte) (int, step, error) {
	line, used, ok, err := p.take(data, crlf, MaxResponseHead-p.headUsed)
	if err != nil {
		return used, stepMore, errHeaderSize
	}
	if !ok {
		return used, stepMore, nil
	}
	p.headUsed += len(line)
	if len(line) == 2 {
		p.complete()
		return used, stepDone, nil
	}
	if colon := bytes.IndexByte(line, ':'); colon <= 0 || !isTokenBytes(line[:colon]) {
		return used, stepMore, errParse
	}
	return used, stepOn, nil
}

// untilClose counts a body that the end of the connection delimits
// (stUntilClose): all of data is body.
func (p *parser) untilClose(data []byte) (int, step, error) {
	k := int64(len(data))
	if k > MaxResponseBody-p.body {
		return 0, stepMore, errBodySize
	}
	p.body += k
	return len(data), stepMore, nil
}

// complete readies the parser for the next response, keeping the status
// and close of the one just read.
func (p *parser) complete() {
	p.state = stHead
	p.remaining = 0
	p.body = 0
	p.headUsed = 0
	p.interim = 0
	p.carry = p.carry[:0]
}

// eof tells the parser the connection ended; it is true when that
// completes a response delimited by the end of the connection.
func (p *parser) eof() bool { return p.state == stUntilClose }

var (
	crlf     = []byte("\r\n")
	crlfcrlf = []byte("\r\n\r\n")
)

var httpPrefix = []byte("HTTP/1.")

// maybeStatusLine reports whether the head seen so far, the carry and
// then data, can still begin "HTTP/1.", so that a target sending
// something else fails at once rather than when its bytes fill the header
// bound. Bytes past the header bound are left to take, which refuses them,
// so that the answer does not depend on how reads split the bytes.
func (p *parser) maybeStatusLine(data []byte) bool {
	seen := len(p.carry)
	end := min(len(httpPrefix), MaxResponseHead-p.headUsed, seen+len(data))
	for i := seen; i < end; i++ {
		if data[i-seen] != httpPrefix[i] {
			return false
		}
	}
	return true
}

// take returns the bytes up to and including the first sep, joining them
// with a partial piece carried over from earlier reads, and how many bytes
// of data it used. The piece may be at most limit bytes long, sep included:
// err is set as soon as the bytes seen rule that out. ok is false when data
// ended before sep; the partial piece is then carried (at most limit-1
// bytes).
func (p *parser) take(data, sep []byte, limit int) (piece []byte, n int, ok bool, err error) {
	if len(p.carry) == 0 {
		window := data[:min(len(data), limit)]
		if i := bytes.Index(window, sep); i >= 0 {
			end := i + len(sep)
			return data[:end], end, true, nil
		}
		if len(data) >= limit {
			return nil, 0, false, errHeaderSize
		}
		p.carry = append(p.carry, data...)
		return nil, len(data), false, nil
	}
	old := len(p.carry)
	room := limit - old
	if room <= 0 {
		return nil, 0, false, errHeaderSize
	}
	p.carry = append(p.carry, data[:min(len(data), room)]...)
	start := max(old-len(sep)+1, 0)
	i := bytes.Index(p.carry[start:], sep)
	if i < 0 {
		if len(p.carry) >= limit {
			p.carry = p.carry[:0]
			return nil, 0, false, errHeaderSize
		}
		return nil, len(data), false, nil
	}
	end := start + i + len(sep)
	piece = p.carry[:end]
	p.carry = p.carry[:0] // piece stays valid until the next append
	return piece, end - old, true, nil
}

// parseHead reads the status line and the headers that frame the body.
func (p *parser) parseHead(h []byte) error {
	line, h, _ := bytes.Cut(h, crlf)
	status, ok := parseStatusLine(line)
	if !ok {
		return errParse
	}
	p.status = status
	p.close = line[7] == '0'
	contentLength := int64(-1)
	te, chunked := false, false
	for len(h) > 0 {
		var l []byte
		l, h, _ = bytes.Cut(h, crlf)
		if len(l) == 0 {
			break
		}
		colon := bytes.IndexByte(l, ':')
		if colon <= 0 || !isTokenBytes(l[:colon]) {
			return errParse
		}
		name, value := l[:colon], bytes.TrimSpace(l[colon+1:])
		switch {
		case equalFold(name, "content-length"):
			n, ok := parseDec(value)
			if !ok || (contentLength >= 0 && n != contentLength) {
				return errParse // not a number, or two different lengths
			}
			contentLength = n
		case equalFold(name, "transfer-encoding"):
			// The body is chunked when chunked is the last coding applied.
			te = true
			last := value
			if i := bytes.LastIndexByte(value, ','); i >= 0 {
				last = bytes.TrimSpace(value[i+1:])
			}
			chunked = equalFold(last, "chunked")
		case equalFold(name, "connection"):
			if containsFold(value, "close") {
				p.close = true
			} else if containsFold(value, "keep-alive") {
				p.close = false
			}
		}
	}
	switch {
	case status == 101:
		return errUpgrade
	case status < 200:
		p.interim++
		if p.interim > maxInterim {
			return errInterim
		}
		p.state = stHead // interim response; the final one follows
		p.close = false
	case p.headOnly || status == 204 || status == 304:
		p.state = stBody
		p.remaining = 0
	case chunked:
		p.state = stChunkSize
	case te:
		// A coding other than chunked last: the body ends with the connection.
		p.state = stUntilClose
		p.close = true
	case contentLength > MaxResponseBody:
		return errBodySize
	case contentLength >= 0:
		p.state = stBody
		p.remaining = contentLength
	default:
		p.state = stUntilClose
		p.close = true
	}
	return nil
}

// parseStatusLine reads "HTTP/1.x SSS[ reason]" and returns the status,
// 100 to 999.
func parseStatusLine(line []byte) (status int, ok bool) {
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || line[7]-'0' > 9 ||
		line[8] != ' ' || (len(line) > 12 && line[12] != ' ') {
		return 0, false
	}
	d0, d1, d2 := line[9]-'0', line[10]-'0', line[11]-'0'
	if d0 == 0 || d0 > 9 || d1 > 9 || d2 > 9 { // below 100, or not three digits
		return 0, false
	}
	return int(d0)*100 + int(d1)*10 + int(d2), true
}

func equalFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func containsFold(b []byte, lower string) bool {
	for i := 0; i+len(lower) <= len(b); i++ {
		if equalFold(b[i:i+len(lower)], lower) {
			return true
		}
	}
	return false
}

// tokenChar marks the bytes of an HTTP token (a header name).
var tokenChar = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c > ' ' && c < 0x7f && !bytes.ContainsRune([]byte("()<>@,;:\\\"/[]?={}"), rune(c))
	}
	return t
}()

func isTokenBytes(b []byte) bool {
	for _, c := range b {
		if !tokenChar[c] {
			return false
		}
	}
	return len(b) > 0
}

// parseDec reads a Content-Length: decimal digits only, at most 18 of them
// (so that it cannot overflow).
func parseDec(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// parseHex reads a chunk size, ignoring chunk extensions: hex digits only,
// at most 15 of them (so that it cannot overflow).
func parseHex(b []byte) (int64, bool) {
	if i := bytes.IndexByte(b, ';'); i >= 0 { // chunk extensions
		b = b[:i]
	}
	b = bytes.TrimRight(b, " \t")
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		n = n<<4 | int64(d)
	}
	return n, true
}
