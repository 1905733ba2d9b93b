package procsample

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The reader's system calls on /proc go around the Go runtime's syscall
// bookkeeping (entersyscall/exitsyscall). A sample comes every interval to
// a process that is otherwise idle, and the first system call through the
// runtime's path after an idle spell wakes sysmon from its deep sleep and
// resets it to polling every 20 us: in a profile of `yardstick run` during
// a measure window, sysmon's own sleeps and wake-ups were two thirds of the
// run process's context switches, and a context switch was most of what a
// sample cost (docs/design.md#the-cost-of-measuring). These calls never
// wait for anything but the kernel generating a /proc file, so holding the
// P through them costs nothing.

// rawOpen is open(2) of path, relative to the working directory when it
// is not absolute. path is copied into buf, NUL-terminated; buf is
// returned for reuse.
func rawOpen(buf []byte, path string, flags int) (int, []byte, error) {
	buf = append(append(buf[:0], path...), 0)
	dir := unix.AT_FDCWD
	fd, _, e := unix.RawSyscall6(unix.SYS_OPENAT, uintptr(dir), uintptr(unsafe.Pointer(&buf[0])),
		uintptr(flags), 0, 0, 0)
	if e != 0 {
		return -1, buf, e
	}
	return int(fd), buf, nil
}

func rawPread(fd int, p []byte, off int64) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_PREAD64, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)),
		uintptr(off), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func rawGetdents(fd int, p []byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_GETDENTS64, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func rawRewind(fd int) error {
	if _, _, e := unix.RawSyscall(unix.SYS_LSEEK, uintptr(fd), 0, 0); e != 0 {
		return e
	}
	return nil
}

func rawClose(fd int) {
	_, _, _ = unix.RawSyscall(unix.SYS_CLOSE, uintptr(fd), 0, 0)
}
