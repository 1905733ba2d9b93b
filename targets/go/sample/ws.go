package sample

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The heartbeat endpoint, GET /ws/heartbeat: a WebSocket (RFC 6455,
// version 13, no extension, no subprotocol) on which the server pushes a
// text frame "SEQ SENT_NS" every period_ms (100..600000, default 10000)
// counted from the upgrade, answers a ping with a pong and a close with a
// close, and ignores every other frame the client sends.
//
// The server side is written here on net/http's hijacking rather than
// with a WebSocket library, to keep a held connection cheap and the cost
// plain: per connection one goroutine blocked in a read on a 128-byte
// buffer (Go's netpoller parks it; its stack stays at the minimum) and
// one runtime timer (time.AfterFunc) that runs the next push in a
// short-lived goroutine and re-arms itself for upgrade + (SEQ+1)*period.
// A late push is sent late, never skipped. Writes (pushes, pongs, the
// close) are serialised by a per-connection mutex and bounded by a write
// deadline, so a client that stops reading loses its connection instead
// of piling up goroutines.

// Heartbeat bounds.
const (
	MinHeartbeatPeriod     = 100 * time.Millisecond
	MaxHeartbeatPeriod     = 600 * time.Second
	DefaultHeartbeatPeriod = 10 * time.Second
	// wsWriteTimeout bounds one write to a client.
	wsWriteTimeout = 5 * time.Second
	// wsMaxClientFrame bounds a frame the client sends; a longer one
	// closes the connection (1009, message too big).
	wsMaxClientFrame = 64 << 10
)

const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// heartbeat upgrades the request and serves the heartbeat protocol.
func (s *server) heartbeat(w http.ResponseWriter, r *http.Request) {
	period := DefaultHeartbeatPeriod
	if v := r.URL.Query().Get("period_ms"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || time.Duration(ms)*time.Millisecond < MinHeartbeatPeriod || time.Duration(ms)*time.Millisecond > MaxHeartbeatPeriod {
			http.Error(w, "period_ms: want an integer 100..600000", http.StatusBadRequest)
			return
		}
		period = time.Duration(ms) * time.Millisecond
	}
	key := r.Header.Get("Sec-WebSocket-Key")
	if !headerHas(r.Header, "Connection", "upgrade") || !headerHas(r.Header, "Upgrade", "websocket") ||
		r.Header.Get("Sec-WebSocket-Version") != "13" || len(key) != 24 {
		w.Header().Set("Sec-WebSocket-Version", "13")
		http.Error(w, "want a WebSocket version 13 upgrade", http.StatusBadRequest)
		return
	}
	if rec, ok := w.(*recorder); ok {
		rec.status = http.StatusSwitchingProtocols
	}
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		http.Error(w, "cannot upgrade: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := sha1.Sum([]byte(key + wsGUID))
	resp := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
		base64.StdEncoding.EncodeToString(h[:]) + "\r\n\r\n"
	_ = conn.SetDeadline(time.Now().Add(wsWriteTimeout))
	if _, err := io.WriteString(conn, resp); err != nil {
		conn.Close()
		return
	}
	_ = conn.SetDeadline(time.Time{})
	c := &wsConn{conn: conn, period: period, upgrade: time.Now()}
	var in io.Reader = conn
	if n := brw.Reader.Buffered(); n > 0 { // frames that came with the request
		b, _ := brw.Reader.Peek(n)
		in = io.MultiReader(strings.NewReader(string(b)), conn)
	}
	c.mu.Lock()
	c.timer = time.AfterFunc(period, c.push)
	c.mu.Unlock()
	go c.readLoop(in)
}

// headerHas reports whether header name holds token in its
// comma-separated values (case folded).
func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// wsConn is one upgraded connection.
type wsConn struct {
	conn    net.Conn
	period  time.Duration
	upgrade time.Time

	mu     sync.Mutex // serialises writes; guards the fields below
	seq    int64
	timer  *time.Timer
	closed bool
	wbuf   [64]byte
}

// push sends the next heartbeat and arms the timer for the one after.
func (c *wsConn) push() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.seq++
	sent := time.Now().UnixNano()
	p := strconv.AppendInt(c.wbuf[2:2], c.seq, 10)
	p = append(p, ' ')
	p = strconv.AppendInt(p, sent, 10)
	c.wbuf[0], c.wbuf[1] = 0x81, byte(len(p)) // FIN, text; a payload under 126 bytes
	if err := c.writeLocked(c.wbuf[:2+len(p)]); err != nil {
		return
	}
	next := c.upgrade.Add(time.Duration(c.seq+1) * c.period)
	c.timer.Reset(time.Until(next))
}

// writeLocked writes b with the write deadline; a failure closes the
// connection. c.mu is held.
func (c *wsConn) writeLocked(b []byte) error {
	_ = c.conn.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
	if _, err := c.conn.Write(b); err != nil {
		c.closeLocked()
		return err
	}
	return nil
}

func (c *wsConn) closeLocked() {
	if !c.closed {
		c.closed = true
		c.timer.Stop()
		c.conn.Close()
	}
}

// control writes one unmasked control frame (payload at most 125 bytes).
func (c *wsConn) control(op byte, payload []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	var b [2 + 125]byte
	b[0], b[1] = 0x80|op, byte(len(payload))
	n := 2 + copy(b[2:], payload)
	_ = c.writeLocked(b[:n])
}

// readLoop reads the client's frames until the connection ends: it
// answers pings and a close, discards data frames, and closes the
// connection on a protocol error (an unmasked frame, a control frame
// over 125 bytes, a frame over wsMaxClientFrame).
func (c *wsConn) readLoop(in io.Reader) {
	defer func() {
		c.mu.Lock()
		c.closeLocked()
		c.mu.Unlock()
	}()
	r := bufio.NewReaderSize(in, 128)
	var hdr [14]byte
	var payload [125]byte
	for {
		if _, err := io.ReadFull(r, hdr[:2]); err != nil {
			return
		}
		op, masked, l7 := hdr[0]&0x0f, hdr[1]&0x80 != 0, int(hdr[1]&0x7f)
		if !masked || hdr[0]&0x70 != 0 {
			c.control(0x8, []byte{0x03, 0xea}) // 1002 protocol error
			return
		}
		n, err := c.readLength(r, l7, hdr[2:])
		if err != nil || n > wsMaxClientFrame || (op >= 0x8 && (n > 125 || hdr[0]&0x80 == 0)) {
			c.control(0x8, []byte{0x03, 0xf1}) // 1009 too big
			return
		}
		var mask [4]byte
		if _, err := io.ReadFull(r, mask[:]); err != nil {
			return
		}
		if op < 0x8 { // data: ignored
			if _, err := r.Discard(int(n)); err != nil {
				return
			}
			continue
		}
		p := payload[:n]
		if _, err := io.ReadFull(r, p); err != nil {
			return
		}
		for i := range p {
			p[i] ^= mask[i&3]
		}
		switch op {
		case 0x9:
			c.control(0xA, p)
		case 0x8:
			c.control(0x8, p)
			return
		}
	}
}

// readLength reads the extended payload length l7 announces.
func (c *wsConn) readLength(r *bufio.Reader, l7 int, buf []byte) (int64, error) {
	switch l7 {
	case 126:
		if _, err := io.ReadFull(r, buf[:2]); err != nil {
			return 0, err
		}
		return int64(binary.BigEndian.Uint16(buf)), nil
	case 127:
		if _, err := io.ReadFull(r, buf[:8]); err != nil {
			return 0, err
		}
		v := binary.BigEndian.Uint64(buf)
		if v>>63 != 0 {
			return 0, errors.New("length")
		}
		return int64(v), nil
	}
	return int64(l7), nil
}
