package loadgen

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sys/unix"

	"yardstick/loadgen/wsframe"
)

// A holdRun is one connection-holding Run from setup to result.
type holdRun struct {
	s        Spec
	h        Hold
	addr     *net.TCPAddr
	srcs     [][4]byte
	nofile   NoFile
	nw       int
	end      int64
	step     int64
	starts   []time.Duration
	opened   []time.Duration
	stepEnds []int64
	stop     atomic.Bool
	out      chan *holdTally
	free     chan *holdTally
	done     chan struct{}
	workers  []*holdWorker
	agg      *holdAggregator
}

// runHold is Run for a spec with a Hold.
func runHold(ctx context.Context, spec Spec, onInterval func(Interval)) (*Result, error) {
	r, err := newHoldRun(spec)
	if err != nil {
		return nil, err
	}
	if err := r.makeWorkers(); err != nil {
		return nil, err
	}
	cpu0, err := SelfCPU()
	if err != nil {
		return nil, err
	}
	r.agg = newHoldAggregator(r, cpu0, onInterval)
	start := time.Now()
	for _, w := range r.workers {
		w.start, w.startWall = start, start.UnixNano()
		go w.run(r.done)
	}
	stopped := r.collect(ctx)
	cpu1, err := SelfCPU()
	if err != nil {
		return nil, err
	}
	return r.result(stopped, cpu1.Sub(cpu0))
}

// newHoldRun checks the spec, resolves the target, chooses the source
// addresses and raises the descriptor limit.
func newHoldRun(spec Spec) (*holdRun, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("load generator spec: %w", err)
	}
	r := &holdRun{s: spec, h: spec.Hold.withDefaults()}
	if r.s.Interval == 0 {
		r.s.Interval = Duration(DefaultInterval)
	}
	r.s.Method, r.s.Connections = "GET", r.h.Connections()
	hostport, _ := TargetAddrAllowed(r.s.URL, r.s.Allow)
	var err error
	if r.addr, err = resolve(hostport, r.s.Allow); err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	if r.srcs, err = sourceAddrs(&r.h, r.addr); err != nil {
		return nil, err
	}
	if r.nofile, err = raiseNoFile(uint64(r.h.Connections() + FDSlack)); err != nil {
		return nil, err
	}
	r.nw = r.s.Workers
	if r.nw == 0 {
		r.nw = usableCPUs()
	}
	r.nw = max(min(r.nw, r.h.Connections()), 1)
	var end time.Duration
	r.starts, r.opened, end = r.h.StepWindows()
	r.end = int64(end)
	for i := range r.starts {
		if i+1 < len(r.starts) {
			r.stepEnds = append(r.stepEnds, int64(r.starts[i+1]))
		} else {
			r.stepEnds = append(r.stepEnds, r.end)
		}
	}
	if d := int64(time.Duration(r.s.Duration)); d > 0 && d < r.end {
		r.end = d
	}
	r.step = int64(time.Duration(r.s.Interval))
	n := r.nw * (int(r.end/r.step) + len(r.starts) + 4)
	r.out = make(chan *holdTally, n) // never full: a worker cannot block on it
	r.free = make(chan *holdTally, r.nw*4)
	r.done = make(chan struct{}, r.nw)
	return r, nil
}

// makeWorkers creates the event loops and shares the connections out:
// connection k (in opening order) goes to worker k mod nw, from source
// address k mod len(srcs).
func (r *holdRun) makeWorkers() error {
	u, _ := url.Parse(r.s.URL)
	target, err := holdTarget(r.s.URL, time.Duration(r.h.Period))
	if err != nil {
		return err
	}
	req, err := wsframe.NewRequest(u.Host, target, r.s.Headers)
	if err != nil {
		return fmt.Errorf("hold: %w", err)
	}
	n := r.h.Connections()
	for i := range r.nw {
		ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			for _, w := range r.workers {
				unix.Close(w.ep)
			}
			return fmt.Errorf("load generator: epoll: %w", err)
		}
		w := &holdWorker{
			id: i, nw: r.nw, ep: ep, req: req, srcs: r.srcs, h: r.h,
			conns:  make([]holdConn, 0, (n+r.nw-1)/r.nw),
			rbuf:   make([]byte, holdReadBuf),
			period: int64(time.Duration(r.h.Period)), bound: int64(time.Duration(r.h.MissBound)),
			hsTimeout: int64(time.Duration(r.h.HandshakeTimeout)),
			end:       r.end, stepEnds: r.stepEnds, step: r.step, stop: &r.stop,
			out: r.out, free: r.free, raw: dedicated.Load(), pwait2: true,
		}
		w.rng.Seed(r.s.Seed, uint64(i)+1)
		if ip4 := r.addr.IP.To4(); ip4 != nil {
			w.target.Port = r.addr.Port
			copy(w.target.Addr[:], ip4)
		} else {
			w.target6 = &unix.SockaddrInet6{Port: r.addr.Port}
			copy(w.target6.Addr[:], r.addr.IP.To16())
		}
		r.workers = append(r.workers, w)
	}
	for k := range n {
		w := r.workers[k%r.nw]
		c := holdConn{fd: -1, idx: int32(len(w.conns)), openAt: r.h.openAt(k, r.starts)}
		if len(r.srcs) > 0 {
			c.src = uint8(k % len(r.srcs))
		}
		w.conns = append(w.conns, c)
	}
	for _, w := range r.workers {
		w.events = make([]unix.EpollEvent, min(len(w.conns), 1024)+1)
		w.cur = w.fresh(0, false)
		w.stp = w.fresh(0, true)
	}
	return nil
}

// collect aggregates the workers' tallies until all have finished,
// stopping them if ctx is done first. It returns what stopped the run.
func (r *holdRun) collect(ctx context.Context) string {
	stopped := "duration"
	done := ctx.Done()
	for finished := 0; finished < r.nw; {
		select {
		case t := <-r.out:
			r.agg.take(t)
		case <-r.done:
			finished++
		case <-done:
			r.stop.Store(true)
			stopped = "stop"
			done = nil
		}
	}
	for len(r.out) > 0 {
		r.agg.take(<-r.out)
	}
	r.agg.flush()
	return stopped
}

// result builds the Result of a finished hold run.
func (r *holdRun) result(stopped string, cpu CPUTime) (*Result, error) {
	var elapsed int64
	for _, w := range r.workers {
		if w.err != nil {
			return nil, fmt.Errorf("load generator event loop: %w", w.err)
		}
		elapsed = max(elapsed, w.exitAt)
	}
	whole := r.agg.whole
	enc, _ := whole.delay.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	res := &Result{
		Mode: "hold", URL: r.s.URL, Method: "GET", Connections: r.h.Connections(), Workers: r.nw,
		DurationS: secs(elapsed), Stopped: stopped,
		Errors: whole.refused + whole.dropped,
		CPUS:   cpu.Total().Seconds(), CPUUserS: cpu.User.Seconds(), CPUSysS: cpu.System.Seconds(),
		Latency: latencyOf(whole.delay), ErrorsByKind: whole.errorsByKind(), StatusCounts: map[string]int64{},
		Seed: r.s.Seed, Hist: string(enc),
	}
	hr := &HoldResult{
		Protocol: r.h.Protocol, Steps: r.agg.steps, BreakingStep: -1,
		PeriodS: secs(int64(r.h.Period)), MissBoundS: secs(int64(r.h.MissBound)),
		OpenRate: r.h.OpenRate, MaxFrame: r.h.MaxFrame, NoFile: r.nofile,
		SourceAddrs: []string{}, PeakRSSBytes: procStatusKB("VmHWM") << 10,
	}
	for _, a := range r.srcs {
		hr.SourceAddrs = append(hr.SourceAddrs, net.IP(a[:]).String())
	}
	for _, st := range hr.Steps {
		if st.Failure != "" {
			hr.BreakingStep, hr.BreakingConnections, hr.BreakingReason = st.Index, st.Connections, st.Failure
			break
		}
	}
	res.Hold = hr
	return res, nil
}

// selfRSS is this process's resident memory in bytes (/proc/self/statm).
func selfRSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(string(f[1]), 10, 64)
	return pages * int64(os.Getpagesize())
}

// procStatusKB reads one "Name: N kB" line of /proc/self/status.
func procStatusKB(name string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(l, []byte(name+":")); ok {
			f := bytes.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(string(f[0]), 10, 64)
				return n
			}
		}
	}
	return 0
}
