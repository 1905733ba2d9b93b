// Command bench-ws measures what holding WebSocket connections costs the
// load generator (loadgen's Hold mode) against a peer client measured in
// the same run: a small client written with github.com/coder/websocket,
// one goroutine per connection (peer.go). For each count of connections
// (-counts, 10000 and 50000 by default) it starts the Go sample target
// afresh, pinned to -target-cpus, and lets each client in turn open that
// many connections to /ws/heartbeat at -rate per second and hold them for
// -hold, pinned to -gen-cpus. It prints each client's resident memory
// with every connection held, its peak, its CPU time opening and holding,
// the heartbeats it read, the target's resident memory, and the ratios
// load generator / peer.
//
// Each process (the target, each client) needs a descriptor per
// connection: the command raises RLIMIT_NOFILE (soft and, where allowed,
// hard) to the largest count plus loadgen.FDSlack for itself and the
// processes it starts, and fails before any run, saying why, when it
// cannot (a hard limit of 20000 and no CAP_SYS_RESOURCE caps every
// process at about 19,700 connections). It needs
// bin/sample-go and bin/yardstick; it installs nothing.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"yardstick/loadgen"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "peer" {
		if err := peerMain(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "bench-ws peer:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-ws:", err)
		os.Exit(1)
	}
}

type options struct {
	counts    []int
	rate      float64
	hold      time.Duration
	period    time.Duration
	targetCPU string
	genCPU    string
	sample    string
	ys        string
}

func parseFlags() (*options, error) {
	o := &options{}
	counts := flag.String("counts", "10000,50000", "connection counts to hold, one run of each client per count")
	flag.Float64Var(&o.rate, "rate", 5000, "connections opened per second")
	flag.DurationVar(&o.hold, "hold", 25*time.Second, "how long all connections are held once open")
	flag.DurationVar(&o.period, "period", 10*time.Second, "heartbeat period")
	flag.StringVar(&o.targetCPU, "target-cpus", "1", "CPUs of the sample target")
	flag.StringVar(&o.genCPU, "gen-cpus", "0", "CPUs of the clients")
	flag.StringVar(&o.sample, "sample", "bin/sample-go", "sample target binary")
	flag.StringVar(&o.ys, "yardstick", "bin/yardstick", "yardstick binary")
	flag.Parse()
	for _, f := range strings.Split(*counts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 100_000 {
			return nil, fmt.Errorf("-counts %q: want counts 1..100000", *counts)
		}
		o.counts = append(o.counts, n)
	}
	for _, p := range []string{o.sample, o.ys} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%s: %w (run make bin/sample-go build)", p, err)
		}
	}
	return o, nil
}

func run() error {
	o, err := parseFlags()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	most := 0
	for _, n := range o.counts {
		most = max(most, n)
	}
	lim, err := raiseNoFile(uint64(most + loadgen.FDSlack))
	if err != nil {
		return err
	}
	fmt.Printf("RLIMIT_NOFILE for the target and the clients: %s\n", lim)
	fmt.Printf("target pinned to CPU %s, clients to CPU %s; connections opened at %.0f/s, held %s, heartbeat every %s\n",
		o.targetCPU, o.genCPU, o.rate, o.hold, o.period)
	fmt.Printf("%-7s %-9s %11s %11s %9s %9s %9s %11s %12s %12s\n", "conns", "client", "established", "heartbeats",
		"rss MiB", "peak MiB", "cpu open", "cpu hold", "B/conn", "target MiB")
	var ysAll, peerAll []measurement
	defer func() { printMarginal(o.counts, ysAll, peerAll) }()
	for _, n := range o.counts {
		if err := ctx.Err(); err != nil {
			return err
		}
		ys, err := measureLoadgen(ctx, o, n)
		if err != nil {
			return fmt.Errorf("%d connections, load generator: %w", n, err)
		}
		ys.print(n, "loadgen")
		peer, err := measurePeer(ctx, o, n)
		if err != nil {
			return fmt.Errorf("%d connections, peer: %w", n, err)
		}
		peer.print(n, "peer")
		ysAll, peerAll = append(ysAll, ys), append(peerAll, peer)
		fmt.Printf("%-7d ratios loadgen/peer: rss %.3f, peak rss %.3f, cpu opening %.3f, cpu holding %.3f\n", n,
			ratio(ys.rss, peer.rss), ratio(ys.peakRSS, peer.peakRSS), ys.cpuOpen/peer.cpuOpen, ys.cpuHold/peer.cpuHold)
	}
	return nil
}

// printMarginal prints what each further connection cost each client:
// the growth of its resident memory and holding CPU between the smallest
// and the largest count, which leaves the process's fixed memory out.
func printMarginal(counts []int, ys, peer []measurement) {
	if len(ys) < 2 || len(peer) < 2 {
		return
	}
	a, b := 0, len(ys)-1
	dn := float64(counts[b] - counts[a])
	ysB, peerB := float64(ys[b].rss-ys[a].rss)/dn, float64(peer[b].rss-peer[a].rss)/dn
	fmt.Printf("memory per further connection, %d to %d: loadgen %.0f B, peer %.0f B, ratio %.3f\n", counts[a], counts[b], ysB, peerB, ysB/peerB)
	ysC := (ys[b].cpuHold - ys[a].cpuHold) / dn * 1e6
	peerC := (peer[b].cpuHold - peer[a].cpuHold) / dn * 1e6
	fmt.Printf("holding CPU per further connection, %d to %d: loadgen %.1f us, peer %.1f us, ratio %.3f\n", counts[a], counts[b], ysC, peerC, ysC/peerC)
}

func ratio(a, b int64) float64 { return float64(a) / float64(b) }

// measurement is what one client did holding n connections.
type measurement struct {
	established, heartbeats int64
	rss, peakRSS            int64   // bytes: with every connection held, and the peak
	cpuOpen, cpuHold        float64 // seconds: while opening, while holding
	targetRSS               int64   // the target's, while held
}

func (m measurement) print(n int, name string) {
	fmt.Printf("%-7d %-9s %11d %11d %9.1f %9.1f %8.2fs %10.2fs %12.0f %12.1f\n", n, name, m.established, m.heartbeats,
		float64(m.rss)/(1<<20), float64(m.peakRSS)/(1<<20), m.cpuOpen, m.cpuHold, float64(m.rss)/float64(n), float64(m.targetRSS)/(1<<20))
}

// noFile describes a descriptor limit.
type noFile struct{ soft, hard uint64 }

func (l noFile) String() string { return fmt.Sprintf("soft %d, hard %d", l.soft, l.hard) }

// raiseNoFile raises this process's RLIMIT_NOFILE to need (both limits)
// when the hard limit is lower, or the soft one to the hard one; the
// processes it starts inherit it. It fails saying why when it cannot.
func raiseNoFile(need uint64) (noFile, error) {
	var r unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &r); err != nil {
		return noFile{}, fmt.Errorf("getrlimit: %w", err)
	}
	want := unix.Rlimit{Cur: max(r.Max, need), Max: max(r.Max, need)}
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &want); err != nil {
		if errors.Is(err, unix.EPERM) {
			return noFile{}, fmt.Errorf("RLIMIT_NOFILE hard limit is %d, the clients need %d, and this process may not raise it (it lacks CAP_SYS_RESOURCE, which a restricted container drops even for root): raise it where the process starts (ulimit -Hn %d), or ask for smaller -counts", r.Max, need, need)
		}
		return noFile{}, fmt.Errorf("setrlimit NOFILE to %d: %w (fs.nr_open bounds it)", need, err)
	}
	return noFile{want.Cur, want.Max}, nil
}
