package loadgen

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// heartbeatServer is the heartbeat protocol's server side written with
// github.com/coder/websocket, a peer implementation of RFC 6455: every
// period_ms from the upgrade it pushes "SEQ SENT_NS". stall, when set,
// holds every push of a connection back until the connection's
// stall-th push is due plus the stall's length (then catches up).
func heartbeatServer(t *testing.T, stallAt int64, stall time.Duration) (*httptest.Server, *atomic.Int64) {
	var upgraded atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ms, err := strconv.Atoi(r.URL.Query().Get("period_ms"))
		if err != nil || ms < 100 {
			http.Error(w, "period_ms", http.StatusBadRequest)
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		upgraded.Add(1)
		ctx := c.CloseRead(r.Context())
		up, period := time.Now(), time.Duration(ms)*time.Millisecond
		for seq := int64(1); ; seq++ {
			due := up.Add(time.Duration(seq) * period)
			if stallAt > 0 && seq >= stallAt {
				if hold := up.Add(time.Duration(stallAt)*period + stall); hold.After(due) {
					due = hold
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Until(due)):
			}
			msg := fmt.Sprintf("%d %d", seq, time.Now().UnixNano())
			if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &upgraded
}

func TestHoldSteps(t *testing.T) {
	srv, upgraded := heartbeatServer(t, 0, 0)
	spec := Spec{URL: srv.URL + "/ws/heartbeat", Hold: &Hold{
		Protocol: "websocket", Steps: []int{20, 50}, OpenRate: 500,
		StepHold: Duration(700 * time.Millisecond), Period: Duration(200 * time.Millisecond),
	}}
	var ivs []Interval
	res, err := Run(context.Background(), spec, func(iv Interval) { ivs = append(ivs, iv) })
	if err != nil {
		t.Fatal(err)
	}
	h := res.Hold
	if res.Mode != "hold" || h == nil || len(h.Steps) != 2 {
		t.Fatalf("result %+v", res)
	}
	if upgraded.Load() != 50 {
		t.Errorf("server upgraded %d connections, want 50", upgraded.Load())
	}
	for i, st := range h.Steps {
		want := []int64{20, 30}[i]
		if st.Requested != want || st.Established != want || st.Refused != 0 || st.Dropped != 0 || !st.Complete {
			t.Errorf("step %d: %+v", i, st)
		}
		if st.Held != int64(st.Connections) {
			t.Errorf("step %d held %d, want %d", i, st.Held, st.Connections)
		}
		// each connection gets about hold/period heartbeats in its step
		if st.Heartbeats < int64(st.Connections) || st.Missed != 0 || st.Failure != "" {
			t.Errorf("step %d: %d heartbeats, %d missed, failure %q", i, st.Heartbeats, st.Missed, st.Failure)
		}
		if st.Delay.P99 > 100_000 {
			t.Errorf("step %d: delay p99 %d us on an idle loopback", i, st.Delay.P99)
		}
	}
	if h.BreakingStep != -1 || !h.NoFile.Raised && h.NoFile.Soft < h.NoFile.Hard {
		t.Errorf("breaking step %d, nofile %+v", h.BreakingStep, h.NoFile)
	}
	if len(h.SourceAddrs) != 1 || h.SourceAddrs[0] != "127.0.0.1" {
		t.Errorf("source addresses %v", h.SourceAddrs)
	}
	var est, hb int64
	for _, iv := range ivs {
		if iv.Hold == nil {
			t.Fatalf("interval %d without hold counts", iv.Index)
		}
		est += iv.Hold.Established
		hb += iv.Hold.Heartbeats
	}
	if est != 50 || hb != h.Steps[0].Heartbeats+h.Steps[1].Heartbeats {
		t.Errorf("intervals: %d established, %d heartbeats; steps say 50 and %d", est, hb, h.Steps[0].Heartbeats+h.Steps[1].Heartbeats)
	}
	if last := ivs[len(ivs)-1].Hold; last.Open != 50 || last.RSSBytes == 0 {
		t.Errorf("last interval: %+v", last)
	}
}

// TestHoldStallCorrected: a server that holds every push back for 600 ms
// at the third heartbeat and then catches up shows the stall in the
// delay from the expected schedule (and as missed heartbeats beyond a
// 300 ms bound), though the delivery latency of each push stays small.
func TestHoldStallCorrected(t *testing.T) {
	srv, _ := heartbeatServer(t, 3, 600*time.Millisecond)
	spec := Spec{URL: srv.URL + "/ws/heartbeat", Hold: &Hold{
		Protocol: "websocket", Steps: []int{10}, OpenRate: 1000,
		StepHold: Duration(2 * time.Second), Period: Duration(200 * time.Millisecond), MissBound: Duration(300 * time.Millisecond),
	}}
	res, err := Run(context.Background(), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := res.Hold.Steps[0]
	if st.Delay.Max < 500_000 {
		t.Errorf("delay max %d us: the 600 ms stall does not show", st.Delay.Max)
	}
	if st.Latency.P99 > 100_000 {
		t.Errorf("delivery latency p99 %d us: should stay small", st.Latency.P99)
	}
	if st.Missed == 0 || st.Failure != "missed_heartbeats" || res.Hold.BreakingStep != 0 {
		t.Errorf("missed %d, failure %q, breaking step %d", st.Missed, st.Failure, res.Hold.BreakingStep)
	}
}
