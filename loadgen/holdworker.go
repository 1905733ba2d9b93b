package loadgen

import (
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"yardstick/loadgen/wsframe"
)

// A holdWorker is one event loop of a connection-holding run: it owns a
// share of the connections (a slice of small structs, the run's only
// per-connection memory besides the kernel's sockets), an epoll set, one
// read buffer for all of them and its tallies. It opens its connections
// when the schedule says, does each one's handshake, and reads the
// heartbeats; it writes only a pong for a ping and a close for a close.
// No goroutine, buffer or timer per connection.

const (
	holdScanEvery  = int64(50 * time.Millisecond) // handshake timeouts and missing heartbeats
	holdReadBuf    = 64 << 10
	maxOpensAtOnce = 512 // connections one pass of the loop opens, so reads are not starved
)

type holdState uint8

const (
	hsPending    holdState = iota // not yet opened
	hsConnecting                  // non-blocking connect in progress
	hsHandshake                   // upgrade request written, waiting for 101
	hsOpen                        // upgraded: heartbeats flow
	hsClosed                      // ended; not reopened
)

// holdConn is one connection's state, about 100 bytes.
type holdConn struct {
	fd        int32
	idx       int32 // index in the worker's conns: the epoll key
	state     holdState
	src       uint8
	p         wsframe.Parser
	openAt    int64 // ns since start the connection is due (its request time)
	upgradeAt int64 // ns since start the 101 was read: the heartbeat schedule's origin
	lastSeq   int64 // the last heartbeat's SEQ
	expSeq    int64 // the next SEQ neither received nor counted missed
	accept    [wsframe.AcceptLen]byte
	hs        []byte // a 101 response split across reads, until it is whole
}

type holdWorker struct {
	id, nw    int
	conns     []holdConn
	next      int // the next connection to open
	ep        int
	events    []unix.EpollEvent
	rbuf      []byte
	wbuf      []byte
	req       wsframe.Request
	rng       rand.PCG
	target    unix.SockaddrInet4
	target6   *unix.SockaddrInet6
	srcs      [][4]byte
	h         Hold
	period    int64
	bound     int64
	hsTimeout int64

	start     time.Time
	startWall int64
	end       int64
	stepEnds  []int64 // when each step ends, ns since start
	stepIdx   int
	step      int64 // the interval's length
	nextRoll  int64
	nextScan  int64
	stop      *atomic.Bool
	cur, stp  *holdTally
	out       chan<- *holdTally
	free      chan *holdTally
	openConns int64
	exitAt    int64
	err       error
	ts        unix.Timespec
	raw       bool // a dedicated process: wait with a raw system call (see worker.wait)
	pwait2    bool
}

func (w *holdWorker) now() int64 { return int64(time.Since(w.start)) }

// run drives the worker's connections until the end or a stop, handing
// its interval and step tallies to out; the last ones have final set.
func (w *holdWorker) run(done chan<- struct{}) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer func() { done <- struct{}{} }()
	w.nextRoll = w.step
	for {
		now := w.now()
		if now >= w.end || w.stop.Load() {
			w.exitAt = min(now, w.end)
			break
		}
		if now >= w.nextRoll || now >= w.stepEnds[w.stepIdx] {
			w.roll(now)
		}
		if now >= w.nextScan {
			w.scan(now)
			w.nextScan = now + holdScanEvery
		}
		w.openDue(now)
		wake := min(w.nextRoll, w.nextScan, w.end, w.stepEnds[w.stepIdx])
		if w.next < len(w.conns) {
			wake = min(wake, w.conns[w.next].openAt)
		}
		n, err := epollWait(w.ep, w.events, &w.ts, wake-now, w.raw, &w.pwait2) // at most holdScanEvery
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			w.err, w.exitAt = err, min(w.now(), w.end)
			break
		}
		for i := 0; i < n; i++ {
			ev := &w.events[i]
			if c := &w.conns[ev.Fd]; c.state != hsClosed && c.state != hsPending {
				w.handle(c, ev.Events)
			}
		}
	}
	w.finish()
}

// finish closes every socket and hands in the last tallies.
func (w *holdWorker) finish() {
	for i := range w.conns {
		if c := &w.conns[i]; c.fd >= 0 {
			unix.Close(int(c.fd))
			c.fd = -1
		}
	}
	unix.Close(w.ep)
	w.cur.duration = w.exitAt - int64(w.cur.index)*w.step
	w.cur.open, w.cur.final = w.openConns, true
	w.out <- w.cur
	if w.stp != nil {
		w.stp.open, w.stp.final = w.openConns, true
		w.out <- w.stp
	}
}

// roll hands in the interval's tally, and the step's when the step ended.
func (w *holdWorker) roll(now int64) {
	for now >= w.nextRoll {
		w.cur.duration = w.step
		w.cur.open = w.openConns
		next := w.cur.index + 1 // before the hand-off: the aggregator may clear the tally at once
		w.out <- w.cur
		w.cur = w.fresh(next, false)
		w.nextRoll += w.step
	}
	for w.stp != nil && now >= w.stepEnds[w.stepIdx] {
		w.stp.open = w.openConns
		w.out <- w.stp
		w.stp = nil
		if w.stepIdx+1 < len(w.stepEnds) {
			w.stepIdx++
			w.stp = w.fresh(w.stepIdx, true)
		}
	}
}

func (w *holdWorker) fresh(index int, step bool) *holdTally {
	var t *holdTally
	select {
	case t = <-w.free:
	default:
		t = newHoldTally()
	}
	t.index, t.isStep = index, step
	return t
}

// count adds to both the interval's and the step's tally.
func (w *holdWorker) count(f func(t *holdTally)) {
	f(w.cur)
	if w.stp != nil {
		f(w.stp)
	}
}

// openDue opens the connections whose time has come.
func (w *holdWorker) openDue(now int64) {
	for k := 0; k < maxOpensAtOnce && w.next < len(w.conns) && w.conns[w.next].openAt <= now; k++ {
		c := &w.conns[w.next]
		w.next++
		w.open(c, now)
	}
}

// open starts one non-blocking connect from the connection's source
// address (bound before the connect, with the port left to the connect so
// that the 4-tuple, not the address, must be unique).
func (w *holdWorker) open(c *holdConn, now int64) {
	w.count(func(t *holdTally) { t.requested++ })
	family := unix.AF_INET
	if w.target6 != nil {
		family = unix.AF_INET6
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		w.refuse(c, localOrConnect(err))
		return
	}
	c.fd = int32(fd)
	if len(w.srcs) > 0 {
		_ = unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_BIND_ADDRESS_NO_PORT, 1)
		if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: w.srcs[c.src]}); err != nil {
			w.refuse(c, HoldErrLocal)
			return
		}
	}
	if w.target6 != nil {
		err = unix.Connect(fd, w.target6)
	} else {
		err = unix.Connect(fd, &w.target)
	}
	if err != nil && err != unix.EINPROGRESS {
		w.refuse(c, localOrConnect(err))
		return
	}
	c.state = hsConnecting
	c.openAt = now // from here the handshake timeout runs
	ev := unix.EpollEvent{Events: unix.EPOLLOUT | unix.EPOLLIN | unix.EPOLLRDHUP, Fd: c.idx}
	if err := unix.EpollCtl(w.ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		w.refuse(c, HoldErrLocal)
	}
}

// localOrConnect tells the load generator's own shortage (descriptors,
// ports, memory) from a target that refuses.
func localOrConnect(err error) HoldErrorKind {
	switch err {
	case unix.EMFILE, unix.ENFILE, unix.EADDRNOTAVAIL, unix.EADDRINUSE, unix.ENOBUFS, unix.ENOMEM:
		return HoldErrLocal
	}
	return HoldErrConnect
}

// refuse ends a connection that never got its 101.
func (w *holdWorker) refuse(c *holdConn, kind HoldErrorKind) {
	w.closeConn(c)
	w.count(func(t *holdTally) { t.refused++; t.errs[kind]++ })
}

// drop ends an upgraded connection.
func (w *holdWorker) drop(c *holdConn, kind HoldErrorKind) {
	w.closeConn(c)
	w.openConns--
	w.count(func(t *holdTally) { t.dropped++; t.errs[kind]++ })
}

func (w *holdWorker) closeConn(c *holdConn) {
	if c.fd >= 0 {
		unix.Close(int(c.fd)) // closing removes it from the epoll set
		c.fd = -1
	}
	c.state, c.hs = hsClosed, nil
}

// fail ends c with kind, as a refusal before the upgrade and a drop after.
func (w *holdWorker) fail(c *holdConn, kind HoldErrorKind) {
	if c.state == hsOpen {
		w.drop(c, kind)
	} else {
		w.refuse(c, kind)
	}
}
