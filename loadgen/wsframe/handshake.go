package wsframe

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// MaxResponseHead bounds the server's handshake response (status line and
// headers); a longer one is refused.
const MaxResponseHead = 4 << 10

// Request is a rendered opening handshake with room for the key: the
// bytes to send once Key's 24 bytes are written at KeyAt.
type Request struct {
	Bytes []byte
	KeyAt int
}

// NewRequest renders the opening handshake for GET target (path and
// query) on host, with extra "Name: value" headers. The key is left as
// zeros at KeyAt; SetKey fills it in.
func NewRequest(host, target string, headers []string) (Request, error) {
	if target == "" || target[0] != '/' || strings.ContainsAny(target, " \r\n") {
		return Request{}, fmt.Errorf("websocket request target %q: want a path beginning with /", target)
	}
	if strings.ContainsAny(host, " \r\n") || host == "" {
		return Request{}, fmt.Errorf("websocket host %q: bad host", host)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n", target, host)
	for _, h := range headers {
		if strings.ContainsAny(h, "\r\n") {
			return Request{}, fmt.Errorf("header %q: line break", h)
		}
		b.WriteString(h)
		b.WriteString("\r\n")
	}
	b.WriteString("Sec-WebSocket-Key: ")
	at := b.Len()
	b.Write(make([]byte, KeyLen))
	b.WriteString("\r\n\r\n")
	return Request{Bytes: b.Bytes(), KeyAt: at}, nil
}

// SetKey copies the request into dst (reusing its memory) with key in
// place, and returns it.
func (r Request) SetKey(dst []byte, key *[KeyLen]byte) []byte {
	dst = append(dst[:0], r.Bytes...)
	copy(dst[r.KeyAt:], key[:])
	return dst
}

// ErrHandshake is wrapped by every refused handshake response.
var ErrHandshake = errors.New("websocket handshake refused")

// ResponseEnd returns the length of the response head in b (up to and
// including the blank line), or 0 when b does not hold all of it yet.
func ResponseEnd(b []byte) int {
	if i := bytes.Index(b, []byte("\r\n\r\n")); i >= 0 {
		return i + 4
	}
	return 0
}

// CheckResponse checks a complete response head (as ResponseEnd delimits
// it) against the accept value the request's key asks for: status 101,
// Upgrade: websocket, Connection: upgrade, the right Sec-WebSocket-Accept,
// and no extension or subprotocol (none was offered). The error names the
// status or the header at fault.
func CheckResponse(head []byte, accept *[AcceptLen]byte) error {
	line, rest, _ := bytes.Cut(head, []byte("\r\n"))
	proto, status, _ := bytes.Cut(line, []byte(" "))
	if !bytes.HasPrefix(proto, []byte("HTTP/1.")) {
		return fmt.Errorf("%w: status line %.60q", ErrHandshake, line)
	}
	if code, _, _ := bytes.Cut(status, []byte(" ")); string(code) != "101" {
		return fmt.Errorf("%w: status %.40q", ErrHandshake, status)
	}
	var upgrade, connection, gotAccept bool
	for len(rest) > 0 {
		var l []byte
		l, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		if len(l) == 0 {
			break
		}
		k, v, ok := bytes.Cut(l, []byte(":"))
		if !ok {
			return fmt.Errorf("%w: header line %.60q", ErrHandshake, l)
		}
		v = bytes.TrimSpace(v)
		switch strings.ToLower(string(bytes.TrimSpace(k))) {
		case "upgrade":
			upgrade = bytes.EqualFold(v, []byte("websocket"))
		case "connection":
			connection = hasToken(v, "upgrade")
		case "sec-websocket-accept":
			if !bytes.Equal(v, accept[:]) {
				return fmt.Errorf("%w: Sec-WebSocket-Accept %.40q, want %s", ErrHandshake, v, accept[:])
			}
			gotAccept = true
		case "sec-websocket-extensions", "sec-websocket-protocol":
			return fmt.Errorf("%w: %s %.40q was not offered", ErrHandshake, k, v)
		}
	}
	switch {
	case !upgrade:
		return fmt.Errorf("%w: no Upgrade: websocket", ErrHandshake)
	case !connection:
		return fmt.Errorf("%w: no Connection: upgrade", ErrHandshake)
	case !gotAccept:
		return fmt.Errorf("%w: no Sec-WebSocket-Accept", ErrHandshake)
	}
	return nil
}

// hasToken reports whether the comma-separated list v holds token (case
// folded).
func hasToken(v []byte, token string) bool {
	for _, t := range bytes.Split(v, []byte(",")) {
		if bytes.EqualFold(bytes.TrimSpace(t), []byte(token)) {
			return true
		}
	}
	return false
}
