package loadgen

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sys/unix"
)

// Run performs the load described by spec in this process and returns what
// it measured. onInterval, if not nil, is called once per elapsed
// interval (Spec.Interval; and once for a last, shorter one) from Run's goroutine. Cancelling
// ctx stops the run early; the result then covers what was measured up to
// the stop. Run does not pin the process; see [Pin].
func Run(ctx context.Context, spec Spec, onInterval func(Interval)) (*Result, error) {
	if spec.Hold != nil {
		return runHold(ctx, spec, onInterval)
	}
	r, err := newLoadRun(spec)
	if err != nil {
		return nil, err
	}
	if err := r.makeWorkers(); err != nil {
		return nil, err
	}
	r.prepare(onInterval)
	cpu0, err := SelfCPU()
	if err != nil {
		return nil, err
	}
	r.start()
	stoppedBy := r.collect(ctx)
	cpu1, err := SelfCPU()
	if err != nil {
		return nil, err
	}
	return r.result(stoppedBy, cpu1.Sub(cpu0))
}

// A loadRun holds one Run's state from step to step: the spec with defaults
// applied, the shape of the load, the workers and the channels on which
// they hand in their tallies.
type loadRun struct {
	s     Spec
	addr  *net.TCPAddr
	reqs  *requests
	nw    int     // workers
	rate  float64 // requests per second; 0 for a closed loop
	sched Schedule
	dur   int64 // ns
	step  int64 // the reporting interval, ns
	stop  atomic.Bool

	out   chan *tally // per-interval tallies; never full: a worker cannot block on it
	final chan *tally // each worker's last tally
	free  chan *tally // cleared tallies for the workers to reuse

	workers []*worker
	agg     *aggregator
}

// newLoadRun checks spec, resolves its target, renders its requests and
// sizes the run: how many workers, at what rate, for how long.
func newLoadRun(spec Spec) (*loadRun, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("load generator spec: %w", err)
	}
	r := &loadRun{s: spec.withDefaults()}
	hostport, _ := TargetAddrAllowed(r.s.URL, r.s.Allow)
	var err error
	if r.addr, err = resolve(hostport, r.s.Allow); err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	if r.reqs, err = renderRequests(&r.s, hostport); err != nil {
		return nil, fmt.Errorf("request template: %w", err)
	}
	r.nw = r.s.Workers
	if r.nw == 0 {
		r.nw = usableCPUs()
	}
	r.nw = max(min(r.nw, r.s.Connections), 1)
	r.rate = r.s.EffectiveRate()
	r.sched = Schedule{Connections: int64(r.s.Connections), Rate: r.rate}
	r.dur = int64(time.Duration(r.s.Duration))
	r.step = int64(time.Duration(r.s.Interval))
	intervals := int(r.dur/r.step) + 2
	r.out = make(chan *tally, r.nw*intervals+r.nw)
	r.final = make(chan *tally, r.nw)
	r.free = make(chan *tally, r.nw*2)
	return r, nil
}

// makeWorkers creates the workers, each with its epoll set and its share
// of the request quota and of the connections.
func (r *loadRun) makeWorkers() error {
	r.workers = make([]*worker, r.nw)
	for i := range r.workers {
		w, err := newWorker(r.addr, r.reqs, r.s.Seed, i)
		if err != nil {
			for _, o := range r.workers[:i] {
				unix.Close(o.ep)
			}
			return fmt.Errorf("load generator: epoll: %w", err)
		}
		w.end, w.timeout, w.step = r.dur, int64(time.Duration(r.s.Timeout)), r.step
		w.open, w.sched, w.stop = r.rate > 0, r.sched, &r.stop
		w.out, w.free = r.out, r.free
		w.quota = quotaShare(r.s.MaxRequests, r.nw, i)
		w.raw = dedicated.Load()

		r.workers[i] = w
	}
	for c := 0; c < r.s.Connections; c++ {
		r.workers[c%r.nw].addConn(int64(c))
	}
	return nil
}

// quotaShare is worker i's share of maxRequests split among nw workers, or
// -1 (unbounded) when maxRequests is not set.
func quotaShare(maxRequests int64, nw, i int) int64 {
	if maxRequests <= 0 {
		return -1
	}
	q := maxRequests / int64(nw)
	if int64(i) < maxRequests%int64(nw) {
		q++
	}
	return q
}

// prepare allocates, before the clock starts, what the workers and the
// aggregator need.
func (r *loadRun) prepare(onInterval func(Interval)) {
	for _, w := range r.workers {
		w.prepare()
	}
	for range cap(r.free) {
		r.free <- newTally()
	}
	r.agg = newAggregator(r.nw, r.step, r.free, onInterval)
}

// start starts the clock and the workers' event loops.
func (r *loadRun) start() {
	start := time.Now()
	for _, w := range r.workers {
		w.start = start
		go w.run(r.final)
	}
}

// collect aggregates the workers' tallies until every worker has finished,
// telling them to stop if ctx is done first. It returns what stopped the
// run as far as it can tell: "stop" or "duration".
func (r *loadRun) collect(ctx context.Context) string {
	stoppedBy := "duration"
	done := ctx.Done()
	for finished := 0; finished < r.nw; {
		select {
		case t := <-r.out:
			r.agg.take(t)
		case t := <-r.final:
			finished++
			// every tally a worker handed in before its final one is in out already
			for len(r.out) > 0 {
				r.agg.take(<-r.out)
			}
			r.agg.take(t)
		case <-done:
			r.stop.Store(true)
			stoppedBy = "stop"
			done = nil
		}
	}
	for len(r.out) > 0 {
		r.agg.take(<-r.out)
	}
	r.agg.flush()
	return stoppedBy
}

// result builds the Result of a finished run from the workers' ends and
// the aggregated tallies, or returns the first event loop error.
func (r *loadRun) result(stoppedBy string, cpu CPUTime) (*Result, error) {
	var elapsed int64
	var incomplete int64
	var werr error
	for _, w := range r.workers {
		elapsed = max(elapsed, w.exitAt)
		incomplete += w.outstanding
		if w.err != nil && werr == nil {
			werr = w.err
		}
	}
	if werr != nil {
		return nil, fmt.Errorf("load generator event loop: %w", werr)
	}
	if stoppedBy == "duration" && elapsed < r.dur && r.s.MaxRequests > 0 {
		stoppedBy = "max_requests"
	}
	return buildResult(&r.s, r.nw, r.rate, r.sched, elapsed, stoppedBy, incomplete, r.agg.whole, cpu, len(r.reqs.variants)), nil
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
