package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { scriptCmds["series"] = cmdSeries }

// cmdSeries writes a seeded synthetic throughput series, one number a
// line: series FILE flat|warmup|spikes|slowdown N SEED. The level is
// 1000 per interval with 5% normal noise; warmup ramps up from half of it
// over the first quarter, spikes has 5x spikes at 1% of the intervals,
// slowdown drops by a fifth at the middle.
func cmdSeries(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: series FILE flat|warmup|spikes|slowdown N SEED")
	}
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	seed, err := strconv.ParseUint(args[3], 10, 64)
	ts.Check(err)
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var b strings.Builder
	for i := range n {
		level := 1000.0
		switch args[1] {
		case "flat":
		case "warmup":
			level *= 0.5 + 0.5*math.Min(float64(i)/float64(n/4), 1)
		case "spikes":
			if r.Float64() < 0.01 {
				level *= 5
			}
		case "slowdown":
			if i >= n/2 {
				level *= 0.8
			}
		default:
			ts.Fatalf("series: unknown kind %q", args[1])
		}
		fmt.Fprintf(&b, "%.2f\n", level+50*r.NormFloat64())
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}

// repeatReader reads its pattern over and over: a stream of any length
// that is never held in memory or on disk.
type repeatReader struct {
	pattern []byte
	off     int
	n       int64 // bytes read
}

func (r *repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.pattern[r.off]
		r.off = (r.off + 1) % len(r.pattern)
	}
	r.n += int64(len(p))
	return len(p), nil
}

// TestSteadyInputBounded: standard input of a gigabyte, made on the fly
// (one line, blank lines, values), is refused with a clear error after at
// most steadyMaxBytes and a read buffer of it, and so is binary data;
// steady's own error line stays one escaped line.
func TestSteadyInputBounded(t *testing.T) {
	const gig = 1 << 30
	for _, c := range []struct {
		name, pattern, want string
	}{
		{"one line of 1 GB", "7", "-:1: a line longer than 4096 bytes"},
		{"1 GB of blank lines", "\n", "-: more than 67108864 bytes"},
		{"1 GB of values", "1\n", "-:864001: more than 864000 values"},
		{"binary data", "\x00\xff\x1b[31m\n::stop-commands::x\r\n", `-:1: "\x00\xff\x1b[31m" is not a finite number`},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := &repeatReader{pattern: []byte(c.pattern)}
			var stdout, stderr strings.Builder
			env := &cliEnv{stdin: io.LimitReader(src, gig), stdout: &stdout, stderr: &stderr, wd: t.TempDir()}
			if code := runMain(context.Background(), env, []string{"steady", "-"}); code != 1 {
				t.Fatalf("exit %d, want 1; stderr %q", code, stderr.String())
			}
			if got, want := stderr.String(), "yardstick steady: "+c.want+"\n"; got != want {
				t.Errorf("stderr %q, want %q", got, want)
			}
			if src.n > steadyMaxBytes+1<<20 {
				t.Errorf("read %d bytes of standard input, want at most %d and a buffer", src.n, steadyMaxBytes)
			}
		})
	}
}

// TestSteadyRefusesFIFO: a named pipe is refused at once, not waited on
// for a writer that never comes.
func TestSteadyRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() {
		var stdout, stderr strings.Builder
		env := &cliEnv{stdout: &stdout, stderr: &stderr, wd: dir}
		runMain(context.Background(), env, []string{"steady", "pipe"})
		done <- stderr.String()
	}()
	select {
	case got := <-done:
		if want := "yardstick steady: pipe: not a regular file\n"; got != want {
			t.Errorf("stderr %q, want %q", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("steady still waits on a named pipe after 5s")
	}
}
