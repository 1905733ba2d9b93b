package procsample

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
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
	rssPages                     int64
}

// reader reads /proc files into one buffer it keeps, so that a sample
// allocates nothing per process or thread once the buffer has grown.
type reader struct {
	fs      FS
	buf     []byte
	dents   []byte // directory entries of a task directory
	tids    []int  // the threads of the process being read
	pids    []int  // the processes of the last listing
	path    []byte // the NUL-terminated path of the file being opened
	sampled []int  // the processes the last sample summed over

	// With keep set (a Sampler's reader), the members' files stay open
	// between samples and are read again from offset 0: a /proc file
	// regenerates its text on every read, and an open file keeps
	// answering for the same process (ESRCH once it has gone, even if its
	// pid is reused). A file no sample read is closed (sweep).
	keep bool
	fds  map[fileKey]*keptFile
	gen  int
}

// fileKey names a file of a process (tid 0) or of one of its threads.
type fileKey struct {
	pid, tid int
	name     string
}

type keptFile struct {
	fd  int
	gen int // the last sample that read it
}

func (k fileKey) path(root string) string {
	if k.tid == 0 {
		return filepath.Join(root, strconv.Itoa(k.pid), k.name)
	}
	return filepath.Join(root, strconv.Itoa(k.pid), "task", strconv.Itoa(k.tid), k.name)
}

func newReader(fs FS, keep bool) *reader {
	return &reader{fs: fs, buf: make([]byte, 4096), dents: make([]byte, 8192), keep: keep}
}

// read reads file k into r.buf and returns its bytes. It uses the system
// calls directly, raw (raw.go): an os.File would register every /proc
// file with the runtime's poller and allocate on each open.
func (r *reader) read(k fileKey) ([]byte, error) {
	fd, kept, err := r.open(k, unix.O_RDONLY)
	if err != nil {
		return nil, err
	}
	if !kept {
		defer rawClose(fd)
	}
	n := 0
	for {
		m, err := rawPread(fd, r.buf[n:], int64(n))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			r.forget(k)
			return nil, &os.PathError{Op: "read", Path: k.path(r.fs.root), Err: err}
		}
		n += m
		// A /proc stat or status file is generated whole on the first
		// read, so a read that does not fill the buffer has it all.
		if m == 0 || n < len(r.buf) {
			return r.buf[:n], nil
		}
		r.buf = append(r.buf, make([]byte, len(r.buf))...)
	}
}

// open returns a descriptor of file k, and whether it is kept open.
func (r *reader) open(k fileKey, flags int) (int, bool, error) {
	if f, ok := r.fds[k]; ok {
		f.gen = r.gen
		return f.fd, true, nil
	}
	fd, path, err := rawOpen(r.path, k.path(r.fs.root), flags|unix.O_CLOEXEC)
	r.path = path
	if err != nil {
		return -1, false, &os.PathError{Op: "open", Path: k.path(r.fs.root), Err: err}
	}
	if !r.keep {
		return fd, false, nil
	}
	if r.fds == nil {
		r.fds = map[fileKey]*keptFile{}
	}
	r.fds[k] = &keptFile{fd: fd, gen: r.gen}
	return fd, true, nil
}

// forget closes file k if it is kept open.
func (r *reader) forget(k fileKey) {
	if f, ok := r.fds[k]; ok {
		rawClose(f.fd)
		delete(r.fds, k)
	}
}

// sweep closes the kept files the sample just taken did not read, and
// starts the next sample's generation.
func (r *reader) sweep() {
	for k, f := range r.fds {
		if f.gen != r.gen {
			rawClose(f.fd)
			delete(r.fds, k)
		}
	}
	r.gen++
}

// close closes every kept file.
func (r *reader) close() {
	for k, f := range r.fds {
		rawClose(f.fd)
		delete(r.fds, k)
	}
}

// threads lists the thread ids of process pid from its task directory,
// parsing the directory entries in place.
func (r *reader) threads(pid int) ([]int, error) {
	k := fileKey{pid: pid, name: "task"}
	fd, kept, err := r.open(k, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	if !kept {
		defer rawClose(fd)
	} else if err := rawRewind(fd); err != nil { // list it again from the start
		r.forget(k)
		return nil, &os.PathError{Op: "seek", Path: k.path(r.fs.root), Err: err}
	}
	r.tids = r.tids[:0]
	for {
		n, err := rawGetdents(fd, r.dents)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			r.forget(k)
			return nil, &os.PathError{Op: "getdents", Path: k.path(r.fs.root), Err: err}
		}
		if n <= 0 {
			return r.tids, nil
		}
		r.tids = appendDirentIDs(r.tids, r.dents[:n])
	}
}

// appendDirentIDs appends the numeric names of the linux_dirent64 records
// in b (ino 8 bytes, off 8, reclen 2, type 1, then the name and a NUL).
func appendDirentIDs(ids []int, b []byte) []int {
	for len(b) >= 19 {
		reclen := int(b[16]) | int(b[17])<<8
		if reclen < 19 || reclen > len(b) {
			break
		}
		name := b[19:reclen]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if id, ok := parseInt(name); ok && id > 0 {
			ids = append(ids, int(id))
		}
		b = b[reclen:]
	}
	return ids
}

// comm reads the name of thread tid of process pid.
func (r *reader) comm(pid, tid int) (string, error) {
	b, err := r.read(fileKey{pid: pid, tid: tid, name: "comm"})
	if err != nil {
		return "", err
	}
	return string(bytes.TrimSpace(b)), nil // as procfs reads it
}

// stat reads /proc/<pid>/stat. The command name, in parentheses, may hold
// anything, so fields are counted from the last ')'.
func (r *reader) stat(pid int) (stat, error) {
	b, err := r.read(fileKey{pid: pid, name: "stat"})
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
	b, err := r.read(fileKey{pid: pid, tid: tid, name: "status"})
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
