package loadgen

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/stats/hdrstat"
)

// Histogram geometry: 1 us to 60 s at 3 significant digits, as wrk2 and the
// HdrHistogram tools use; values outside are clamped to the range.
const (
	histMin    = 1
	histMax    = 60_000_000
	histDigits = 3
)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(histMin, histMax, histDigits) }

// ErrorKind classifies a failed request.
type ErrorKind uint8

// The error kinds, in the order they appear in results.
const (
	ErrConnect     ErrorKind = iota // the TCP connection could not be made
	ErrTimeout                      // no complete response within the timeout
	ErrShortRead                    // the connection ended or was reset mid-response
	ErrWrite                        // the request could not be written
	ErrParse                        // the response was not HTTP/1.x
	ErrStatus4xx                    // a complete response with a 4xx status
	ErrStatus5xx                    // a complete response with a 5xx status
	ErrStatusOther                  // a complete response with a status outside 200-499
	numErrorKinds
)

var errorKindNames = [numErrorKinds]string{"connect", "timeout", "short_read", "write", "parse", "status_4xx", "status_5xx", "status_other"}

// String is the kind's name in results.
func (k ErrorKind) String() string {
	if k < numErrorKinds {
		return errorKindNames[k]
	}
	return "unknown"
}

// tally is what one worker records over one interval. A worker owns its
// tally outright while it records: no lock, no atomic, no allocation. At
// the end of each interval it hands the tally to the aggregator over a
// channel and takes a fresh one, so the hand-off costs one channel
// operation per interval per worker, not per request.
type tally struct {
	index      int   // index of the interval since the start
	duration   int64 // ns this interval covered (shorter for the last)
	hist       *hdrhistogram.Histogram
	requests   int64 // complete responses
	bytes      int64 // response bytes read
	sends      int64 // requests written
	lateSends  int64 // open loop: sends more than LateThreshold after their intended time
	reconnects int64
	errs       [numErrorKinds]int64
	status     [6]int64 // complete responses by status class: index status/100
}

func newTally() *tally { return &tally{hist: newHist()} }

func (t *tally) clear() {
	h := t.hist
	h.Reset()
	*t = tally{hist: h}
}

// record adds one complete response with latency ns.
func (t *tally) record(latency int64, status int) {
	us := latency / 1000
	if us < histMin {
		us = histMin
	} else if us > histMax {
		us = histMax
	}
	_ = t.hist.RecordValue(us) // cannot fail: us is within the range
	t.requests++
	c := status / 100
	if c < 0 || c > 5 {
		c = 0
	}
	t.status[c]++
	switch {
	case c == 4:
		t.errs[ErrStatus4xx]++
	case c == 5:
		t.errs[ErrStatus5xx]++
	case c != 2 && c != 3:
		t.errs[ErrStatusOther]++
	}
}

func (t *tally) errors() int64 {
	var n int64
	for _, e := range t.errs {
		n += e
	}
	return n
}

// add merges o into t (not the index and duration).
func (t *tally) add(o *tally) {
	t.hist.Merge(o.hist)
	t.requests += o.requests
	t.bytes += o.bytes
	t.sends += o.sends
	t.lateSends += o.lateSends
	t.reconnects += o.reconnects
	for i := range t.errs {
		t.errs[i] += o.errs[i]
	}
	for i := range t.status {
		t.status[i] += o.status[i]
	}
}

// Interval is what the load generator measured in one interval of the run
// (Spec.Interval, 100 ms by default), counted by completion time. Interval
// i covers [i*Spec.Interval, (i+1)*Spec.Interval) from the start of the
// run; the last one may be shorter.
type Interval struct {
	Index     int     `json:"index"`
	StartS    float64 `json:"start_s"`
	DurationS float64 `json:"duration_s"`
	Requests  int64   `json:"requests"`
	Errors    int64   `json:"errors"`
	Bytes     int64   `json:"bytes"`
	Sends     int64   `json:"sends"`
	LateSends int64   `json:"late_sends"`
	P50us     int64   `json:"p50_us"`
	P99us     int64   `json:"p99_us"`
	Maxus     int64   `json:"max_us"`
	// Hist is the interval's latency histogram in microseconds, in the
	// standard compressed encoding (HISTFAAA...); in a hold run, the
	// heartbeats' delay from their expected time.
	Hist string `json:"hist"`
	// Hold is what a connection-holding run (Spec.Hold) measured in the
	// interval; nil in a request run, whose fields above it leaves zero.
	Hold *HoldCounts `json:"hold,omitempty"`
}

func (t *tally) interval(step int64, e *histEncoder) Interval {
	enc, _ := e.encode(t.hist)
	d := hdrstat.NewDist(t.hist) // the published convention, not the library's rounding
	return Interval{
		Index:     t.index,
		StartS:    time.Duration(int64(t.index) * step).Seconds(),
		DurationS: time.Duration(t.duration).Seconds(),
		Requests:  t.requests,
		Errors:    t.errors(),
		Bytes:     t.bytes,
		Sends:     t.sends,
		LateSends: t.lateSends,
		P50us:     d.Percentile(50),
		P99us:     d.Percentile(99),
		Maxus:     t.hist.Max(),
		Hist:      enc,
	}
}

// aggregator joins the workers' per-interval tallies: it emits interval N
// once every worker has handed in its tally for N, and folds each into the
// whole-window tally.
type aggregator struct {
	workers int
	step    int64 // the interval's length, ns
	pending map[int]*tally
	count   map[int]int
	next    int // the next interval to emit
	whole   *tally
	free    chan *tally
	emit    func(Interval)
	enc     histEncoder // the intervals' histograms
}

func newAggregator(workers int, step int64, free chan *tally, emit func(Interval)) *aggregator {
	return &aggregator{
		workers: workers,
		step:    step,
		pending: map[int]*tally{},
		count:   map[int]int{},
		whole:   newTally(),
		free:    free,
		emit:    emit,
	}
}

// take folds one worker's tally in and emits the intervals now complete.
// The first tally handed in for an interval becomes that interval's (with
// one worker, the interval is the worker's tally as it is); the others are
// merged into it and go back to the workers at once. Nothing is allocated
// once the free list is full.
func (a *aggregator) take(t *tally) {
	if p := a.pending[t.index]; p == nil {
		a.pending[t.index] = t
	} else {
		p.add(t)
		p.duration = max(p.duration, t.duration)
		a.recycle(t)
	}
	a.count[t.index]++
	for a.count[a.next] == a.workers {
		delete(a.count, a.next)
		a.close(a.next)
		a.next++
	}
}

// close emits interval i, folds it into the whole window and recycles it.
func (a *aggregator) close(i int) {
	p := a.pending[i]
	delete(a.pending, i)
	if a.emit != nil {
		a.emit(p.interval(a.step, &a.enc))
	}
	a.whole.add(p)
	a.recycle(p)
}

// recycle clears t and gives it back to the workers if they have room.
func (a *aggregator) recycle(t *tally) {
	t.clear()
	select {
	case a.free <- t:
	default:
	}
}

// flush emits what is left once every worker has stopped.
func (a *aggregator) flush() {
	for len(a.pending) > 0 {
		if _, ok := a.pending[a.next]; ok {
			a.close(a.next)
		}
		delete(a.count, a.next)
		a.next++
	}
}
