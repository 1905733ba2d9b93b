// Package wsframe is the load generator's own client side of RFC 6455
// (WebSocket, version 13, no extensions, no subprotocol): the opening
// handshake (a request to write, the server's 101 response to check,
// Sec-WebSocket-Accept included) and an incremental parser of the frames a
// server sends, made for an event loop that reads whatever bytes a
// non-blocking socket has.
//
// The parser keeps a connection's state in a few dozen bytes: the partial
// frame header, and the partial payload only when a frame is split across
// reads (a buffer of at most MaxPayload bytes, allocated then and kept).
// A frame wholly inside one read is handed back as a slice of that read,
// without a copy. Everything RFC 6455 forbids a server is an error that
// names the rule: a masked frame, a reserved bit or opcode, a fragmented
// or oversized control frame, a length that is not minimal or has its top
// bit set, a continuation outside a fragmented message, a bad close code,
// and a frame longer than the caller's bound.
package wsframe

import (
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Opcodes (RFC 6455 section 5.2).
const (
	OpContinuation = 0x0
	OpText         = 0x1
	OpBinary       = 0x2
	OpClose        = 0x8
	OpPing         = 0x9
	OpPong         = 0xA
)

// MaxControlPayload is the longest payload a control frame may carry.
const MaxControlPayload = 125

// The parser's errors; each wraps ErrProtocol except ErrTooLarge, which a
// caller counts apart (a frame within the protocol but beyond its bound).
var (
	ErrProtocol = errors.New("websocket protocol violation")
	ErrTooLarge = errors.New("websocket frame longer than the bound")

	ErrMasked       = fmt.Errorf("%w: masked frame from the server", ErrProtocol)
	ErrReserved     = fmt.Errorf("%w: reserved bit set (no extension was negotiated)", ErrProtocol)
	ErrOpcode       = fmt.Errorf("%w: reserved opcode", ErrProtocol)
	ErrControl      = fmt.Errorf("%w: fragmented or oversized control frame", ErrProtocol)
	ErrLength       = fmt.Errorf("%w: non-minimal or negative payload length", ErrProtocol)
	ErrContinuation = fmt.Errorf("%w: continuation without a fragmented message, or a new message inside one", ErrProtocol)
	ErrClosePayload = fmt.Errorf("%w: bad close frame payload", ErrProtocol)
)

// Frame is one complete frame. Payload is valid until the next call to
// [Parser.Next]; it aliases the caller's input or the parser's buffer.
type Frame struct {
	Fin     bool
	Op      byte
	Payload []byte
}

// IsControl reports whether op is a control opcode (close, ping, pong).
func IsControl(op byte) bool { return op&0x8 != 0 }

// Parser reads the frames of one server-to-client stream incrementally.
// The zero value is not usable; set MaxPayload (at least
// MaxControlPayload) before the first call.
type Parser struct {
	// MaxPayload bounds one frame's payload; a longer frame is ErrTooLarge.
	MaxPayload int

	hdr   [10]byte // the header so far (a server frame has no mask key)
	hn    uint8    // bytes of hdr filled
	inHdr bool     // hdr holds a complete header; the payload is being read
	fin   bool
	op    byte
	plen  int    // this frame's payload length
	buf   []byte // partial payload, allocated at first need, cap MaxPayload
	frag  bool   // inside a fragmented data message
}

// Fragmented reports whether the stream is inside a fragmented data
// message (a non-final data frame was read, its final continuation not yet).
func (p *Parser) Fragmented() bool { return p.frag }

// Next reads at most one frame from b. It returns how many bytes of b it
// consumed and, when ok, the complete frame. Call it again with b[n:]
// until b is consumed: bytes it consumed without a frame are kept in the
// parser. After an error the stream is broken; the caller closes it.
func (p *Parser) Next(b []byte) (n int, f Frame, ok bool, err error) {
	if !p.inHdr {
		n, err = p.header(b)
		if err != nil || !p.inHdr {
			return n, Frame{}, false, err
		}
	}
	rest := b[n:]
	if len(p.buf) == 0 && len(rest) >= p.plen { // the whole payload is here
		f = Frame{Fin: p.fin, Op: p.op, Payload: rest[:p.plen:p.plen]}
		n += p.plen
	} else {
		if p.buf == nil {
			p.buf = make([]byte, 0, p.MaxPayload)
		}
		take := min(p.plen-len(p.buf), len(rest))
		p.buf = append(p.buf, rest[:take]...)
		n += take
		if len(p.buf) < p.plen {
			return n, Frame{}, false, nil
		}
		f = Frame{Fin: p.fin, Op: p.op, Payload: p.buf}
		p.buf = p.buf[:0]
	}
	p.inHdr, p.hn = false, 0
	if f.Op == OpClose {
		if err := checkClose(f.Payload); err != nil {
			return n, Frame{}, false, err
		}
	}
	return n, f, true, nil
}

// header reads header bytes from b until the header is complete, then
// checks it.
func (p *Parser) header(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		need := p.headerLen()
		if int(p.hn) >= need {
			break
		}
		c := copy(p.hdr[p.hn:need], b[n:])
		p.hn += uint8(c)
		n += c
		if p.hn == 2 { // the first two bytes say how long the header is
			if err := p.checkFirst(); err != nil {
				return n, err
			}
		}
	}
	if int(p.hn) < p.headerLen() {
		return n, nil
	}
	return n, p.finishHeader()
}

// headerLen is the length of the header being read, known once its first
// two bytes are.
func (p *Parser) headerLen() int {
	if p.hn < 2 {
		return 2
	}
	switch p.hdr[1] & 0x7f {
	case 126:
		return 4
	case 127:
		return 10
	}
	return 2
}

// checkFirst checks the first two header bytes: bits, opcode, mask and the
// control frames' rules.
func (p *Parser) checkFirst() error {
	b0, b1 := p.hdr[0], p.hdr[1]
	if b0&0x70 != 0 {
		return ErrReserved
	}
	op := b0 & 0x0f
	switch op {
	case OpContinuation, OpText, OpBinary, OpClose, OpPing, OpPong:
	default:
		return fmt.Errorf("%w %#x", ErrOpcode, op)
	}
	if b1&0x80 != 0 {
		return ErrMasked
	}
	fin := b0&0x80 != 0
	if IsControl(op) && (!fin || b1&0x7f > MaxControlPayload) {
		return ErrControl
	}
	if !IsControl(op) {
		if (op == OpContinuation) != p.frag {
			return ErrContinuation
		}
	}
	return nil
}

// finishHeader decodes the length of a complete header and updates the
// fragmentation state.
func (p *Parser) finishHeader() error {
	var l uint64
	switch l7 := p.hdr[1] & 0x7f; l7 {
	case 126:
		l = uint64(p.hdr[2])<<8 | uint64(p.hdr[3])
		if l < 126 {
			return ErrLength
		}
	case 127:
		for _, c := range p.hdr[2:10] {
			l = l<<8 | uint64(c)
		}
		if l>>63 != 0 || l <= 0xffff {
			return ErrLength
		}
	default:
		l = uint64(l7)
	}
	if l > uint64(p.MaxPayload) {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, l, p.MaxPayload)
	}
	p.fin, p.op, p.plen, p.inHdr = p.hdr[0]&0x80 != 0, p.hdr[0]&0x0f, int(l), true
	if !IsControl(p.op) {
		p.frag = !p.fin
	}
	return nil
}

// checkClose checks a close frame's payload: empty, or a status code that
// may be sent (RFC 6455 section 7.4) and a UTF-8 reason.
func checkClose(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if len(b) == 1 {
		return ErrClosePayload
	}
	code := int(b[0])<<8 | int(b[1])
	if !ValidCloseCode(code) {
		return fmt.Errorf("%w: code %d", ErrClosePayload, code)
	}
	if !utf8.Valid(b[2:]) {
		return fmt.Errorf("%w: reason is not UTF-8", ErrClosePayload)
	}
	return nil
}

// ValidCloseCode reports whether a close frame may carry code.
func ValidCloseCode(code int) bool {
	switch {
	case code >= 1000 && code <= 1003, code >= 1007 && code <= 1011:
		return true
	case code >= 3000 && code <= 4999:
		return true
	}
	return false
}

// CloseCode returns the status code of a valid close payload, 1005 (no
// status) for an empty one.
func CloseCode(payload []byte) int {
	if len(payload) < 2 {
		return 1005
	}
	return int(payload[0])<<8 | int(payload[1])
}

// AppendClientFrame appends one final client frame (masked with mask, as
// RFC 6455 requires of a client) with opcode op and payload to dst.
func AppendClientFrame(dst []byte, op byte, mask [4]byte, payload []byte) []byte {
	dst = append(dst, 0x80|op)
	switch l := len(payload); {
	case l < 126:
		dst = append(dst, 0x80|byte(l))
	case l <= 0xffff:
		dst = append(dst, 0x80|126, byte(l>>8), byte(l))
	default:
		dst = append(dst, 0x80|127, 0, 0, 0, 0, byte(l>>24), byte(l>>16), byte(l>>8), byte(l))
	}
	dst = append(dst, mask[:]...)
	for i, c := range payload {
		dst = append(dst, c^mask[i&3])
	}
	return dst
}

// AppendServerFrame appends one unmasked frame, as a server sends it, to
// dst: for servers and tests.
func AppendServerFrame(dst []byte, fin bool, op byte, payload []byte) []byte {
	b0 := op
	if fin {
		b0 |= 0x80
	}
	dst = append(dst, b0)
	switch l := len(payload); {
	case l < 126:
		dst = append(dst, byte(l))
	case l <= 0xffff:
		dst = append(dst, 126, byte(l>>8), byte(l))
	default:
		dst = append(dst, 127, 0, 0, 0, 0, byte(l>>24), byte(l>>16), byte(l>>8), byte(l))
	}
	return append(dst, payload...)
}

// acceptGUID is the fixed string of RFC 6455 section 1.3.
const acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// KeyLen is the length of a Sec-WebSocket-Key (16 bytes, base64) and
// AcceptLen that of its Sec-WebSocket-Accept (a SHA-1, base64).
const (
	KeyLen    = 24
	AcceptLen = 28
)

// EncodeKey writes the base64 of 16 nonce bytes into key.
func EncodeKey(key *[KeyLen]byte, nonce [16]byte) {
	base64.StdEncoding.Encode(key[:], nonce[:])
}

// Accept computes the Sec-WebSocket-Accept value for key into out.
func Accept(out *[AcceptLen]byte, key []byte) {
	h := sha1.New()
	h.Write(key)
	h.Write([]byte(acceptGUID))
	var sum [sha1.Size]byte
	base64.StdEncoding.Encode(out[:], h.Sum(sum[:0]))
}
