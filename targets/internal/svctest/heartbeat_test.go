package svctest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// fault makes the reference heartbeat server break the protocol one way.
type fault int

const (
	good      fault = iota
	early           // pushes at upgrade + (SEQ-1) × period: the first at once
	seqSkips        // SEQ counts 1, 3, 5...
	millis          // SENT_NS in milliseconds
	slow            // ignores period_ms: pushes every second
	anyPeriod       // upgrades whatever period_ms says
	deaf            // never reads: no PONG, no CLOSE
)

// heartbeatServer serves the heartbeat protocol, broken by f, on loopback.
func heartbeatServer(t *testing.T, f fault) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ms, err := strconv.Atoi(r.URL.Query().Get("period_ms"))
		if (err != nil || ms < 100 || ms > 600000) && f != anyPeriod {
			http.Error(w, "bad period_ms", http.StatusBadRequest)
			return
		}
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
		if err != nil {
			return
		}
		defer c.CloseNow()
		up := time.Now()
		period := time.Duration(ms) * time.Millisecond
		if f == slow {
			period = time.Second
		}
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()
		if f != deaf {
			ctx = c.CloseRead(ctx) // answers PING and CLOSE
		}
		for k := int64(1); ; k++ {
			due := up.Add(time.Duration(k) * period)
			if f == early {
				due = due.Add(-period)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Until(due)):
			}
			seq, ns := k, time.Now().UnixNano()
			if f == seqSkips {
				seq = 2*k - 1
			}
			if f == millis {
				ns /= 1e6
			}
			if c.Write(ctx, websocket.MessageText, fmt.Appendf(nil, "%d %d", seq, ns)) != nil {
				return
			}
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// TestHeartbeatSession: a server that keeps the protocol passes; each
// way of breaking it is caught, with what was wrong.
func TestHeartbeatSession(t *testing.T) {
	for _, c := range []struct {
		f    fault
		want string // "" for a pass
	}{
		{good, ""},
		{early, "before its due time"},
		{seqSkips, "heartbeat 2 has SEQ 3"},
		{millis, "is SENT_NS Unix nanoseconds?"},
		{slow, "after its due time"},
		{deaf, "no PONG"},
	} {
		s := heartbeatServer(t, c.f)
		err := heartbeatSession(s.URL, 3, 100*time.Millisecond)
		if c.want == "" && err != nil {
			t.Errorf("fault %d: %v, want a pass", c.f, err)
		}
		if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("fault %d: %v, want an error with %q", c.f, err, c.want)
		}
	}
}

// recorder is a testing.TB that keeps its errors.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestHeartbeatRefused(t *testing.T) {
	var r recorder
	r.TB = t
	CheckHeartbeatRefused(&r, heartbeatServer(t, good).URL)
	if len(r.errs) != 0 {
		t.Errorf("a server that refuses bad periods: %q", r.errs)
	}
	r.errs = nil
	CheckHeartbeatRefused(&r, heartbeatServer(t, anyPeriod).URL)
	if len(r.errs) != 5 || !strings.Contains(r.errs[0], "period_ms=abc: upgraded, want 400") {
		t.Errorf("a server that upgrades any period: %q", r.errs)
	}
}

func TestHeartbeatHold(t *testing.T) {
	s := heartbeatServer(t, good)
	h := CheckHeartbeatHold(t, s.URL, os.Getpid(), 50, 200*time.Millisecond)
	if h.Conns != 50 || h.OpenIn <= 0 || h.RSSHeld <= 0 || h.ThreadsHeld < 1 {
		t.Errorf("hold: %+v", h)
	}
	t.Log(h)
}

func TestParseBeat(t *testing.T) {
	now := time.Now()
	b, err := ParseBeat([]byte("3 1764856800123456789"), now)
	if err != nil || b.Seq != 3 || b.Sent.UnixNano() != 1764856800123456789 || !b.Recv.Equal(now) {
		t.Errorf("ParseBeat: %+v %v", b, err)
	}
	for _, bad := range []string{"", "1", "1 ", " 1", "0 5", "-1 5", "1 x", "1 2 3", "1  2", "a 2"} {
		if _, err := ParseBeat([]byte(bad), now); err == nil {
			t.Errorf("ParseBeat(%q) passed", bad)
		}
	}
}
