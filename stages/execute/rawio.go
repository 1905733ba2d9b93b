package execute

import (
	"io"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The run process's reads of its pipes (the load generator's reports, the
// targets' logs) and its writes of small pieces of log go around the Go
// runtime's syscall bookkeeping. During a measure window the process is
// idle between a few dozen small events a second, and the first system
// call through the runtime's path after an idle spell wakes sysmon from
// its deep sleep and sets it polling every 20 us: a handful of context
// switches per event, each 15-25 us of CPU on the project's build machine
// (docs/design.md#the-cost-of-measuring).

// rawPipe reads a pipe through the runtime's poller, as an os.File does,
// but with the read itself a raw system call: the read of a non-blocking
// pipe that the poller has found readable never waits.
type rawPipe struct {
	f  *os.File
	rc syscall.RawConn
}

// newRawPipe returns a reader of f; f itself when it cannot give its
// descriptor to the poller's callbacks.
func newRawPipe(f *os.File) io.Reader {
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	return &rawPipe{f: f, rc: rc}
}

func (p *rawPipe) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n uintptr
	var errno syscall.Errno
	err := p.rc.Read(func(fd uintptr) bool {
		for {
			n, _, errno = unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			if errno != unix.EINTR {
				return errno != unix.EAGAIN
			}
		}
	})
	switch {
	case err != nil: // closed: the file's own read says so as it always has
		return p.f.Read(b)
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: p.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return int(n), nil
}

// rawWriteMax bounds a raw write: a raw system call holds its P, which
// sysmon cannot hand to another goroutine, so only pieces that the page
// cache takes in microseconds (a GC log line, an access log line) are
// written raw; a target flooding its output is written the runtime's way.
const rawWriteMax = 4 << 10

// writeLog writes b to the log file f.
func writeLog(f *os.File, b []byte) error {
	if len(b) > rawWriteMax {
		_, err := f.Write(b)
		return err
	}
	rc, err := f.SyscallConn()
	if err != nil {
		_, err := f.Write(b)
		return err
	}
	var errno syscall.Errno
	err = rc.Write(func(fd uintptr) bool {
		for len(b) > 0 && errno == 0 {
			n, _, e := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			switch {
			case e == unix.EINTR:
			case e != 0:
				errno = e
			case n == 0:
				errno = unix.EIO // a regular file takes some of every write
			default:
				b = b[n:]
			}
		}
		return true
	})
	switch {
	case err != nil: // closed: the file's own write says so
		_, err := f.Write(b)
		return err
	case errno != 0:
		return &os.PathError{Op: "write", Path: f.Name(), Err: errno}
	}
	return nil
}
