package loadgen

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// stallServer answers after service, except that once, stallAfter after
// its first request, it stops answering for stall: every request that
// arrives or is being served meanwhile waits for the stall to end.
func stallServer(t *testing.T, service, stallAfter, stall time.Duration) *httptest.Server {
	var once sync.Once
	var from, until time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		once.Do(func() { from = now.Add(stallAfter); until = from.Add(stall) })
		time.Sleep(service)
		if now := time.Now(); !now.Before(from) && now.Before(until) {
			time.Sleep(until.Sub(now))
		}
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func ms(us int64) float64 { return float64(us) / 1e3 }

// TestStallOpenLoop: at a fixed rate R for D seconds, the server stops
// answering for S = 1 s once. Requests whose intended send time falls in
// the stall complete when it ends, so their latency, measured from the
// intended time, falls linearly from S to 0. The fraction of all requests
// slower than x is therefore (S-x)/D for x < S, which puts the p99 at
// S - 0.01*D and the max at S (plus the service time). The generator must
// report exactly that: the requests queued behind the stall are counted.
//
// TestStallClosedLoop runs the same server closed-loop: only the few
// requests in flight when the stall began see it, every other request is
// simply not sent during the stall, and the p99 stays near the service
// time. That is coordinated omission; this pair of tests documents it.
func TestStallOpenLoop(t *testing.T) {
	t.Parallel()
	const (
		rate    = 200.0
		D       = 4 * time.Second
		S       = time.Second
		service = 2 * time.Millisecond
	)
	srv := stallServer(t, service, 1500*time.Millisecond, S)
	var intervals []Interval
	res, err := Run(context.Background(), Spec{URL: srv.URL + "/", Connections: 20, Rate: rate, Duration: Duration(D)},
		func(iv Interval) { intervals = append(intervals, iv) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("open loop: %d requests, p50 %.1fms p90 %.1fms p99 %.1fms max %.1fms, late sends %d, unsent %d",
		res.Requests, ms(res.Latency.P50), ms(res.Latency.P90), ms(res.Latency.P99), ms(res.Latency.Max), res.LateSends, res.Unsent)
	if res.Errors != 0 || res.Mode != "open" {
		t.Fatalf("errors %d mode %s", res.Errors, res.Mode)
	}
	// the schedule was kept: about R*D requests
	if want := rate * D.Seconds(); float64(res.Requests) < 0.95*want || float64(res.Requests) > 1.01*want {
		t.Errorf("%d requests, want about %.0f", res.Requests, want)
	}
	wantP99 := S - time.Duration(0.01*float64(D)) // 960 ms
	if got := time.Duration(res.Latency.P99) * time.Microsecond; got < wantP99-80*time.Millisecond || got > wantP99+60*time.Millisecond {
		t.Errorf("p99 %s, want %s (S - 0.01 D) within -80/+60 ms", got, wantP99)
	}
	// The request that waits longest was sent just as the stall began;
	// on a busy machine that can be a few milliseconds after it began
	// (seen: 999.4 ms), so the bound is S - 20 ms .. S + 80 ms.
	if got := time.Duration(res.Latency.Max) * time.Microsecond; got < S-20*time.Millisecond || got > S+80*time.Millisecond {
		t.Errorf("max %s, want %s (S) within -20/+80 ms", got, S)
	}
	// about a quarter of the requests (S/D) were queued behind the stall:
	// the fraction above 100 ms is (S-0.1s)/D = 22.5 %. A loop that hid
	// the stall (coordinated omission) would count only the 20 requests in
	// flight, 2.5 %: the lower bound catches it. Above, the backlog's
	// drain after the stall adds slow requests when the 2 CPUs are busy
	// (seen: 28.2 % while a make test ran beside it), so the upper bound
	// is looser.
	h, err := res.Histogram()
	if err != nil {
		t.Fatal(err)
	}
	above := fractionAbove(h, 100_000)
	if want := (S.Seconds() - 0.1) / D.Seconds(); above < want-0.03 || above > want+0.08 {
		t.Errorf("fraction above 100 ms = %.3f, want %.3f -0.03/+0.08", above, want)
	}
	// the late sends are those the stall held up
	if res.LateSends < int64(0.2*rate*S.Seconds()) {
		t.Errorf("%d late sends, want most of the %.0f slots in the stall", res.LateSends, rate*S.Seconds())
	}
	// one interval a tick; a tick the busy machine delayed past the end
	// of the run is not reported (seen: 39 of 40 under make test)
	if n, want := len(intervals), int(D/DefaultInterval); n < want-1 || n > want {
		t.Errorf("%d intervals, want %d (or one fewer)", n, want)
	}
}

func fractionAbove(h *hdrhistogram.Histogram, us int64) float64 {
	var n int64
	for _, b := range h.Distribution() {
		if b.From > us {
			n += b.Count
		}
	}
	return float64(n) / float64(h.TotalCount())
}

func TestStallClosedLoop(t *testing.T) {
	t.Parallel()
	const (
		D       = 4 * time.Second
		S       = time.Second
		service = 2 * time.Millisecond
	)
	srv := stallServer(t, service, 1500*time.Millisecond, S)
	res, err := Run(context.Background(), Spec{URL: srv.URL + "/", Connections: 4, Duration: Duration(D)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("closed loop: %d requests, p50 %.1fms p99 %.1fms p99.9 %.1fms max %.1fms",
		res.Requests, ms(res.Latency.P50), ms(res.Latency.P99), ms(res.Latency.P999), ms(res.Latency.Max))
	// The stall is in the max (the 4 requests in flight waited for it)...
	if got := time.Duration(res.Latency.Max) * time.Microsecond; got < S-100*time.Millisecond {
		t.Errorf("max %s: the stall is missing", got)
	}
	// ...but hidden from the percentiles: the p99 stays near the service
	// time, far below the ~960 ms an honest open-loop measurement gives.
	if got := time.Duration(res.Latency.P99) * time.Microsecond; got > 50*time.Millisecond {
		t.Errorf("p99 %s: expected coordinated omission to hide the stall (p99 near %s)", got, service)
	}
}

// TestFixedDelay: a server with a fixed 5 ms delay; the reported p50 is
// within 5% of the true latency. On a busy machine time.Sleep(5ms) takes
// somewhat longer, so the true latency is what the server measures around
// its delay plus the loopback and HTTP cost, which a first run against the
// same server without the delay measures. Not parallel: it runs alone, before
// the parallel tests load the machine.
func TestFixedDelay(t *testing.T) {
	const delay = 5 * time.Millisecond
	var mu sync.Mutex
	var served []time.Duration
	var sleep atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !sleep.Load() {
			_, _ = w.Write([]byte("ok"))
			return
		}
		start := time.Now()
		time.Sleep(delay)
		mu.Lock()
		served = append(served, time.Since(start))
		mu.Unlock()
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	spec := Spec{URL: srv.URL + "/", Connections: 4, Duration: Duration(2 * time.Second), MaxRequests: 1000}
	base, err := Run(context.Background(), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	sleep.Store(true)
	res, err := Run(context.Background(), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	slices.Sort(served)
	serverP50 := served[len(served)/2]
	mu.Unlock()
	loopback := time.Duration(base.Latency.P50) * time.Microsecond
	truth := serverP50 + loopback
	got := time.Duration(res.Latency.P50) * time.Microsecond
	t.Logf("p50 %s; true %s = server-side delay p50 %s (nominal %s) + loopback p50 %s; %d requests",
		got, truth, serverP50, delay, loopback, res.Requests)
	// 10%: the truth is built from two separate measurements (the server's
	// own sleep and an idle loopback round trip), and a woken goroutine on
	// a busy 2-core machine adds a few hundred microseconds to 5 ms (seen:
	// 5.3% once). Coordinated omission or a wrong clock would be off by
	// far more.
	if d := got - truth; d < -truth/10 || d > truth/10 {
		t.Errorf("p50 %s not within 10%% of the true %s", got, truth)
	}
	if res.Errors != 0 || res.Requests < 500 {
		t.Errorf("%d requests, %d errors", res.Requests, res.Errors)
	}
}

// TestStopReports: cancelling the context (what SIGINT and SIGTERM do in
// the CLI) ends the run early with what was measured.
func TestStopReports(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Millisecond)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, Spec{URL: srv.URL + "/", Connections: 2, Duration: Duration(time.Minute)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("stop took %s", el)
	}
	if res.Stopped != "stop" || res.Requests == 0 || res.DurationS < 0.6 || res.DurationS > 1 {
		t.Errorf("stopped %q, %d requests in %.2fs", res.Stopped, res.Requests, res.DurationS)
	}
}

func TestMaxRequestsAndErrors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
		case "/close":
			w.Header().Set("Connection", "close")
			_, _ = w.Write([]byte("bye"))
		default:
			_, _ = w.Write([]byte("ok"))
		}
	}))
	defer srv.Close()
	res, err := Run(context.Background(), Spec{URL: srv.URL + "/missing", Connections: 3, Duration: Duration(10 * time.Second), MaxRequests: 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 100 || res.Errors != 100 || res.ErrorsByKind["status_4xx"] != 100 || res.StatusCounts["4xx"] != 100 || res.Stopped != "max_requests" {
		t.Errorf("got %d requests, %d errors %v, status %v, stopped %q", res.Requests, res.Errors, res.ErrorsByKind, res.StatusCounts, res.Stopped)
	}
	res, err = Run(context.Background(), Spec{URL: srv.URL + "/close", Connections: 2, Duration: Duration(10 * time.Second), MaxRequests: 50}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 50 || res.Errors != 0 || res.Reconnects < 48 {
		t.Errorf("Connection: close: %d requests, %d errors, %d reconnects", res.Requests, res.Errors, res.Reconnects)
	}
	// nothing listens: connect errors, bounded by the duration
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	res, err = Run(context.Background(), Spec{URL: url + "/", Connections: 2, Duration: Duration(300 * time.Millisecond)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 0 || res.ErrorsByKind["connect"] == 0 {
		t.Errorf("dead target: %d requests, errors %v", res.Requests, res.ErrorsByKind)
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer srv.Close()
	res, err := Run(context.Background(), Spec{URL: srv.URL + "/", Connections: 2, Duration: Duration(time.Second), Timeout: Duration(200 * time.Millisecond)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := res.ErrorsByKind["timeout"]; n < 4 || n > 12 {
		t.Errorf("%d timeouts, want about 2 connections x 1 s / 200 ms", n)
	}
}

// TestProtocolRoundTrip drives Serve with Drive over pipes, as the executor
// drives a `yardstick loadgen --stdio` child.
func TestProtocolRoundTrip(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("hi")) }))
	defer srv.Close()
	toGen, fromDriver := io.Pipe()
	toDriver, fromGen := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), toGen, fromGen, ServeOptions{})
		fromGen.Close()
	}()
	var ivs []Interval
	res, err := Drive(context.Background(), toDriver, fromDriver, Spec{URL: srv.URL + "/", Connections: 2, Duration: Duration(2100 * time.Millisecond), Interval: Duration(time.Second)},
		func(iv Interval) { ivs = append(ivs, iv) })
	fromDriver.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	// Intervals of a second, the last one the 0.1 s left; on a loaded
	// machine the tick at 2 s can come after the end at 2.1 s, and the
	// second interval then runs to the end (it measured 1.1 s in a make
	// test beside other work).
	switch {
	case len(ivs) == 3 && ivs[0].Index == 0 && ivs[1].StartS == 1 && ivs[2].DurationS <= 0.2:
	case len(ivs) == 2 && ivs[0].Index == 0 && ivs[1].StartS == 1 && ivs[1].DurationS > 1 && ivs[1].DurationS <= 1.2:
	default:
		t.Errorf("intervals: %+v", ivs)
	}
	var sum int64
	merged := newHist()
	for _, iv := range ivs {
		sum += iv.Requests
		h, err := hdrhistogram.Decode([]byte(iv.Hist))
		if err != nil {
			t.Fatalf("interval %d histogram: %v", iv.Index, err)
		}
		merged.Merge(h)
	}
	whole, err := res.Histogram()
	if err != nil {
		t.Fatal(err)
	}
	if sum != res.Requests || res.Requests == 0 || !whole.Equals(merged) || whole.TotalCount() != res.Requests {
		t.Errorf("intervals sum to %d requests, result %d; whole histogram equals merged intervals: %v", sum, res.Requests, whole.Equals(merged))
	}
}

func TestProtocolStopAndErrors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	toGen, fromDriver := io.Pipe()
	toDriver, fromGen := io.Pipe()
	go serveAndClose(toGen, fromGen)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	res, err := Drive(ctx, toDriver, fromDriver, Spec{URL: srv.URL + "/", Connections: 1, Duration: Duration(time.Minute)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != "stop" || res.Requests == 0 || res.DurationS > 2 {
		t.Errorf("stopped %q after %.2fs with %d requests", res.Stopped, res.DurationS, res.Requests)
	}

	// a bad spec comes back as an error message
	toGen, fromDriver = io.Pipe()
	toDriver, fromGen = io.Pipe()
	go serveAndClose(toGen, fromGen)
	_, err = Drive(context.Background(), toDriver, fromDriver, Spec{URL: "http://example.com/", Connections: 1, Duration: Duration(time.Second)}, nil)
	if err == nil || !contains(err.Error(), "loopback") {
		t.Errorf("err = %v, want a loopback refusal", err)
	}
}

func serveAndClose(in *io.PipeReader, out *io.PipeWriter) {
	_ = Serve(context.Background(), in, out, ServeOptions{})
	out.Close()
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub)))
}
