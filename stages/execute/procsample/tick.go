package procsample

import (
	"context"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A ticker paces a Sampler. Its ticks come from a timerfd read through the
// runtime's poller rather than from a runtime timer: a runtime timer
// bounds sysmon's deep sleep, so each tick also woke sysmon, which then
// slept once more before going back to sleep (two of the run process's
// context switches per sample; see raw.go). A tick that comes while a
// sample is still being read is dropped, as a time.Ticker drops it.
type ticker struct {
	ctx      context.Context
	interval time.Duration
	f        *os.File // the timerfd; nil once it has failed
	rc       syscall.RawConn
	buf      [8]byte // the expiry count a read returns
	unwatch  func() bool
	fallback *time.Ticker // when there is no timerfd
}

// newTicker ticks every interval until ctx is done.
func newTicker(ctx context.Context, interval time.Duration) *ticker {
	t := &ticker{ctx: ctx, interval: interval}
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		t.fallback = time.NewTicker(interval)
		return t
	}
	every := unix.NsecToTimespec(int64(interval))
	t.f = os.NewFile(uintptr(fd), "timerfd")
	if err := unix.TimerfdSettime(fd, 0, &unix.ItimerSpec{Interval: every, Value: every}, nil); err != nil {
		t.fail()
		return t
	}
	if t.rc, err = t.f.SyscallConn(); err != nil {
		t.fail()
		return t
	}
	f := t.f
	t.unwatch = context.AfterFunc(ctx, func() { f.Close() }) // ends a wait in progress
	return t
}

// fail drops the timerfd for a time.Ticker.
func (t *ticker) fail() {
	t.f.Close()
	t.f = nil
	t.fallback = time.NewTicker(t.interval)
}

// wait waits for the next tick. It reports false once ctx is done.
func (t *ticker) wait() bool {
	if t.f != nil {
		var errno syscall.Errno
		err := t.rc.Read(func(fd uintptr) bool {
			_, _, errno = unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&t.buf[0])), uintptr(len(t.buf)))
			return errno != unix.EAGAIN
		})
		if err == nil && (errno == 0 || errno == unix.EINTR) {
			return t.ctx.Err() == nil
		}
		if t.ctx.Err() != nil {
			return false
		}
		t.unwatch()
		t.fail()
	}
	select {
	case <-t.ctx.Done():
		return false
	case <-t.fallback.C:
		return true
	}
}

// stop releases the ticker.
func (t *ticker) stop() {
	if t.f != nil {
		t.unwatch()
		t.f.Close()
	}
	if t.fallback != nil {
		t.fallback.Stop()
	}
}
