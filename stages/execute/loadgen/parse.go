package loadgen

import (
	"bytes"
	"errors"
)

// The response parser is incremental: feed hands it whatever one read
// returned, and it says when a whole response has gone by. It keeps only
// what it must (a partial header block or line) and discards bodies as they
// pass, so it never allocates once its carry buffer has grown to the size
// of the largest header block.

const maxHeaderBytes = 64 << 10

type parseState uint8

const (
	stHead       parseState = iota // status line and headers
	stBody                         // Content-Length body, remaining bytes left
	stChunkSize                    // chunk-size line
	stChunkData                    // chunk data, remaining bytes left
	stChunkEnd                     // the CRLF after chunk data
	stTrailer                      // trailer lines up to the empty line
	stUntilClose                   // body delimited by the end of the connection
)

var (
	errParse        = errors.New("malformed HTTP response")
	errHeaderSize   = errors.New("response header block too large")
	errTrailingData = errors.New("bytes after a complete response")
)

type parser struct {
	state     parseState
	remaining int64
	carry     []byte
	status    int
	close     bool // the server will close the connection after this response
	headOnly  bool // the request was HEAD: no body follows
}

func (p *parser) reset() {
	p.state = stHead
	p.remaining = 0
	p.carry = p.carry[:0]
	p.status = 0
	p.close = false
}

// feed consumes data. done is true when a complete response has been read;
// the parser is then ready for the next one.
func (p *parser) feed(data []byte) (done bool, err error) {
	for {
		switch p.state {
		case stHead:
			head, rest, ok, err := p.take(data, crlfcrlf)
			if err != nil || !ok {
				return false, err
			}
			data = rest
			if err := p.parseHead(head); err != nil {
				return false, err
			}
			if p.state == stHead { // an interim 1xx response; the real one follows
				continue
			}
		case stBody, stChunkData:
			n := int64(len(data))
			if n > p.remaining {
				n = p.remaining
			}
			p.remaining -= n
			data = data[n:]
			if p.remaining > 0 {
				return false, nil
			}
			if p.state == stBody {
				p.state = stHead
				goto complete
			}
			p.state = stChunkEnd
		case stChunkSize:
			line, rest, ok, err := p.take(data, crlf)
			if err != nil || !ok {
				return false, err
			}
			data = rest
			size, okSize := parseHex(line[:len(line)-2])
			if !okSize {
				return false, errParse
			}
			if size == 0 {
				p.state = stTrailer
			} else {
				p.remaining = size
				p.state = stChunkData
			}
		case stChunkEnd, stTrailer:
			line, rest, ok, err := p.take(data, crlf)
			if err != nil || !ok {
				return false, err
			}
			data = rest
			if p.state == stChunkEnd {
				if len(line) != 2 {
					return false, errParse
				}
				p.state = stChunkSize
			} else if len(line) == 2 {
				p.state = stHead
				goto complete
			}
		case stUntilClose:
			return false, nil
		}
	}
complete:
	p.carry = p.carry[:0]
	if len(data) > 0 {
		return true, errTrailingData
	}
	return true, nil
}

// eof tells the parser the connection ended; done is true when that
// completes a response delimited by the end of the connection.
func (p *parser) eof() bool { return p.state == stUntilClose }

var (
	crlf     = []byte("\r\n")
	crlfcrlf = []byte("\r\n\r\n")
)

// take returns the bytes up to and including the first sep, joining them
// with a partial piece carried over from earlier reads. ok is false when
// data ended before sep; the piece is then carried.
func (p *parser) take(data, sep []byte) (piece, rest []byte, ok bool, err error) {
	if len(p.carry) == 0 {
		if i := bytes.Index(data, sep); i >= 0 {
			if i > maxHeaderBytes {
				return nil, nil, false, errHeaderSize
			}
			return data[:i+len(sep)], data[i+len(sep):], true, nil
		}
		if len(data) > maxHeaderBytes {
			return nil, nil, false, errHeaderSize
		}
		p.carry = append(p.carry, data...)
		return nil, nil, false, nil
	}
	old := len(p.carry)
	p.carry = append(p.carry, data...)
	start := max(old-len(sep)+1, 0)
	i := bytes.Index(p.carry[start:], sep)
	if i < 0 {
		if len(p.carry) > maxHeaderBytes {
			return nil, nil, false, errHeaderSize
		}
		return nil, nil, false, nil
	}
	end := start + i + len(sep)
	if end > maxHeaderBytes {
		return nil, nil, false, errHeaderSize
	}
	piece = p.carry[:end]
	rest = data[end-old:]
	p.carry = p.carry[:0] // piece stays valid until the next append
	return piece, rest, true, nil
}

// parseHead reads the status line and the headers that frame the body.
func (p *parser) parseHead(h []byte) error {
	line, h, _ := bytes.Cut(h, crlf)
	// HTTP/1.x SSS reason
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return errParse
	}
	status := 0
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return errParse
		}
		status = status*10 + int(c-'0')
	}
	p.status = status
	http10 := line[7] == '0'
	p.close = http10
	contentLength := int64(-1)
	chunked := false
	for len(h) > 0 {
		var l []byte
		l, h, _ = bytes.Cut(h, crlf)
		if len(l) == 0 {
			break
		}
		colon := bytes.IndexByte(l, ':')
		if colon <= 0 {
			return errParse
		}
		name, value := l[:colon], bytes.TrimSpace(l[colon+1:])
		switch {
		case equalFold(name, "content-length"):
			n, ok := parseDec(value)
			if !ok {
				return errParse
			}
			contentLength = n
		case equalFold(name, "transfer-encoding"):
			chunked = containsFold(value, "chunked")
		case equalFold(name, "connection"):
			if containsFold(value, "close") {
				p.close = true
			} else if containsFold(value, "keep-alive") {
				p.close = false
			}
		}
	}
	switch {
	case status >= 100 && status < 200:
		p.state = stHead // interim response; the final one follows
		p.close = false
	case p.headOnly || status == 204 || status == 304:
		p.state = stBody
		p.remaining = 0
	case chunked:
		p.state = stChunkSize
	case contentLength >= 0:
		p.state = stBody
		p.remaining = contentLength
	default:
		p.state = stUntilClose
		p.close = true
	}
	return nil
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

func parseHex(b []byte) (int64, bool) {
	if i := bytes.IndexByte(b, ';'); i >= 0 { // chunk extensions
		b = b[:i]
	}
	b = bytes.TrimSpace(b)
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
