package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"yardstick/loadgen"
)

// target is a running sample target.
type target struct {
	cmd *exec.Cmd
	url string
}

// startTarget starts a fresh Go sample target, pinned, and waits for it
// to listen.
func startTarget(ctx context.Context, o *options) (*target, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("find a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("taskset", "-c", o.targetCPU, o.sample, "-port", strconv.Itoa(port))
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start target: %w", err)
	}
	t := &target{cmd: cmd, url: fmt.Sprintf("http://127.0.0.1:%d/ws/heartbeat", port)}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return t, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.stop()
	return nil, fmt.Errorf("target did not listen on port %d within 10s", port)
}

func (t *target) stop() {
	_ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	_ = t.cmd.Wait()
}

// sampleRSS reads the target's resident memory at after from now (the
// middle of the hold), into *out.
func (t *target) sampleRSS(after time.Duration, out *int64) (wait func()) {
	done := make(chan struct{})
	timer := time.AfterFunc(after, func() {
		defer close(done)
		*out = statusBytes(t.cmd.Process.Pid, "VmRSS")
	})
	return func() {
		if timer.Stop() {
			close(done)
		}
		<-done
	}
}

// statusBytes reads a "Name: N kB" line of /proc/PID/status, in bytes.
func statusBytes(pid int, name string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(l, []byte(name+":")); ok {
			f := bytes.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(string(f[0]), 10, 64)
				return n << 10
			}
		}
	}
	return 0
}

func openTime(n int, rate float64) time.Duration {
	return time.Duration(float64(n) / rate * float64(time.Second))
}

// measureLoadgen holds n connections with `yardstick loadgen --stdio`.
func measureLoadgen(ctx context.Context, o *options, n int) (measurement, error) {
	t, err := startTarget(ctx, o)
	if err != nil {
		return measurement{}, err
	}
	defer t.stop()
	var m measurement
	opened := openTime(n, o.rate)
	wait := t.sampleRSS(opened+o.hold/2, &m.targetRSS)
	defer wait()
	spec := loadgen.Spec{URL: t.url, Interval: loadgen.Duration(time.Second), Hold: &loadgen.Hold{
		Protocol: "websocket", Steps: []int{n}, OpenRate: o.rate,
		StepHold: loadgen.Duration(o.hold), Period: loadgen.Duration(o.period),
	}}
	var cpuAtOpen, cpuAtEnd float64
	cmd := exec.Command(o.ys, "loadgen", "--stdio", "--cpus", o.genCPU)
	cmd.Stderr = os.Stderr
	res, _, err := loadgen.DriveCommand(ctx, cmd, spec, func(iv loadgen.Interval) {
		end := time.Duration((iv.StartS + iv.DurationS) * float64(time.Second))
		if end <= opened+time.Second/2 { // the last interval that ends by the time all are open
			cpuAtOpen = iv.Hold.CPUS
		}
		if end <= opened+o.hold { // the last reading before the connections are closed
			cpuAtEnd = iv.Hold.CPUS
			if iv.Hold.Open == int64(n) {
				m.rss = iv.Hold.RSSBytes
			}
		}
	})
	if err != nil {
		return measurement{}, err
	}
	st := res.Hold.Steps[0]
	m.established, m.heartbeats, m.peakRSS = st.Established, st.Heartbeats, res.Hold.PeakRSSBytes
	m.cpuOpen, m.cpuHold = cpuAtOpen, cpuAtEnd-cpuAtOpen // as the peer's: the closing at the end left out
	if st.Established != int64(n) {
		fmt.Fprintf(os.Stderr, "load generator: %d of %d established; errors %v\n", st.Established, n, st.ErrorsByKind)
	}
	return m, nil
}

// peerResult is what `bench-ws peer` prints.
type peerResult struct {
	Established int64   `json:"established"`
	Failed      int64   `json:"failed"`
	Heartbeats  int64   `json:"heartbeats"`
	RSS         int64   `json:"rss"`
	PeakRSS     int64   `json:"peak_rss"`
	CPUOpen     float64 `json:"cpu_open"`
	CPUHold     float64 `json:"cpu_hold"`
	DelayP99us  int64   `json:"delay_p99_us"`
	FirstError  string  `json:"first_error,omitempty"`
}

// measurePeer holds n connections with the coder/websocket peer client
// (this command's peer mode, pinned as the load generator is).
func measurePeer(ctx context.Context, o *options, n int) (measurement, error) {
	t, err := startTarget(ctx, o)
	if err != nil {
		return measurement{}, err
	}
	defer t.stop()
	var m measurement
	wait := t.sampleRSS(openTime(n, o.rate)+o.hold/2, &m.targetRSS)
	defer wait()
	self, err := os.Executable()
	if err != nil {
		return m, err
	}
	ports, err := loadgen.EphemeralPorts()
	if err != nil {
		return m, err
	}
	cmd := exec.CommandContext(ctx, "taskset", "-c", o.genCPU, self, "peer", "-url", t.url, "-n", strconv.Itoa(n),
		"-rate", fmt.Sprint(o.rate), "-hold", o.hold.String(), "-period", o.period.String(),
		"-sources", strconv.Itoa(loadgen.SourceAddrsFor(n, ports)))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return m, fmt.Errorf("peer: %w", err)
	}
	var r peerResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &r) != nil {
		return m, fmt.Errorf("peer: cannot read its output %.300q", out)
	}
	if r.Established != int64(n) {
		fmt.Fprintf(os.Stderr, "peer: %d of %d established, %d failed (first: %s)\n", r.Established, n, r.Failed, r.FirstError)
	}
	m.established, m.heartbeats, m.rss, m.peakRSS = r.Established, r.Heartbeats, r.RSS, r.PeakRSS
	m.cpuOpen, m.cpuHold = r.CPUOpen, r.CPUHold
	return m, nil
}
