package execute

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"yardstick/pipeline/runfs"
)

// DefaultLogCap is how much of a target's or service's stdout and stderr
// each log keeps (Options.LogCap): a target that writes as fast as it can
// would otherwise fill the disk (1.7 GB in a 5 s run).
const DefaultLogCap = 64 << 20

// logDrainWait bounds how long a stopped target's log copier waits for the
// last writer of its pipe to close before it stops reading.
const logDrainWait = time.Second

// A cappedLog hands a process the write end of a pipe as its stdout or
// stderr and copies what arrives into the log file up to the cap. Past the
// cap it keeps reading and discards, so that the process never blocks on a
// full pipe, and counts what it dropped.
type cappedLog struct {
	name    string
	child   *os.File // the pipe's write end, for the process
	r       *os.File
	f       *os.File
	limit   int64
	dropped atomic.Int64
	done    chan struct{}
}

// openCappedLog opens (appending) the log at path, keeping at most limit
// bytes of it.
func openCappedLog(path string, limit int64) (*cappedLog, error) {
	f, err := runfs.OpenLog(path, false) // never through a link, never blocked by a pipe
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("pipe for %s: %w", path, err)
	}
	l := &cappedLog{name: path, child: w, r: r, f: f, limit: limit, done: make(chan struct{})}
	go l.copy()
	return l, nil
}

func (l *cappedLog) copy() {
	defer close(l.done)
	defer l.f.Close()
	defer l.r.Close()
	var written int64
	if st, err := l.f.Stat(); err == nil {
		written = st.Size()
	}
	buf := make([]byte, 64<<10)
	r := newRawPipe(l.r)
	for {
		if written >= l.limit && l.discard() {
			return
		}
		n, err := r.Read(buf)
		if keep := min(int64(n), max(l.limit-written, 0)); keep > 0 {
			if werr := writeLog(l.f, buf[:keep]); werr != nil {
				l.dropped.Add(keep) // a full disk loses the rest, counted
			}
			written += keep
			l.dropped.Add(int64(n) - keep)
		} else {
			l.dropped.Add(int64(n))
		}
		if err != nil {
			return
		}
	}
}

// discard drains the pipe past the cap with splice(2) into /dev/null, so
// that a target flooding its output costs yardstick (pinned beside the
// load generator) no copying. It reports false when splice is refused,
// and the caller reads and discards instead.
func (l *cappedLog) discard() bool {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	defer null.Close()
	rc, err := l.r.SyscallConn()
	if err != nil {
		return false
	}
	for {
		var n int64
		var serr error
		err := rc.Read(func(fd uintptr) bool {
			n, serr = unix.Splice(int(fd), nil, int(null.Fd()), nil, 1<<20, unix.SPLICE_F_NONBLOCK)
			return !errors.Is(serr, unix.EAGAIN)
		})
		switch {
		case errors.Is(serr, unix.EINVAL) || errors.Is(serr, unix.ENOSYS):
			return false
		case err != nil || serr != nil || n == 0:
			return true // closed, or every writer gone
		}
		l.dropped.Add(n)
	}
}

// started closes this process's copy of the write end once the child holds
// its own, so that the pipe ends when the child's writers are gone.
func (l *cappedLog) started() { _ = l.child.Close() }

// close waits up to wait for every writer of the pipe to be gone, then
// stops reading; it returns the bytes dropped past the cap.
func (l *cappedLog) close(wait time.Duration) int64 {
	_ = l.child.Close()
	select {
	case <-l.done:
	case <-time.After(wait):
		_ = l.r.Close()
		<-l.done
	}
	return l.dropped.Load()
}

// targetLogs are a process's stdout.log and stderr.log under dir.
type targetLogs struct{ stdout, stderr *cappedLog }

// logCap is the cap of each log.
func (r *planRun) logCap() int64 {
	if r.opts.LogCap > 0 {
		return r.opts.LogCap
	}
	return DefaultLogCap
}

func (r *planRun) openLogs(dir string) (*targetLogs, error) {
	limit := r.logCap()
	out, err := openCappedLog(dir+"/stdout.log", limit)
	if err != nil {
		return nil, err
	}
	errl, err := openCappedLog(dir+"/stderr.log", limit)
	if err != nil {
		out.close(0)
		return nil, err
	}
	return &targetLogs{stdout: out, stderr: errl}, nil
}

func (l *targetLogs) started() { l.stdout.started(); l.stderr.started() }

// close ends both copiers and returns what each dropped.
func (l *targetLogs) close(wait time.Duration) (stdout, stderr int64) {
	return l.stdout.close(wait), l.stderr.close(wait)
}

// settled waits up to wait for the copier to have copied everything the
// process wrote (its pipe closed): what a failure message quotes of an
// exited target's log is then the whole of it.
func (l *cappedLog) settled(wait time.Duration) {
	select {
	case <-l.done:
	case <-time.After(wait):
	}
}

// stderrTail is the tail of the target's stderr.log; once the target has
// exited, after its last words have been copied.
func (t *target) stderrTail() string {
	if t.logs != nil && (t.p == nil || t.p.Exited()) {
		t.logs.stderr.settled(logDrainWait)
	}
	return tail(t.stderr)
}
