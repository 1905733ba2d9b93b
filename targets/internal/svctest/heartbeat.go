package svctest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The heartbeat protocol of GET /ws/heartbeat, which every long-connection
// target serves: period_ms is an integer 100..600000 (default 10000), a bad
// one is refused with 400 before the upgrade; push k of a connection, due
// at its upgrade + k × period, is one unmasked TEXT frame "SEQ SENT_NS"
// with SEQ = k and SENT_NS the server's wall clock in Unix nanoseconds.
const (
	HeartbeatPath = "/ws/heartbeat"
	// heartbeatEarly is how much earlier than its due time a push may be
	// stamped: Java schedulers round their first delay to milliseconds.
	heartbeatEarly = 10 * time.Millisecond
	// HeartbeatLate bounds how late a push may be stamped, and how long
	// it may take to arrive, on the shared 2-core machine under load.
	HeartbeatLate = 1500 * time.Millisecond
)

// Beat is one heartbeat as a client received it.
type Beat struct {
	Seq  int64
	Sent time.Time // SENT_NS
	Recv time.Time // the client's wall clock when the frame was read
}

// ParseBeat decodes a heartbeat payload, "SEQ SENT_NS".
func ParseBeat(payload []byte, recv time.Time) (Beat, error) {
	seq, sent, ok := strings.Cut(string(payload), " ")
	s, err1 := strconv.ParseInt(seq, 10, 64)
	ns, err2 := strconv.ParseInt(sent, 10, 64)
	if !ok || err1 != nil || err2 != nil || s < 1 || ns <= 0 {
		return Beat{}, fmt.Errorf("heartbeat payload %q: want \"SEQ SENT_NS\", two positive integers", payload)
	}
	return Beat{Seq: s, Sent: time.Unix(0, ns), Recv: recv}, nil
}

// heartbeatURL is base's /ws/heartbeat with period_ms=query (none when empty).
func heartbeatURL(base, query string) string {
	u := "ws" + strings.TrimPrefix(base, "http") + HeartbeatPath
	if query != "" {
		u += "?period_ms=" + query
	}
	return u
}

// dialHeartbeat opens one connection, without extensions or subprotocol.
func dialHeartbeat(ctx context.Context, base, query string) (*websocket.Conn, *http.Response, error) {
	c, resp, err := websocket.Dial(ctx, heartbeatURL(base, query), &websocket.DialOptions{
		CompressionMode: websocket.CompressionDisabled,
	})
	if err != nil {
		return nil, resp, fmt.Errorf("dial %s: %w", heartbeatURL(base, query), err)
	}
	if ext := resp.Header.Get("Sec-WebSocket-Extensions"); ext != "" {
		c.CloseNow()
		return nil, resp, fmt.Errorf("dial %s: the server chose extensions %q, want none", heartbeatURL(base, query), ext)
	}
	return c, resp, nil
}

// CheckHeartbeatRefused checks that bad period_ms values get 400 before
// the upgrade.
func CheckHeartbeatRefused(t testing.TB, base string) {
	t.Helper()
	for _, q := range []string{"abc", "0", "99", "600001", "1.5"} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		c, resp, err := dialHeartbeat(ctx, base, q)
		cancel()
		if err == nil {
			c.CloseNow()
			t.Errorf("period_ms=%s: upgraded, want 400 before the upgrade", q)
			continue
		}
		if resp == nil || resp.StatusCode != http.StatusBadRequest {
			t.Errorf("period_ms=%s: %v, want status 400", q, err)
		}
	}
}

// CheckHeartbeat checks the heartbeat protocol on n connections at once
// with period_ms = period (at least 100 ms): bad periods get 400
// (CheckHeartbeatRefused); each connection reads beats (at least 3)
// heartbeats, SEQ 1, 2, 3..., each stamped no earlier than its due time
// (upgrade + SEQ × period) and at most HeartbeatLate after it, received at
// most HeartbeatLate after its stamp; a PING sent between heartbeats gets
// its PONG, and a CLOSE gets a CLOSE.
func CheckHeartbeat(t testing.TB, base string, n, beats int, period time.Duration) {
	t.Helper()
	if beats < 3 || period < 100*time.Millisecond {
		t.Fatalf("CheckHeartbeat: %d beats of %v, want at least 3 of at least 100 ms", beats, period)
	}
	CheckHeartbeatRefused(t, base)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := heartbeatSession(base, beats, period); err != nil {
				errs <- fmt.Errorf("connection %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// heartbeatSession is one connection of CheckHeartbeat.
func heartbeatSession(base string, beats int, period time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second+time.Duration(beats)*(period+HeartbeatLate))
	defer cancel()
	dialed := time.Now()
	c, _, err := dialHeartbeat(ctx, base, strconv.FormatInt(period.Milliseconds(), 10))
	if err != nil {
		return err
	}
	defer c.CloseNow()
	upgraded := time.Now() // the server's upgrade lies in [dialed, upgraded]
	pong := make(chan error, 1)
	gotPong := false
	// the PONG is taken in by a Read: read on, a few heartbeats at most, until it came
	for k := int64(1); k <= int64(beats) || !gotPong; k++ {
		if k > int64(beats)+3 {
			return fmt.Errorf("PING sent after heartbeat 1: no PONG by heartbeat %d", k-1)
		}
		b, err := readBeat(ctx, c)
		if err != nil {
			return fmt.Errorf("heartbeat %d: %w", k, err)
		}
		if err := checkBeat(b, k, dialed, upgraded, period); err != nil {
			return err
		}
		if k == 1 {
			go func() {
				pctx, pcancel := context.WithTimeout(ctx, 4*(period+HeartbeatLate))
				defer pcancel()
				pong <- c.Ping(pctx)
			}()
		}
		select {
		case err := <-pong:
			if err != nil {
				return fmt.Errorf("PING sent after heartbeat 1: no PONG: %w", err)
			}
			gotPong = true
		default:
		}
	}
	if err := c.Close(websocket.StatusNormalClosure, ""); err != nil {
		return fmt.Errorf("CLOSE: %w (want the server's CLOSE)", err)
	}
	return nil
}

// readBeat reads one message, which must be a TEXT heartbeat.
func readBeat(ctx context.Context, c *websocket.Conn) (Beat, error) {
	typ, data, err := c.Read(ctx)
	recv := time.Now()
	if err != nil {
		return Beat{}, err
	}
	if typ != websocket.MessageText {
		return Beat{}, fmt.Errorf("a %v message, want TEXT", typ)
	}
	return ParseBeat(data, recv)
}

// checkBeat checks beat k of a connection whose upgrade lies in [dialed, upgraded].
func checkBeat(b Beat, k int64, dialed, upgraded time.Time, period time.Duration) error {
	if b.Seq != k {
		return fmt.Errorf("heartbeat %d has SEQ %d", k, b.Seq)
	}
	if d := b.Recv.Sub(b.Sent); d < -heartbeatEarly || d > HeartbeatLate {
		return fmt.Errorf("heartbeat %d received %v after its SENT_NS, want 0..%v (is SENT_NS Unix nanoseconds?)",
			k, d, HeartbeatLate)
	}
	due := time.Duration(k) * period
	if early := dialed.Add(due).Sub(b.Sent); early > heartbeatEarly {
		return fmt.Errorf("heartbeat %d stamped %v before its due time (upgrade + %d × %v): the period is not kept",
			k, early, k, period)
	}
	if late := b.Sent.Sub(upgraded.Add(due)); late > HeartbeatLate {
		return fmt.Errorf("heartbeat %d stamped %v after its due time (upgrade + %d × %v)", k, late, k, period)
	}
	return nil
}

// Hold is what CheckHeartbeatHold saw.
type Hold struct {
	Conns        int
	OpenIn       time.Duration // from the first dial to the last upgrade
	RSSBefore    int64         // the target's VmRSS in bytes before the first dial
	RSSHeld      int64         // and with every connection held
	ThreadsHeld  int           // the target's threads with every connection held
	ThreadsFirst int           // and before the first dial
}

// CheckHeartbeatHold opens n connections with period_ms = period (none
// when period is 0: the default, 10 s) to base, served by process pid, at most 32 dials at a time, and holds every one
// until each has received its heartbeat 1 (so all n are held at once for
// at least one period); it fails the test for any connection refused,
// dropped or without its heartbeat, and returns what the target's memory
// and threads were, for the test to log.
func CheckHeartbeatHold(t testing.TB, base string, pid, n int, period time.Duration) Hold {
	t.Helper()
	h := Hold{Conns: n, RSSBefore: rss(pid), ThreadsFirst: len(Threads(t, pid))}
	query := ""
	if period == 0 {
		period = 10 * time.Second
	} else {
		query = strconv.FormatInt(period.Milliseconds(), 10)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute+period+HeartbeatLate)
	defer cancel()
	conns := make([]*websocket.Conn, n)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.CloseNow()
			}
		}
	}()
	t0 := time.Now()
	if err := dialAll(ctx, base, conns, query); err != nil {
		t.Fatalf("%d connections: %v", n, err)
	}
	h.OpenIn = time.Since(t0)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i, c := range conns {
		wg.Go(func() {
			b, err := readBeat(ctx, c)
			if err == nil && b.Seq != 1 {
				err = fmt.Errorf("SEQ %d, want 1", b.Seq)
			}
			if err != nil {
				errs <- fmt.Errorf("connection %d: heartbeat 1: %w", i, err)
			}
		})
	}
	wg.Wait()
	h.RSSHeld, h.ThreadsHeld = rss(pid), len(Threads(t, pid))
	close(errs)
	failed := 0
	for err := range errs {
		if failed++; failed <= 5 {
			t.Error(err)
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d held connections got no heartbeat 1", failed, n)
	}
	return h
}

// dialAll opens len(conns) connections, 32 at a time; the first error stops it.
func dialAll(ctx context.Context, base string, conns []*websocket.Conn, query string) error {
	var mu sync.Mutex
	var first error
	sem := make(chan struct{}, 32)
	var wg sync.WaitGroup
	for i := range conns {
		sem <- struct{}{}
		mu.Lock()
		stop := first != nil
		mu.Unlock()
		if stop {
			<-sem
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			c, _, err := dialHeartbeat(ctx, base, query)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && first == nil {
				first = fmt.Errorf("connection %d: %w", i, err)
			}
			conns[i] = c
		})
	}
	wg.Wait()
	return first
}

// rss is the process's VmRSS in bytes, or -1 when /proc does not say.
func rss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return -1
}

// String reports the hold in one line: connections, time to open them,
// the target's RSS and threads before and with them.
func (h Hold) String() string {
	per := "?"
	if h.RSSBefore > 0 && h.RSSHeld > 0 {
		per = strconv.FormatFloat(float64(h.RSSHeld-h.RSSBefore)/float64(h.Conns)/1024, 'f', 1, 64) + " KiB"
	}
	return fmt.Sprintf("%d connections opened in %v; target RSS %d -> %d MiB (%s per connection), threads %d -> %d",
		h.Conns, h.OpenIn.Round(time.Millisecond), h.RSSBefore>>20, h.RSSHeld>>20, per, h.ThreadsFirst, h.ThreadsHeld)
}

// HoldConns is how many connections CheckTargetHeartbeat holds at once: enough
// to find a server that spends a thread per connection, few enough for
// the shared 2-core machine.
const HoldConns = 2000

// HeartbeatJVMArgs give the JVM room for HoldConns connections.
var HeartbeatJVMArgs = []string{"-Xms64m", "-Xmx256m", "-XX:TieredStopAtLevel=1"}

// CheckTargetHeartbeat starts jar with java, --port 0 (the target says
// which port it got) and args, and checks its /ws/heartbeat: CheckHeartbeat on 4 connections, 3
// heartbeats each at period_ms=200; then CheckHeartbeatHold with HoldConns
// connections at the default period (no period_ms: 10 s), logging the
// target's memory and threads; then a SIGTERM exit.
func CheckTargetHeartbeat(t *testing.T, java, jar string, args ...string) {
	t.Helper()
	p := StartJar(t, Spec{
		Java: java, JVMArgs: HeartbeatJVMArgs, Jar: jar, ReadyTimeout: 5 * time.Minute,
		Args: append([]string{"--port", "0"}, args...),
	})
	CheckHeartbeat(t, p.Base, 4, 3, 200*time.Millisecond)
	h := CheckHeartbeatHold(t, p.Base, p.Pid(), HoldConns, 0)
	t.Logf("%s hold: %v", p.Name, h)
	p.Stop(t)
}
