package loadgen

import (
	"errors"
	"math"
	"math/rand/v2"
	"net"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A worker is one event loop: a goroutine that owns a share of the
// connections, an epoll set and a tally, and drives them with non-blocking
// system calls the way wrk does. Per request it makes one write, the reads
// the response needs, and its share of an epoll wait; it takes two clock
// readings and allocates nothing.

const (
	scanEvery   = int64(20 * time.Millisecond) // timeouts and reconnects are checked this often
	maxBackoff  = int64(500 * time.Millisecond)
	minBackoff  = int64(time.Millisecond)
	readBufSize = 64 << 10
)

type connState uint8

const (
	csDown       connState = iota // no socket; reconnect at retryAt
	csConnecting                  // non-blocking connect in progress
	csIdle                        // connected, nothing outstanding
	csWriting                     // request partly written, waiting to write the rest
	csReading                     // request written, waiting for the response
)

type conn struct {
	fd       int
	slot     int32 // index in worker.conns, the epoll key
	gen      int32 // bumped on every new socket, so stale events are ignored
	idx      int64 // global index among all connections, for the schedule
	state    connState
	p        parser
	wbuf     []byte
	woff     int
	intended int64 // ns since start the request was meant to be sent (closed loop: when it was)
	sentAt   int64 // ns since start the request was written
	k        int64 // open loop: the connection's next slot in its schedule
	retryAt  int64
	backoff  int64
	heapIdx  int   // position in the due heap, -1 when not in it
	dueAt    int64 // open loop: the slot an idle connection waits for
	wantOut  bool  // EPOLLOUT is in the socket's epoll events
}

type worker struct {
	conns   []*conn
	ep      int
	events  []unix.EpollEvent
	rbuf    []byte
	reqs    *requests
	rng     rand.PCG
	family  int
	sa      unix.Sockaddr
	start   time.Time
	end     int64 // ns since start when the run stops
	timeout int64
	sched   Schedule // open loop only
	open    bool
	quota   int64 // sends left; <0 means unbounded
	stop    *atomic.Bool

	cur      *tally
	nextRoll int64 // when the current interval ends
	step     int64 // the interval's length, ns
	nextScan int64
	out      chan<- *tally
	free     chan *tally
	due      dueHeap
	ts       unix.Timespec
	pwait2   bool
	raw      bool // a dedicated process: wait with a raw system call

	outstanding int64
	exitAt      int64
	err         error
}

func (w *worker) now() int64 { return int64(time.Since(w.start)) }

func newWorker(addr *net.TCPAddr, reqs *requests, seed uint64, id int) (*worker, error) {
	w := &worker{reqs: reqs, rbuf: make([]byte, readBufSize), pwait2: true}
	w.rng.Seed(seed, uint64(id)+1)
	if ip4 := addr.IP.To4(); ip4 != nil {
		sa := &unix.SockaddrInet4{Port: addr.Port}
		copy(sa.Addr[:], ip4)
		w.family, w.sa = unix.AF_INET, sa
	} else {
		sa := &unix.SockaddrInet6{Port: addr.Port}
		copy(sa.Addr[:], addr.IP.To16())
		w.family, w.sa = unix.AF_INET6, sa
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	w.ep = ep
	return w, nil
}

// prepare allocates what the event loop needs, so that run allocates
// nothing but a tally when the aggregator has none to give back.
func (w *worker) prepare() {
	w.events = make([]unix.EpollEvent, min(len(w.conns), 512)+1)
	w.cur = newTally()
}

func (w *worker) addConn(globalIdx int64) {
	c := &conn{fd: -1, slot: int32(len(w.conns)), idx: globalIdx, heapIdx: -1}
	c.p.headOnly = w.reqs.head
	w.conns = append(w.conns, c)
}

// run drives the connections until the end of the window, a stop, or the
// request quota. It hands its tallies to out, the last one with final set.
func (w *worker) run(final chan<- *tally) {
	// One OS thread per event loop: the loop then never migrates between
	// threads when it comes back from epoll, which saves wake-ups.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	w.nextRoll = w.step
	now := w.now()
	for _, c := range w.conns {
		w.connect(c, now)
	}
	for {
		now = w.now()
		if now >= w.end || w.stop.Load() || (w.quota == 0 && w.outstanding == 0) {
			break
		}
		if now >= w.nextRoll {
			w.roll(now)
		}
		if now >= w.nextScan {
			w.scan(now)
			w.nextScan = now + scanEvery
		}
		if w.open {
			w.sendDue(now)
		}
		wake := min(w.nextRoll, w.nextScan, w.end)
		if w.open && len(w.due) > 0 && w.due[0].dueAt < wake {
			wake = w.due[0].dueAt
		}
		n, err := w.wait(wake - now)
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			w.err = err
			break
		}
		for i := 0; i < n; i++ {
			ev := &w.events[i]
			if int(ev.Fd) >= len(w.conns) {
				continue
			}
			c := w.conns[ev.Fd]
			if ev.Pad != c.gen || c.fd < 0 {
				continue // an event for a socket closed earlier in this batch
			}
			w.handle(c, ev.Events)
		}
	}
	w.exitAt = min(now, w.end)
	for _, c := range w.conns {
		if c.fd >= 0 {
			unix.Close(c.fd)
			c.fd = -1
		}
	}
	unix.Close(w.ep)
	w.cur.duration = w.exitAt - int64(w.cur.index)*w.step
	final <- w.cur
}

// wait is epoll_pwait2 with a nanosecond timeout, so open-loop sends are not
// rounded to epoll_wait's milliseconds; it falls back on old kernels.
//
// In a dedicated process (see Dedicate) it is a raw system call: the
// runtime does not see the loop enter a system call, so sysmon never
// retakes the loop's P while it waits (a retake, and the hand-off back,
// every few milliseconds woke threads on the loop's CPU and kept sysmon
// polling every 20 us). The wait is bounded (scanEvery at most), and a
// signal the runtime sends to stop the world or preempt the loop
// interrupts it with EINTR.
func (w *worker) wait(timeout int64) (int, error) {
	return epollWait(w.ep, w.events, &w.ts, timeout, w.raw, &w.pwait2)
}

// epollWait is the wait of every event loop (see worker.wait): raw in a
// dedicated process, epoll_pwait2 while the kernel has it (*pwait2), ts
// the loop's own timespec so the call allocates nothing.
func epollWait(ep int, events []unix.EpollEvent, ts *unix.Timespec, timeout int64, raw bool, pwait2 *bool) (int, error) {
	timeout = max(timeout, 0)
	if *pwait2 {
		*ts = unix.NsecToTimespec(timeout)
		syscall6 := unix.Syscall6
		if raw {
			syscall6 = unix.RawSyscall6
		}
		r, _, e := syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(ep), uintptr(unsafe.Pointer(&events[0])),
			uintptr(len(events)), uintptr(unsafe.Pointer(ts)), 0, 0)
		if e == 0 {
			return int(r), nil
		}
		if e != unix.ENOSYS {
			return 0, e
		}
		*pwait2 = false
	}
	ms := int((timeout + int64(time.Millisecond) - 1) / int64(time.Millisecond))
	return unix.EpollWait(ep, events, ms)
}

// roll hands the finished intervals' tallies to the aggregator.
func (w *worker) roll(now int64) {
	for now >= w.nextRoll {
		w.cur.duration = w.step
		next := w.cur.index + 1
		w.out <- w.cur
		select {
		case w.cur = <-w.free:
		default:
			w.cur = newTally()
		}
		w.cur.index = next
		w.nextRoll += w.step
	}
}

func (w *worker) scan(now int64) {
	for _, c := range w.conns {
		switch c.state {
		case csDown:
			if now >= c.retryAt {
				w.connect(c, now)
			}
		case csConnecting:
			if now-c.retryAt > w.timeout {
				w.cur.errs[ErrConnect]++
				w.drop(c, now, true)
			}
		case csReading, csWriting:
			if now-c.sentAt > w.timeout {
				w.cur.errs[ErrTimeout]++
				w.drop(c, now, false)
			}
		}
	}
}

func (w *worker) connect(c *conn, now int64) {
	fd, err := unix.Socket(w.family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		w.cur.errs[ErrConnect]++
		c.state = csDown
		c.backoff = min(max(c.backoff*2, minBackoff), maxBackoff)
		c.retryAt = now + c.backoff
		return
	}
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	c.fd = fd
	c.gen++
	c.wantOut = false
	c.retryAt = now // connect start, for the connect timeout
	err = unix.Connect(fd, w.sa)
	switch {
	case err == nil:
		c.state = csIdle
		w.ctl(unix.EPOLL_CTL_ADD, c, unix.EPOLLIN)
		w.ready(c)
	case errors.Is(err, unix.EINPROGRESS):
		c.state = csConnecting
		w.ctl(unix.EPOLL_CTL_ADD, c, unix.EPOLLIN|unix.EPOLLOUT)
	default:
		w.cur.errs[ErrConnect]++
		w.drop(c, now, true)
	}
}

func (w *worker) ctl(op int, c *conn, events uint32) {
	ev := unix.EpollEvent{Events: events, Fd: c.slot, Pad: c.gen}
	if err := unix.EpollCtl(w.ep, op, c.fd, &ev); err != nil && w.err == nil {
		w.err = err
	}
}

// drop closes c's socket and schedules a new one: after a back-off when
// connecting failed, at once otherwise, and never once the request quota
// is spent.
func (w *worker) drop(c *conn, now int64, backoff bool) {
	if c.fd >= 0 {
		unix.Close(c.fd) // also removes it from the epoll set
		c.fd = -1
	}
	if c.state == csReading || c.state == csWriting {
		w.outstanding--
	}
	if c.heapIdx >= 0 {
		w.due.remove(c)
	}
	c.p.release()
	c.state = csDown
	if w.quota == 0 {
		c.retryAt = math.MaxInt64 // nothing left to send: no new connection
		return
	}
	if backoff {
		c.backoff = min(max(c.backoff*2, minBackoff), maxBackoff)
		c.retryAt = now + c.backoff
		return
	}
	c.retryAt = now
	w.cur.reconnects++
	w.connect(c, now)
}

func (w *worker) handle(c *conn, events uint32) {
	switch c.state {
	case csConnecting:
		if events&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) == 0 {
			return
		}
		if soerr, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR); err != nil || soerr != 0 {
			w.cur.errs[ErrConnect]++
			w.drop(c, w.now(), true)
			return
		}
		c.state = csIdle
		c.backoff = 0
		w.ctl(unix.EPOLL_CTL_MOD, c, unix.EPOLLIN)
		w.ready(c)
	case csWriting:
		if events&unix.EPOLLOUT != 0 {
			w.flush(c)
		}
		if c.state == csWriting && events&(unix.EPOLLIN|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			w.read(c)
		}
	default:
		if events&(unix.EPOLLIN|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			w.read(c)
		}
	}
}

func (w *worker) read(c *conn) {
	n, err := rawRead(c.fd, w.rbuf)
	if err == unix.EAGAIN || err == unix.EINTR {
		return
	}
	if err != nil || n <= 0 {
		now := w.now()
		if c.state == csReading && c.p.eof() { // a body delimited by the close
			w.cur.record(now-c.intended, c.p.status)
			w.outstanding--
			c.state = csIdle
			w.drop(c, now, false)
			return
		}
		if c.state == csReading || c.state == csWriting {
			w.cur.errs[ErrShortRead]++
		}
		w.drop(c, now, false)
		return
	}
	w.cur.bytes += int64(n)
	if c.state != csReading && c.state != csWriting {
		w.cur.errs[ErrParse]++ // bytes nobody asked for
		w.drop(c, w.now(), false)
		return
	}
	used, done, perr := c.p.feed(w.rbuf[:n])
	if perr != nil {
		w.cur.errs[ErrParse]++
		w.drop(c, w.now(), false)
		return
	}
	if !done {
		return
	}
	now := w.now()
	w.cur.record(now-c.intended, c.p.status)
	w.outstanding--
	// A response that came before the request was fully written (a 413
	// before a large body) leaves the rest of the request unsent: the
	// connection cannot carry another one.
	unsent := c.state == csWriting
	c.state = csIdle
	if used < n || c.p.close || unsent {
		if used < n {
			w.cur.errs[ErrParse]++ // bytes after the response: nobody asked for them
		}
		w.drop(c, now, false)
		return
	}
	w.ready(c)
}

// ready gives an idle connection its next request: at once in a closed
// loop, at its slot in an open one.
func (w *worker) ready(c *conn) {
	if w.quota == 0 || c.state != csIdle {
		return
	}
	if !w.open {
		w.send(c, -1)
		return
	}
	at := w.sched.At(c.idx, c.k)
	if at <= w.now() {
		w.send(c, at)
		return
	}
	w.due.push(c, at)
}

// sendDue sends every open-loop request whose slot has come.
func (w *worker) sendDue(now int64) {
	for len(w.due) > 0 && w.due[0].dueAt <= now && w.quota != 0 {
		c := w.due.pop()
		w.send(c, c.dueAt)
	}
}

// send writes c's next request; intended is its slot (open loop) or -1.
func (w *worker) send(c *conn, intended int64) {
	v := 0
	if n := uint64(len(w.reqs.variants)); n > 1 {
		v = int(w.rng.Uint64() % n)
	}
	c.wbuf = w.reqs.variants[v]
	c.woff = 0
	now := w.now()
	c.sentAt = now
	if intended < 0 {
		c.intended = now
	} else {
		c.intended = intended
		c.k++
		if now-intended > int64(LateThreshold) {
			w.cur.lateSends++
		}
	}
	w.cur.sends++
	if w.quota > 0 {
		w.quota--
	}
	w.outstanding++
	c.state = csWriting
	w.flush(c)
}

// flush writes what is left of c's request, waiting for room when the
// socket buffer is full.
func (w *worker) flush(c *conn) {
	n, err := rawWrite(c.fd, c.wbuf[c.woff:])
	if err != nil && err != unix.EAGAIN && err != unix.EINTR {
		w.cur.errs[ErrWrite]++
		w.drop(c, w.now(), false)
		return
	}
	if n > 0 {
		c.woff += n
	}
	if c.woff == len(c.wbuf) {
		c.state = csReading
		if c.wantOut {
			c.wantOut = false
			w.ctl(unix.EPOLL_CTL_MOD, c, unix.EPOLLIN)
		}
		return
	}
	if !c.wantOut {
		c.wantOut = true
		w.ctl(unix.EPOLL_CTL_MOD, c, unix.EPOLLIN|unix.EPOLLOUT)
	}
}

// rawRead and rawWrite are read(2) and write(2) without the Go runtime's
// syscall bookkeeping (entersyscall/exitsyscall): the sockets are
// non-blocking, so these calls never block, and the loop thread is locked
// to its event loop anyway. Two of them per request are most of the
// generator's own user-space cost.
func rawRead(fd int, p []byte) (int, error) {
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

func rawWrite(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}
