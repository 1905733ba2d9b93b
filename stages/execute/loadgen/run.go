package loadgen

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sys/unix"
)

// Run performs the load described by spec in this process and returns what
// it measured. onInterval, if not nil, is called once per elapsed second
// (and once for a last, shorter interval) from Run's goroutine. Cancelling
// ctx stops the run early; the result then covers what was measured up to
// the stop. Run does not pin the process; see [Pin].
func Run(ctx context.Context, spec Spec, onInterval func(Interval)) (*Result, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("load generator spec: %w", err)
	}
	s := spec.withDefaults()
	hostport, _ := TargetAddr(s.URL)
	addr, err := resolve(hostport)
	if err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	reqs, err := renderRequests(&s, hostport)
	if err != nil {
		return nil, fmt.Errorf("request template: %w", err)
	}
	nw := s.Workers
	if nw == 0 {
		nw = usableCPUs()
	}
	nw = max(min(nw, s.Connections), 1)
	rate := s.EffectiveRate()
	sched := Schedule{Connections: int64(s.Connections), Rate: rate}
	dur := int64(time.Duration(s.Duration))
	seconds := int(dur/int64(time.Second)) + 2

	var stop atomic.Bool
	out := make(chan *tally, nw*seconds+nw) // never full: a worker cannot block on it
	final := make(chan *tally, nw)
	free := make(chan *tally, nw*2)
	workers := make([]*worker, nw)
	for i := range workers {
		w, err := newWorker(addr, reqs, s.Seed, i)
		if err != nil {
			for _, o := range workers[:i] {
				unix.Close(o.ep)
			}
			return nil, fmt.Errorf("load generator: epoll: %w", err)
		}
		w.end, w.timeout = dur, int64(time.Duration(s.Timeout))
		w.open, w.sched, w.stop = rate > 0, sched, &stop
		w.out, w.free = out, free
		w.quota = -1
		if s.MaxRequests > 0 {
			w.quota = s.MaxRequests / int64(nw)
			if int64(i) < s.MaxRequests%int64(nw) {
				w.quota++
			}
		}
		workers[i] = w
	}
	for c := 0; c < s.Connections; c++ {
		workers[c%nw].addConn(int64(c))
	}

	for _, w := range workers {
		w.prepare()
	}
	for range cap(free) {
		free <- newTally()
	}
	agg := newAggregator(nw, free, onInterval)
	cpu0, err := SelfCPU()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	for _, w := range workers {
		w.start = start
		go w.run(final)
	}
	stoppedBy := "duration"
	done := ctx.Done()
	for finished := 0; finished < nw; {
		select {
		case t := <-out:
			agg.take(t)
		case t := <-final:
			finished++
			// every tally a worker handed in before its final one is in out already
			for len(out) > 0 {
				agg.take(<-out)
			}
			agg.take(t)
		case <-done:
			stop.Store(true)
			stoppedBy = "stop"
			done = nil
		}
	}
	for len(out) > 0 {
		agg.take(<-out)
	}
	agg.flush()
	cpu1, err := SelfCPU()
	if err != nil {
		return nil, err
	}
	var elapsed int64
	var incomplete int64
	var werr error
	for _, w := range workers {
		elapsed = max(elapsed, w.exitAt)
		incomplete += w.outstanding
		if w.err != nil && werr == nil {
			werr = w.err
		}
	}
	if werr != nil {
		return nil, fmt.Errorf("load generator event loop: %w", werr)
	}
	if stoppedBy == "duration" && elapsed < dur && s.MaxRequests > 0 {
		stoppedBy = "max_requests"
	}
	return buildResult(&s, nw, rate, sched, elapsed, stoppedBy, incomplete, agg.whole, cpu1.Sub(cpu0), len(reqs.variants)), nil
}

func usableCPUs() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err == nil && set.Count() > 0 {
		return set.Count()
	}
	return runtime.NumCPU()
}

func buildResult(s *Spec, nw int, rate float64, sched Schedule, elapsed int64, stopped string, incomplete int64, whole *tally, cpu CPUTime, variants int) *Result {
	secs := time.Duration(elapsed).Seconds()
	enc, _ := whole.hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	r := &Result{
		Mode:          "closed",
		URL:           s.URL,
		Method:        s.Method,
		Connections:   s.Connections,
		Workers:       nw,
		DurationS:     secs,
		Stopped:       stopped,
		Requests:      whole.requests,
		Errors:        whole.errors(),
		CPUS:          cpu.Total().Seconds(),
		CPUUserS:      cpu.User.Seconds(),
		CPUSysS:       cpu.System.Seconds(),
		Latency:       latencyOf(whole.hist),
		Sends:         whole.sends,
		LateSends:     whole.lateSends,
		Incomplete:    incomplete,
		Reconnects:    whole.reconnects,
		ErrorsByKind:  map[string]int64{},
		StatusCounts:  map[string]int64{},
		ResponseBytes: whole.bytes,
		Seed:          s.Seed,
		Variants:      variants,
		Hist:          string(enc),
	}
	if secs > 0 {
		r.RPS = float64(r.Requests) / secs
		r.RateAchieved = float64(r.Sends) / secs
	}
	if r.Requests > 0 {
		r.CPUPerRequestUS = cpu.Total().Seconds() * 1e6 / float64(r.Requests)
		r.BytesPerResp = float64(r.ResponseBytes) / float64(r.Requests)
	}
	if rate > 0 {
		r.Mode = "open"
		r.RateTarget = rate
		if stopped != "max_requests" {
			r.Unsent = max(sched.Due(elapsed)-r.Sends, 0)
		}
	}
	for k := ErrorKind(0); k < numErrorKinds; k++ {
		r.ErrorsByKind[k.String()] = whole.errs[k]
	}
	for c := 1; c <= 5; c++ {
		r.StatusCounts[fmt.Sprintf("%dxx", c)] = whole.status[c]
	}
	return r
}
