package loadgen

import (
	"errors"
	"math"

	"golang.org/x/sys/unix"

	"yardstick/loadgen/wsframe"
)

// handle reacts to one epoll event on c.
func (w *holdWorker) handle(c *holdConn, events uint32) {
	if c.state == hsConnecting {
		if events&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) == 0 {
			return
		}
		if soerr, err := unix.GetsockoptInt(int(c.fd), unix.SOL_SOCKET, unix.SO_ERROR); err != nil || soerr != 0 {
			w.refuse(c, localOrConnect(unix.Errno(soerr)))
			return
		}
		w.sendHandshake(c)
		return
	}
	if events&(unix.EPOLLIN|unix.EPOLLERR|unix.EPOLLHUP|unix.EPOLLRDHUP) != 0 {
		w.read(c)
	}
}

// sendHandshake writes the upgrade request with a fresh key, whole or not
// at all (it is a few hundred bytes into an empty socket buffer), and
// waits for the response.
func (w *holdWorker) sendHandshake(c *holdConn) {
	var nonce [16]byte
	a, b := w.rng.Uint64(), w.rng.Uint64()
	for i := range 8 {
		nonce[i], nonce[8+i] = byte(a>>(8*i)), byte(b>>(8*i))
	}
	var key [wsframe.KeyLen]byte
	wsframe.EncodeKey(&key, nonce)
	wsframe.Accept(&c.accept, key[:])
	w.wbuf = w.req.SetKey(w.wbuf, &key)
	if n, err := rawWrite(int(c.fd), w.wbuf); err != nil || n != len(w.wbuf) {
		w.refuse(c, HoldErrHandshake)
		return
	}
	c.state = hsHandshake
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: c.idx}
	if err := unix.EpollCtl(w.ep, unix.EPOLL_CTL_MOD, int(c.fd), &ev); err != nil {
		w.refuse(c, HoldErrLocal)
	}
}

// read reads what c has (one read a wake: level-triggered epoll brings
// it back if there is more) and passes it to the handshake or the frames.
func (w *holdWorker) read(c *holdConn) {
	n, err := rawRead(int(c.fd), w.rbuf)
	if err == unix.EAGAIN {
		return
	}
	if err != nil || n == 0 {
		kind := HoldErrClosed
		if err != nil && err != unix.ECONNRESET && err != unix.EPIPE {
			kind = HoldErrRead
		}
		w.fail(c, kind)
		return
	}
	b := w.rbuf[:n]
	if c.state == hsHandshake {
		if b = w.handshake(c, b); b == nil {
			return
		}
	}
	w.frames(c, b)
}

// handshake takes response bytes until the head is whole, then checks it.
// It returns the bytes after the head (frames the server sent at once),
// or nil while the head is incomplete or when the connection was refused.
func (w *holdWorker) handshake(c *holdConn, b []byte) []byte {
	head := b
	if c.hs != nil {
		if len(c.hs)+len(b) > wsframe.MaxResponseHead {
			w.refuse(c, HoldErrHandshake)
			return nil
		}
		c.hs = append(c.hs, b...)
		head = c.hs
	}
	end := wsframe.ResponseEnd(head)
	if end == 0 {
		if len(head) >= wsframe.MaxResponseHead {
			w.refuse(c, HoldErrHandshake)
		} else if c.hs == nil {
			c.hs = append(make([]byte, 0, 512), b...)
		}
		return nil
	}
	if err := wsframe.CheckResponse(head[:end], &c.accept); err != nil {
		w.refuse(c, HoldErrHandshake)
		return nil
	}
	rest := head[end:] // a slice of c.hs when the head was split: it stays alive
	c.hs = nil
	c.state = hsOpen
	c.upgradeAt = w.now()
	c.expSeq = 1
	c.p = wsframe.Parser{MaxPayload: w.h.MaxFrame}
	w.openConns++
	w.count(func(t *holdTally) { t.established++ })
	return rest
}

// frames parses b as frames from the server and acts on each.
func (w *holdWorker) frames(c *holdConn, b []byte) {
	for len(b) > 0 && c.state == hsOpen {
		n, f, ok, err := c.p.Next(b)
		if err != nil {
			kind := HoldErrProtocol
			if errors.Is(err, wsframe.ErrTooLarge) {
				kind = HoldErrOversized
			}
			w.drop(c, kind)
			return
		}
		b = b[n:]
		if ok {
			w.frame(c, f)
		}
	}
}

// frame acts on one complete frame.
func (w *holdWorker) frame(c *holdConn, f wsframe.Frame) {
	switch f.Op {
	case wsframe.OpText:
		if !f.Fin {
			w.drop(c, HoldErrHeartbeat) // the protocol sends a heartbeat as one frame
			return
		}
		w.heartbeat(c, f.Payload)
	case wsframe.OpPing:
		w.reply(c, wsframe.OpPong, f.Payload)
	case wsframe.OpClose:
		code := wsframe.CloseCode(f.Payload)
		var echo [2]byte
		if code != 1005 {
			echo = [2]byte{byte(code >> 8), byte(code)}
		}
		payload := echo[:]
		if code == 1005 {
			payload = nil
		}
		w.reply(c, wsframe.OpClose, payload)
		if c.state == hsOpen {
			w.drop(c, HoldErrCloseFrame)
		}
	case wsframe.OpPong:
	default: // binary or continuation: not a heartbeat
		w.drop(c, HoldErrHeartbeat)
	}
}

// reply writes one masked control frame now, whole, or ends the
// connection: a client never queues, so a server that stops reading while
// it pings cannot make the load generator hold its unread replies.
func (w *holdWorker) reply(c *holdConn, op byte, payload []byte) {
	v := w.rng.Uint64()
	mask := [4]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}
	w.wbuf = wsframe.AppendClientFrame(w.wbuf[:0], op, mask, payload)
	if n, err := rawWrite(int(c.fd), w.wbuf); err != nil || n != len(w.wbuf) {
		w.drop(c, HoldErrWrite)
	}
}

// heartbeat records one heartbeat "SEQ SENT_NS": its delay from its
// expected time (upgrade + SEQ*period; coordinated-omission corrected: a
// server that stalls shows the stall even when it catches up) and its
// delivery latency (now - SENT_NS, wall clocks of one host).
func (w *holdWorker) heartbeat(c *holdConn, p []byte) {
	seq, sent, ok := parseHeartbeat(p)
	if !ok || seq != c.lastSeq+1 {
		w.drop(c, HoldErrHeartbeat)
		return
	}
	c.lastSeq = seq
	now := w.now()
	delay := now - (c.upgradeAt + seq*w.period)
	latency := w.startWall + now - sent
	late := seq >= c.expSeq && delay > w.bound
	if seq >= c.expSeq {
		c.expSeq = seq + 1
	}
	w.cur.heartbeat(delay, latency, late)
	if w.stp != nil {
		w.stp.heartbeat(delay, latency, late)
	}
}

// parseHeartbeat reads "SEQ SENT_NS": two decimal numbers, SEQ at least 1.
func parseHeartbeat(p []byte) (seq, sent int64, ok bool) {
	i, n := 0, 0
	for ; i < len(p) && p[i] != ' '; i++ {
		if p[i] < '0' || p[i] > '9' || n == 18 {
			return 0, 0, false
		}
		seq = seq*10 + int64(p[i]-'0')
		n++
	}
	if n == 0 || i == len(p) || seq < 1 {
		return 0, 0, false
	}
	n = 0
	for i++; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' || sent > (math.MaxInt64-9)/10 {
			return 0, 0, false
		}
		sent = sent*10 + int64(p[i]-'0')
		n++
	}
	return seq, sent, n > 0
}

// scan ends handshakes past their timeout and counts the heartbeats that
// are not there by their expected time plus the bound.
func (w *holdWorker) scan(now int64) {
	for i := range w.conns[:w.next] {
		c := &w.conns[i]
		switch c.state {
		case hsConnecting, hsHandshake:
			if now-c.openAt > w.hsTimeout {
				w.refuse(c, HoldErrHandshakeTimeout)
			}
		case hsOpen:
			for now > c.upgradeAt+c.expSeq*w.period+w.bound {
				c.expSeq++
				w.count(func(t *holdTally) { t.missed++ })
			}
		}
	}
}
