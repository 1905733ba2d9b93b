//go:build netns || calibration

package main

import (
	"net"
	"os/exec"
	"path/filepath"
	"testing"
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
