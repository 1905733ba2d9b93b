// Package machine captures the environment a run ran on: host, kernel,
// CPU model, cores, frequency governor, memory and toolchain versions. A
// result belongs to its machine (docs/methodology.md#machine), so every run
// directory holds one environment.json.
package machine

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"yardstick/pipeline"
)

// Capture describes this machine. Toolchain versions come from running
// `go version` and `java -version` (with a short timeout); a tool that is
// missing is recorded as "not found".
func Capture(ctx context.Context) pipeline.Environment {
	e := pipeline.Environment{
		Fingerprint: pipeline.Fingerprint{OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU()},
		Captured:    time.Now().UTC(),
	}
	e.Host, _ = os.Hostname()
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		e.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		e.CPUModel = cpuModel(b)
	}
	if b, err := os.ReadFile("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"); err == nil {
		e.Governor = strings.TrimSpace(string(b))
	} else {
		e.Governor = "unknown (no cpufreq)"
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		e.MemoryBytes = memTotal(b)
	}
	e.GoVersion = version(ctx, "go", "version")
	e.JavaVersion = version(ctx, "java", "-version")
	return e
}

// cpuModel returns the first "model name" of /proc/cpuinfo.
func cpuModel(cpuinfo []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// memTotal returns MemTotal of /proc/meminfo in bytes.
func memTotal(meminfo []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// version runs a tool's version command and returns its first line.
func version(ctx context.Context, name string, args ...string) string {
	if _, err := exec.LookPath(name); err != nil {
		return "not found"
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	line := strings.TrimSpace(string(out))
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if err != nil && line == "" {
		return "error: " + err.Error()
	}
	return line
}
