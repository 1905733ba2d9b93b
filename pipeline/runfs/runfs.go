// Package runfs is the one way to open, read and write the files of a run
// directory. A run directory may come from elsewhere (a colleague, an
// archive, a pull request), so its files are untrusted input:
//
//   - only regular files are read: a named pipe, a device or a socket is
//     refused, and the open never blocks (O_NONBLOCK, then fstat, then
//     O_NONBLOCK cleared);
//   - no symbolic link below the run directory is followed, for reading
//     or writing: every path component is opened relative to its parent
//     with O_NOFOLLOW, so a link planted anywhere under the directory is
//     refused with the path that holds it (the run directory's own path
//     is the caller's choice and may be a link);
//   - every file kind has a size cap (JSON, Parquet, logs, sources), and a
//     larger file is refused by name and cap before it is read;
//   - reads honour the command's context, so Ctrl-C and SIGTERM end a read
//     of any size;
//   - writes go to a temporary file in the real directory and are renamed
//     over their target, which replaces a link at the target instead of
//     writing through it.
//
// Paths below the run directory are slash-separated, relative and clean
// ("cells/0123456789ab/checkpoint.json"); "" is the run directory itself.
package runfs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// A Kind is a kind of run-directory file and the most bytes one may have.
type Kind struct {
	// Name says the kind in errors: "JSON", "Parquet", ...
	Name string
	// Max is the size cap in bytes.
	Max int64
}

// The kinds of a run directory's files.
var (
	// JSON: plan.json, lock.json, environment.json, fairness.json,
	// checkpoints, start.json, node records.
	JSON = Kind{Name: "JSON", Max: 256 << 20}
	// Parquet: the tables. Their rows are capped too, by the datasets
	// reader, before any column is decoded.
	Parquet = Kind{Name: "Parquet", Max: 4 << 30}
	// Log: logs a command reads back (a Slurm job's output).
	Log = Kind{Name: "log", Max: 64 << 20}
	// Source: the definition's files under sources/.
	Source = Kind{Name: "source", Max: 64 << 20}
)

// ErrRefused is wrapped by every error for a file that exists but may not
// be read or written: a link, not a regular file, over its cap.
var ErrRefused = errors.New("refused")

// Open opens the file rel below the run directory root for reading: a
// regular file of at most k.Max bytes reached without a symbolic link. A
// missing file gives an error wrapping fs.ErrNotExist.
func Open(root, rel string, k Kind) (*os.File, error) {
	full := filepath.Join(root, filepath.FromSlash(rel))
	dir, base, err := openParent(root, rel, false)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dir)
	fd, err := unix.Openat(dir, base, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, componentError(dir, base, full, err)
	}
	if err := checkRegular(fd, full, k); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), full), nil
}

// checkRegular refuses anything but a regular file within k's cap, then
// makes fd blocking again.
func checkRegular(fd int, full string, k Kind) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%s: %w", full, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("%s: %w: %s, not a regular file", full, ErrRefused, fileType(st.Mode))
	}
	if st.Size > k.Max {
		return fmt.Errorf("%s: %w: %s, more than the %s a %s file of a run directory may have",
			full, ErrRefused, fmtBytes(st.Size), fmtBytes(k.Max), k.Name)
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err == nil {
		_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, flags&^unix.O_NONBLOCK)
	}
	if err != nil {
		return &fs.PathError{Op: "fcntl", Path: full, Err: err}
	}
	return nil
}

// ReadFile reads the whole file rel below root (see Open), stopping with
// ctx's error when ctx ends.
func ReadFile(ctx context.Context, root, rel string, k Kind) ([]byte, error) {
	f, err := Open(root, rel, k)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A file that grows after the open is still held to the cap.
	b, err := io.ReadAll(io.LimitReader(ContextReader(ctx, f), k.Max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	if int64(len(b)) > k.Max {
		return nil, fmt.Errorf("%s: %w: grew past the %s a %s file of a run directory may have", f.Name(), ErrRefused, fmtBytes(k.Max), k.Name)
	}
	return b, nil
}

// ContextReader returns a reader of r that fails with ctx's error once
// ctx has ended; each read is at most 1 MiB, so a large read stops soon.
func ContextReader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) > 1<<20 {
		p = p[:1<<20]
	}
	return c.r.Read(p)
}

// ReadDir lists the directory rel below root (no link followed on the
// way), sorted by name. A missing directory wraps fs.ErrNotExist.
func ReadDir(root, rel string) ([]fs.DirEntry, error) {
	fd, err := openDir(root, rel, false)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), filepath.Join(root, filepath.FromSlash(rel)))
	defer f.Close()
	return f.ReadDir(-1)
}

// MkdirAll creates the directory rel below root and its parents, as
// os.MkdirAll does, refusing a symbolic link on the way.
func MkdirAll(root, rel string) error {
	fd, err := openDir(root, rel, true)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// WriteFile writes data to the file rel below root through a synced
// temporary file in the same directory and a rename: readers see the old
// file or the whole new one. The directory is reached without a link; a
// link at rel itself is replaced, never written through.
func WriteFile(root, rel string, data []byte) error {
	full := filepath.Join(root, filepath.FromSlash(rel))
	dir, base, err := openParent(root, rel, false)
	if err != nil {
		return fmt.Errorf("write %s: %w", full, err)
	}
	defer unix.Close(dir)
	tmp := "." + base + ".tmp-" + randHex()
	fd, err := unix.Openat(dir, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", full, err)
	}
	f := os.NewFile(uintptr(fd), filepath.Join(filepath.Dir(full), tmp))
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = unix.Renameat(dir, tmp, dir, base)
	}
	if werr != nil {
		_ = unix.Unlinkat(dir, tmp, 0)
		return fmt.Errorf("write %s: %w", full, werr)
	}
	return nil
}

// Remove removes the file rel below root (a link there is removed, not
// followed); a missing file is not an error.
func Remove(root, rel string) error {
	dir, base, err := openParent(root, rel, false)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	if err := unix.Unlinkat(dir, base, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return &fs.PathError{Op: "remove", Path: filepath.Join(root, filepath.FromSlash(rel)), Err: err}
	}
	return nil
}

// Check reports whether rel below root can be reached without a link and,
// when it exists, is a regular file within k's cap (nil), or why not; a
// missing file wraps fs.ErrNotExist.
func Check(root, rel string, k Kind) error {
	f, err := Open(root, rel, k)
	if err != nil {
		return err
	}
	return f.Close()
}

// split checks rel and returns its components; "" has none.
func split(rel string) ([]string, error) {
	if rel == "" {
		return nil, nil
	}
	if path.IsAbs(rel) || path.Clean(rel) != rel || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, fmt.Errorf("%q is not a clean relative path inside the run directory", rel)
	}
	return strings.Split(rel, "/"), nil
}

// openParent opens the directory that holds rel (creating it with
// create) and returns its descriptor and rel's base name.
func openParent(root, rel string, create bool) (int, string, error) {
	parts, err := split(rel)
	if err != nil {
		return -1, "", err
	}
	if len(parts) == 0 {
		return -1, "", fmt.Errorf("%s: the run directory itself is not a file", root)
	}
	dir, err := openDir(root, path.Join(parts[:len(parts)-1]...), create)
	return dir, parts[len(parts)-1], err
}

// openDir opens the directory rel below root, one component at a time,
// each with O_NOFOLLOW; with create, missing components are made.
func openDir(root, rel string, create bool) (int, error) {
	parts, err := split(rel)
	if err != nil {
		return -1, err
	}
	if create {
		if err := os.MkdirAll(root, 0o755); err != nil {
			return -1, err
		}
	}
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("%s: %w", root, err)
	}
	cur := root
	for _, p := range parts {
		cur = filepath.Join(cur, p)
		next, err := unix.Openat(fd, p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) && create {
			if err = unix.Mkdirat(fd, p, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = unix.Openat(fd, p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			}
		}
		if err != nil {
			err = componentError(fd, p, cur, err)
			unix.Close(fd)
			return -1, err
		}
		unix.Close(fd)
		fd = next
	}
	return fd, nil
}

// componentError explains a failed open of name in dir: a link or a
// non-directory is refused by name, anything else keeps its errno (so a
// missing file wraps fs.ErrNotExist).
func componentError(dir int, name, full string, err error) error {
	var st unix.Stat_t
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EMLINK) {
		if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
			if st.Mode&unix.S_IFMT == unix.S_IFLNK {
				return fmt.Errorf("%s: %w: a symbolic link (a run directory's files are used only as regular files inside it)", full, ErrRefused)
			}
			return fmt.Errorf("%s: %w: %s, not a directory", full, ErrRefused, fileType(st.Mode))
		}
	}
	return fmt.Errorf("%s: %w", full, err)
}

func fileType(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return "a named pipe"
	case unix.S_IFCHR:
		return "a character device"
	case unix.S_IFBLK:
		return "a block device"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFLNK:
		return "a symbolic link"
	case unix.S_IFREG:
		return "a regular file"
	}
	return "a special file"
}

// fmtBytes says a size in the largest binary unit that divides it.
func fmtBytes(n int64) string {
	for _, u := range []struct {
		s string
		v int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.v && n%u.v == 0 {
			return fmt.Sprintf("%d %s", n/u.v, u.s)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

func randHex() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// OpenLog opens the log file at path for a process to write (appending,
// or truncated with trunc), creating it: the file itself may not be a
// link (O_NOFOLLOW) and must be a regular file; a named pipe without a
// reader fails at once instead of blocking the open. The directory that
// holds it is the caller's.
func OpenLog(path string, trunc bool) (*os.File, error) {
	flags := unix.O_WRONLY | unix.O_CREAT | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOCTTY
	if trunc {
		flags |= unix.O_TRUNC
	} else {
		flags |= unix.O_APPEND
	}
	dir, base := filepath.Dir(path), filepath.Base(path)
	d, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	defer unix.Close(d)
	fd, err := unix.Openat(d, base, flags, 0o644)
	if err != nil {
		return nil, componentError(d, base, path, err)
	}
	if err := checkRegular(fd, path, Kind{Name: "log", Max: 1<<63 - 1}); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}
