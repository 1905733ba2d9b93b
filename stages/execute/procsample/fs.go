package procsample

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/prometheus/procfs"
)

// FS is the /proc tree a sample reads: procfs for the files read once in a
// while, and the tree's mount point for the files every sample reads
// (/proc/<pid>/stat and each thread's status), which are parsed in place
// from one reused buffer: the sampler runs beside the load, on the load
// generator's CPUs, so what it costs per interval counts
// (docs/design.md#the-cost-of-measuring).
type FS struct {
	procfs.FS
	root string
}

// NewFS returns the /proc tree mounted at mountPoint (a fixture tree in
// tests).
func NewFS(mountPoint string) (FS, error) {
	pfs, err := procfs.NewFS(mountPoint)
	if err != nil {
		return FS{}, fmt.Errorf("procsample: %w", err)
	}
	return FS{FS: pfs, root: mountPoint}, nil
}

// DefaultFS returns the tree at /proc.
func DefaultFS() (FS, error) { return NewFS(procfs.DefaultMountPoint) }

// stat is what a sample needs of /proc/<pid>/stat.
type stat struct {
	state                        byte
	pgrp                         int
	utime, stime, cutime, cstime int64
	threads                      int
	rssPages                     int64
}

// reader reads /proc files into one buffer it keeps, so that a sample
// allocates nothing per process or thread once the buffer has grown.
type reader struct {
	fs      FS
	buf     []byte
	sampled []int // the processes the last sample summed over
}

func newReader(fs FS) *reader { return &reader{fs: fs, buf: make([]byte, 4096)} }

// read reads the file at path into r.buf and returns its bytes.
func (r *reader) read(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n := 0
	for {
		m, err := f.Read(r.buf[n:])
		n += m
		// A /proc stat or status file is generated whole on the first
		// read, so a read that does not fill the buffer has it all.
		if errors.Is(err, io.EOF) || (err == nil && (m == 0 || n < len(r.buf))) {
			return r.buf[:n], nil
		}
		if err != nil {
			return nil, err
		}
		if n == len(r.buf) {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
	}
}

// stat reads /proc/<pid>/stat. The command name, in parentheses, may hold
// anything, so fields are counted from the last ')'.
func (r *reader) stat(pid int) (stat, error) {
	b, err := r.read(filepath.Join(r.fs.root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return stat{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, fmt.Errorf("procsample: pid %d: malformed stat", pid)
	}
	// Fields after the name, from 0: state, ppid, pgrp, ..., utime (11),
	// stime, cutime, cstime, ..., num_threads (17), ..., rss (21).
	var s stat
	var f [22]int64
	rest := b[i+1:]
	for field := range f {
		rest = bytes.TrimLeft(rest, " ")
		j := bytes.IndexAny(rest, " \n")
		if j < 0 {
			j = len(rest)
		}
		tok := rest[:j]
		rest = rest[j:]
		if field == 0 {
			if len(tok) != 1 {
				return stat{}, fmt.Errorf("procsample: pid %d: malformed stat state %q", pid, tok)
			}
			s.state = tok[0]
			continue
		}
		v, ok := parseInt(tok)
		if !ok {
			return stat{}, fmt.Errorf("procsample: pid %d: stat field %d is %q, not a number", pid, field+3, tok)
		}
		f[field] = v
	}
	s.pgrp = int(f[2])
	s.utime, s.stime, s.cutime, s.cstime = f[11], f[12], f[13], f[14]
	s.threads = int(f[17])
	s.rssPages = f[21]
	return s, nil
}

var (
	volKey    = []byte("\nvoluntary_ctxt_switches:")
	nonvolKey = []byte("\nnonvoluntary_ctxt_switches:")
)

// ctxSwitches reads the voluntary and nonvoluntary context switches of
// thread tid of process pid from its status file.
func (r *reader) ctxSwitches(pid, tid int) (vol, nonvol uint64, err error) {
	b, err := r.read(filepath.Join(r.fs.root, strconv.Itoa(pid), "task", strconv.Itoa(tid), "status"))
	if err != nil {
		return 0, 0, err
	}
	if vol, err = statusValue(b, volKey); err == nil {
		nonvol, err = statusValue(b, nonvolKey)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("procsample: status of thread %d: %w", tid, err)
	}
	return vol, nonvol, nil
}

// statusValue is the number after key ("\nname:") in a status file.
func statusValue(b, key []byte) (uint64, error) {
	i := bytes.Index(b, key)
	if i < 0 {
		return 0, fmt.Errorf("no %s line", key[1:len(key)-1])
	}
	v := bytes.TrimLeft(b[i+len(key):], " \t")
	if j := bytes.IndexByte(v, '\n'); j >= 0 {
		v = v[:j]
	}
	n, ok := parseInt(v)
	if !ok || n < 0 {
		return 0, fmt.Errorf("%s is %q, not a count", key[1:len(key)-1], v)
	}
	return uint64(n), nil
}

// parseInt parses a decimal integer with an optional minus sign, without
// the allocation of strconv on a []byte.
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
