// Package svctest is the one test harness of the targets: it starts and
// checks their real processes (the JVM sample, the JVM framework targets,
// nginx, the Go gateway, Spring Cloud Gateway, Spring WebFlux) from their Go
// tests: artifacts that must have been built, processes in their own
// process group that are killed whatever happens, readiness on loopback,
// every endpoint against the samples' answers, the access logs, event-loop
// and worker threads from /proc and SIGTERM stops. A missing artifact or
// tool fails the test with how to get it; nothing is skipped.
package svctest

import (
	"bytes"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// RepoRoot returns the repository root: the nearest directory above the
// working directory with a go.mod declaring module yardstick.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(b, []byte("module yardstick\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("svctest: no go.mod of module yardstick above the working directory")
		}
		dir = parent
	}
}

// Artifact returns the absolute path of the built artifact rel (e.g.
// "bin/scg.jar") and fails the test, saying to run make frameworks, when
// it is missing or older than any file of its sources (files or
// directories relative to the repository root): a stale artifact would
// test other code than the tree's.
func Artifact(t testing.TB, rel string, sources ...string) string {
	t.Helper()
	path, err := checkArtifact(RepoRoot(t), rel, sources...)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// checkArtifact is Artifact's check under root.
func checkArtifact(root, rel string, sources ...string) (string, error) {
	path := filepath.Join(root, rel)
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%s not found: run make frameworks (%w)", rel, err)
	}
	for _, src := range sources {
		err := filepath.WalkDir(filepath.Join(root, src), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			if info.ModTime().After(fi.ModTime()) {
				r, _ := filepath.Rel(root, p)
				return fmt.Errorf("%s is older than %s: run make frameworks", rel, r)
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	return path, nil
}

// LookPath fails the test with hint when tool is not on PATH.
func LookPath(t testing.TB, tool, hint string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		t.Fatalf("%s not found on PATH: %s", tool, hint)
	}
	return p
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Buffer is a bytes.Buffer safe for one writer and concurrent readers.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
