package execute

import (
	"io"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawPipe reads a pipe through the runtime's poller, as an os.File does,
// but with the read itself a raw system call: the read of a non-blocking
// pipe that the poller has found readable never waits, and a read through
// the runtime's syscall path after an idle spell wakes sysmon from its
// deep sleep and sets it polling every 20 us, a handful of context
// switches for each interval report the driver reads
// (docs/design.md#the-cost-of-measuring).
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
