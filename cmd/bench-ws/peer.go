package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/coder/websocket"
	"golang.org/x/sys/unix"

	"yardstick/stats/hdrstat"
)

// The peer client: what a Go programmer would write with a mainstream
// WebSocket library, one goroutine per connection blocked in Read, doing
// the load generator's job (open at a rate from several source
// addresses, read each heartbeat and record its delay from the expected
// time in an HdrHistogram), so that its memory and CPU compare.

type peer struct {
	url                     string
	period                  time.Duration
	clients                 []*http.Client
	established, failed, hb atomic.Int64
	mu                      sync.Mutex
	hist                    *hdrhistogram.Histogram
	firstErr                atomic.Pointer[string]
}

func peerMain(args []string) error {
	fs := flag.NewFlagSet("peer", flag.ContinueOnError)
	url := fs.String("url", "", "http:// URL of the heartbeat endpoint")
	n := fs.Int("n", 1000, "connections")
	rate := fs.Float64("rate", 5000, "connections opened per second")
	hold := fs.Duration("hold", 10*time.Second, "hold once all are open")
	period := fs.Duration("period", 10*time.Second, "heartbeat period")
	sources := fs.Int("sources", 1, "source addresses 127.0.0.1..")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !strings.HasPrefix(*url, "http://127.") || *n < 1 || *rate <= 0 || *sources < 1 || *sources > 64 {
		return fmt.Errorf("bad arguments (a loopback -url, -n, -rate, -sources 1..64)")
	}
	p := &peer{url: strings.Replace(*url, "http://", "ws://", 1) + "?period_ms=" + strconv.FormatInt(period.Milliseconds(), 10),
		period: *period, hist: hdrhistogram.New(1, 60_000_000, 3)}
	for i := range *sources {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(1+i))}, Control: noPortBind}
		p.clients = append(p.clients, &http.Client{Transport: &http.Transport{DialContext: d.DialContext}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	start := time.Now()
	for i := range *n {
		if d := time.Until(start.Add(time.Duration(float64(i) / *rate * float64(time.Second)))); d > 0 {
			time.Sleep(d)
		}
		wg.Add(1)
		go func() { defer wg.Done(); p.conn(ctx, i) }()
	}
	time.Sleep(time.Until(start.Add(openTime(*n, *rate))))
	cpuOpen := selfCPU()
	time.Sleep(*hold)
	r := peerResult{RSS: statusBytes(os.Getpid(), "VmRSS"), PeakRSS: statusBytes(os.Getpid(), "VmHWM")}
	r.CPUOpen, r.CPUHold = cpuOpen, selfCPU()-cpuOpen
	r.Established, r.Failed, r.Heartbeats = p.established.Load(), p.failed.Load(), p.hb.Load()
	p.mu.Lock()
	r.DelayP99us = hdrstat.NewDist(p.hist).Percentile(99)
	p.mu.Unlock()
	if e := p.firstErr.Load(); e != nil {
		r.FirstError = *e
	}
	cancel()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}

// conn opens connection i and reads its heartbeats until ctx ends.
func (p *peer) conn(ctx context.Context, i int) {
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	c, _, err := websocket.Dial(dctx, p.url, &websocket.DialOptions{HTTPClient: p.clients[i%len(p.clients)], CompressionMode: websocket.CompressionDisabled})
	cancel()
	if err != nil {
		p.failed.Add(1)
		s := err.Error()
		p.firstErr.CompareAndSwap(nil, &s)
		return
	}
	defer c.CloseNow()
	up := time.Now()
	p.established.Add(1)
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		now := time.Now()
		f := strings.Fields(string(msg))
		if len(f) != 2 {
			return
		}
		seq, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return
		}
		delay := now.Sub(up.Add(time.Duration(seq) * p.period)).Microseconds()
		p.hb.Add(1)
		p.mu.Lock()
		_ = p.hist.RecordValue(min(max(delay, 1), 60_000_000))
		p.mu.Unlock()
	}
}

// noPortBind sets IP_BIND_ADDRESS_NO_PORT, as the load generator does, so
// that the source port is chosen at connect time per 4-tuple.
func noPortBind(_, _ string, rc syscall.RawConn) error {
	var serr error
	err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_BIND_ADDRESS_NO_PORT, 1)
	})
	if err != nil {
		return err
	}
	return serr
}

func selfCPU() float64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
