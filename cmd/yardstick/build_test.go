//go:build netns || calibration || integration

package main

import (
	"bytes"
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// buildBinaries builds yardstick and the Go sample target into dir, for
// the tests that run them as real processes (netns, calibration).
func buildBinaries(t *testing.T, dir string) (yardstick, sample string) {
	t.Helper()
	yardstick, sample = filepath.Join(dir, "yardstick"), filepath.Join(dir, "sample-go")
	for pkg, out := range map[string]string{"yardstick/cmd/yardstick": yardstick, "yardstick/targets/go": sample} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	return yardstick, sample
}

// freeLoopbackPort is a TCP port free on loopback a moment ago.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// runFor runs yardstick in dir for at most timeout and returns what it
// printed. If this test binary is killed, yardstick dies with it (and its
// targets and load generators with yardstick): the death signal comes when
// the forking thread exits, so the thread stays this goroutine's.
func runFor(t *testing.T, timeout time.Duration, dir, yardstick string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd := exec.CommandContext(ctx, yardstick, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Dir = dir
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	return b.String(), err
}
