package procsample

import (
	"context"
	"encoding/binary"
	"testing"
	"time"
)

// The ticker ticks at its interval, drops the ticks a slow reader misses,
// and a wait in progress ends when the context does.
func TestTicker(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tk := newTicker(ctx, 20*time.Millisecond)
	defer tk.stop()
	if tk.f == nil {
		t.Fatal("no timerfd")
	}
	start := time.Now()
	for range 3 {
		if !tk.wait() {
			t.Fatal("wait ended before the context did")
		}
	}
	if el := time.Since(start); el < 55*time.Millisecond {
		t.Errorf("3 ticks of 20ms in %v", el)
	}
	time.Sleep(70 * time.Millisecond) // three ticks missed: one wait takes them all
	if !tk.wait() {
		t.Fatal("wait ended before the context did")
	}
	if n := binary.LittleEndian.Uint64(tk.buf[:]); n < 3 {
		t.Errorf("the wait after missed ticks read %d expiries, want them all (3 or more)", n)
	}
	go func() { time.Sleep(30 * time.Millisecond); cancel() }()
	for tk.wait() {
	}
	if ctx.Err() == nil {
		t.Error("wait reported the end before the context ended")
	}
}
