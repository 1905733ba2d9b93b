package runfs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func mustWrite(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func wantRefused(t *testing.T, err error, sub string) {
	t.Helper()
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), sub) {
		t.Fatalf("err = %v, want refused with %q", err, sub)
	}
}

func TestReadRegular(t *testing.T) {
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, "cells/a/checkpoint.json"), `{"x":1}`)
	b, err := ReadFile(context.Background(), root, "cells/a/checkpoint.json", JSON)
	if err != nil || string(b) != `{"x":1}` {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if _, err := ReadFile(context.Background(), root, "cells/b/checkpoint.json", JSON); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: err = %v, want fs.ErrNotExist", err)
	}
	if _, err := ReadFile(context.Background(), root, "../x", JSON); err == nil {
		t.Fatal("a path out of the run directory was accepted")
	}
}

// A link anywhere below the run directory is refused: at the file, or at
// a directory on the way; the run directory's own path may be a link.
func TestSymlinksRefused(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	mustWrite(t, filepath.Join(outside, "secret.json"), `"secret"`)
	mustWrite(t, filepath.Join(outside, "cells/a/checkpoint.json"), `"secret"`)
	if err := os.Symlink(filepath.Join(outside, "secret.json"), filepath.Join(root, "environment.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(root, "fairness.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "cells"), filepath.Join(root, "cells")); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"environment.json", "fairness.json", "cells/a/checkpoint.json"} {
		_, err := ReadFile(context.Background(), root, rel, JSON)
		wantRefused(t, err, "a symbolic link")
	}
	_, err := ReadDir(root, "cells")
	wantRefused(t, err, "a symbolic link")
	link := filepath.Join(t.TempDir(), "latest")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(context.Background(), link, "secret.json", JSON); err != nil {
		t.Fatalf("the run directory's own path as a link: %v", err)
	}
}

// A named pipe is refused at once: the open does not wait for a writer.
func TestFIFORefused(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "plan.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadFile(context.Background(), root, "plan.json", JSON)
		done <- err
	}()
	select {
	case err := <-done:
		wantRefused(t, err, "a named pipe, not a regular file")
	case <-time.After(10 * time.Second):
		t.Fatal("reading a named pipe blocked")
	}
	if err := os.Mkdir(filepath.Join(root, "cells.parquet"), 0o755); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, Check(root, "cells.parquet", Parquet), "a directory, not a regular file")
}

func TestSizeCap(t *testing.T) {
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, "lock.json"), strings.Repeat(" ", 2048))
	_, err := ReadFile(context.Background(), root, "lock.json", Kind{Name: "JSON", Max: 1024})
	wantRefused(t, err, "lock.json: refused: 2 KiB, more than the 1 KiB a JSON file of a run directory may have")
}

func TestReadHonoursContext(t *testing.T) {
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, "plan.json"), "{}")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadFile(ctx, root, "plan.json", JSON); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// Writes never follow a link: a linked directory on the way is refused,
// and a link at the target is replaced, the file it named untouched.
func TestWriteNoFollow(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	mustWrite(t, filepath.Join(outside, "report.md"), "theirs")
	if err := os.Symlink(outside, filepath.Join(root, "report")); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, WriteFile(root, "report/report.md", []byte("ours")), "report: refused: a symbolic link")
	wantRefused(t, MkdirAll(root, "report"), "a symbolic link")
	wantRefused(t, Remove(root, "report/report.md"), "a symbolic link")
	if err := os.Symlink(filepath.Join(outside, "report.md"), filepath.Join(root, "report.md")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(root, "report.md", []byte("ours")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "report.md")); string(b) != "theirs" {
		t.Fatalf("the file outside was overwritten: %q", b)
	}
	if b, err := ReadFile(context.Background(), root, "report.md", JSON); err != nil || string(b) != "ours" {
		t.Fatalf("read back %q, %v", b, err)
	}
	if err := MkdirAll(root, "a/b"); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(root, "a/b/c", []byte("x")); err != nil {
		t.Fatal(err)
	}
	ents, err := ReadDir(root, "a/b")
	if err != nil || len(ents) != 1 || ents[0].Name() != "c" {
		t.Fatalf("ReadDir = %v, %v (no temporary file may be left)", ents, err)
	}
}

// A log of a start or build is never written through a link, and a
// named pipe in its place fails at once.
func TestOpenLog(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "bashrc")
	mustWrite(t, outside, "theirs")
	if err := os.Symlink(outside, filepath.Join(dir, "build.log")); err != nil {
		t.Fatal(err)
	}
	_, err := OpenLog(filepath.Join(dir, "build.log"), true)
	wantRefused(t, err, "a symbolic link")
	if b, _ := os.ReadFile(outside); string(b) != "theirs" {
		t.Fatalf("the linked file was truncated: %q", b)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "stdout.log"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenLog(filepath.Join(dir, "stdout.log"), false); err == nil {
		t.Fatal("a named pipe was opened as a log")
	}
	f, err := OpenLog(filepath.Join(dir, "stderr.log"), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("line\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
}
