// Command bench-loadgen measures what yardstick's measuring costs on this
// machine (docs/design.md#the-cost-of-measuring):
//
//  1. The load generator against wrk: the Go sample target pinned to one
//     CPU, each generator pinned to another, the same connections,
//     duration and endpoint, in pairs whose order flips each pair (A B,
//     B A, ...). It prints each pair and the medians of the ratios of
//     requests per second and of CPU time per request (yardstick / wrk);
//     CPU time is each generator process's own rusage.
//  2. The harness: a real `yardstick run` of a one-cell experiment (the
//     same target, 4 connections, /proc sampled every -interval), with
//     the run process's utime + stime read from /proc/<pid>/stat at two
//     moments inside the cell's measure window. It prints that CPU time
//     as a percentage of one core.
//
// It needs bin/sample-go, bin/yardstick and wrk on PATH; it installs
// nothing.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"yardstick/stats"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-loadgen:", err)
		os.Exit(1)
	}
}

// A measurement is what one load generator run did: its requests,
// requests/s and the CPU time it took.
type measurement struct {
	requests int64
	rps      float64
	cpu      time.Duration
}

func (s measurement) cpuPerReq() float64 { return s.cpu.Seconds() * 1e6 / float64(s.requests) }

func run() error {
	pairs := flag.Int("pairs", 9, "pairs of runs, the order flipped each pair")
	dur := flag.Duration("duration", 5*time.Second, "duration of each run")
	conns := flag.Int("connections", 32, "connections")
	path := flag.String("path", "/hello", "endpoint")
	targetCPU := flag.String("target-cpus", "0", "CPUs of the sample target")
	genCPU := flag.String("gen-cpus", "1", "CPUs of the load generators")
	sampleBin := flag.String("sample", "bin/sample-go", "sample target binary")
	ysBin := flag.String("yardstick", "bin/yardstick", "yardstick binary")
	harness := flag.Bool("harness", true, "also measure the harness's own CPU during a measure window")
	window := flag.Duration("harness-window", 20*time.Second, "the stretch of the measure window over which the harness's CPU is read")
	interval := flag.Duration("interval", 100*time.Millisecond, "the harness's sampling interval")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for _, p := range []string{*sampleBin, *ysBin} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%s: %w (run make bin/sample-go bin/yardstick)", p, err)
		}
	}
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		return errors.New("wrk not found on PATH (Debian package wrk)")
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	target := exec.Command("taskset", "-c", *targetCPU, *sampleBin, "-port", strconv.Itoa(port))
	target.Stderr = os.Stderr
	target.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := target.Start(); err != nil {
		return fmt.Errorf("start target: %w", err)
	}
	defer func() { // the target goes away on every way out
		_ = syscall.Kill(-target.Process.Pid, syscall.SIGKILL)
		_ = target.Wait()
	}()
	url := fmt.Sprintf("http://127.0.0.1:%d%s", port, *path)
	if err := waitUp(ctx, port); err != nil {
		return err
	}
	fmt.Printf("target: %s pinned to CPU %s; generators pinned to CPU %s; %d connections, %s per run, %d pairs\n",
		url, *targetCPU, *genCPU, *conns, *dur, *pairs)

	// warm the target up so the first run is not penalised
	if _, err := runWrk(ctx, wrk, *genCPU, *conns, time.Second, url); err != nil {
		return err
	}
	rpsRatios, cpuRatios, err := runPairs(ctx, *pairs, func(ys bool) (measurement, error) {
		if ys {
			return runYardstick(ctx, *ysBin, *genCPU, *conns, *dur, url)
		}
		return runWrk(ctx, wrk, *genCPU, *conns, *dur, url)
	})
	if err != nil {
		return err
	}
	fmt.Printf("median rps ratio (yardstick/wrk):             %.3f (%d pairs)\n", stats.Median(rpsRatios), *pairs)
	fmt.Printf("median CPU-per-request ratio (yardstick/wrk): %.3f (%d pairs)\n", stats.Median(cpuRatios), *pairs)
	if !*harness {
		return nil
	}
	return reportHarness(ctx, harnessOpts{ys: *ysBin, sample: *sampleBin, targetCPU: *targetCPU, genCPU: *genCPU,
		window: *window, interval: *interval, warmup: 2 * time.Second, leadIn: time.Second, measureAfterWindow: 3 * time.Second})
}

// reportHarness measures and prints the harness's own cost.
func reportHarness(ctx context.Context, o harnessOpts) error {
	cost, err := harnessCost(ctx, o)
	if err != nil {
		return fmt.Errorf("harness: %w", err)
	}
	fmt.Printf("harness: the yardstick run process used %.2f%% of a core over %s of a measure window "+
		"(sampling every %s, one target, 4 connections)\n", cost*100, o.window, o.interval)
	return nil
}

// runPairs runs wrk and yardstick pairs times, the order flipped each
// pair, printing each pair, and returns the ratios (yardstick / wrk) of
// requests per second and of CPU time per request.
func runPairs(ctx context.Context, pairs int, one func(ys bool) (measurement, error)) (rpsRatios, cpuRatios []float64, err error) {
	fmt.Printf("%-5s %14s %14s %9s %14s %14s %9s\n", "pair", "wrk req/s", "ys req/s", "rps ratio", "wrk cpu us/req", "ys cpu us/req", "cpu ratio")
	for i := 0; i < pairs; i++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		var a, b measurement
		if i%2 == 0 { // wrk first, then yardstick; the next pair the other way
			if a, err = one(false); err == nil {
				b, err = one(true)
			}
		} else if b, err = one(true); err == nil {
			a, err = one(false)
		}
		if err != nil {
			return nil, nil, err
		}
		rr := b.rps / a.rps
		cr := b.cpuPerReq() / a.cpuPerReq()
		rpsRatios = append(rpsRatios, rr)
		cpuRatios = append(cpuRatios, cr)
		fmt.Printf("%-5d %14.0f %14.0f %9.3f %14.2f %14.2f %9.3f\n", i+1, a.rps, b.rps, rr, a.cpuPerReq(), b.cpuPerReq(), cr)
	}
	return rpsRatios, cpuRatios, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func waitUp(ctx context.Context, port int) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return fmt.Errorf("target did not listen on port %d within 10s", port)
}

// cpuOf is the CPU time of a finished process and its waited-for children
// (taskset execs the generator in place, so it is the generator's own).
func cpuOf(ps *os.ProcessState) time.Duration { return ps.UserTime() + ps.SystemTime() }

var (
	wrkRPS  = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkReqs = regexp.MustCompile(`(\d+) requests in ([0-9.]+)(ms|s|m)`)
)

func runWrk(ctx context.Context, wrk, cpus string, conns int, d time.Duration, url string) (measurement, error) {
	secs := int((d + time.Second - 1) / time.Second)
	cmd := exec.CommandContext(ctx, "taskset", "-c", cpus, wrk, "-t1", "-c"+strconv.Itoa(conns),
		"-d"+strconv.Itoa(secs)+"s", "--latency", url)
	out, err := cmd.Output()
	if err != nil {
		return measurement{}, fmt.Errorf("wrk: %w", err)
	}
	m := wrkRPS.FindSubmatch(out)
	n := wrkReqs.FindSubmatch(out)
	if m == nil || n == nil {
		return measurement{}, fmt.Errorf("wrk: cannot read its output:\n%s", out)
	}
	rps, _ := strconv.ParseFloat(string(m[1]), 64)
	reqs, _ := strconv.ParseInt(string(n[1]), 10, 64)
	if strings.Contains(string(out), "Socket errors") {
		fmt.Fprintf(os.Stderr, "wrk reported socket errors:\n%s", out)
	}
	return measurement{requests: reqs, rps: rps, cpu: cpuOf(cmd.ProcessState)}, nil
}

func runYardstick(ctx context.Context, ys, cpus string, conns int, d time.Duration, url string) (measurement, error) {
	cmd := exec.CommandContext(ctx, ys, "loadgen", "--url", url, "--cpus", cpus,
		"--connections", strconv.Itoa(conns), "--duration", d.String(), "--json")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return measurement{}, fmt.Errorf("yardstick loadgen: %w", err)
	}
	var res struct {
		Requests int64   `json:"requests"`
		Errors   int64   `json:"errors"`
		RPS      float64 `json:"rps"`
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 16<<20)
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &res) != nil {
		return measurement{}, fmt.Errorf("yardstick loadgen: cannot read its output:\n%.500s", out)
	}
	if res.Errors > 0 {
		fmt.Fprintf(os.Stderr, "yardstick loadgen reported %d errors\n", res.Errors)
	}
	return measurement{requests: res.Requests, rps: res.RPS, cpu: cpuOf(cmd.ProcessState)}, nil
}
