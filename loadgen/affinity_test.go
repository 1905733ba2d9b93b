package loadgen

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"yardstick/pipeline/cpuset"
)

// TestOwnAffinity: the masks read back are this process's own mask, one
// count per thread.
func TestOwnAffinity(t *testing.T) {
	t.Parallel()
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	var cpus []int
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	want := cpuset.Of(cpus)
	got := OwnAffinity()
	n := 0
	for _, m := range got {
		if !m.CPUs.Equal(want) {
			t.Errorf("%d thread(s) on %s, want every thread on %s", m.Threads, m.CPUs, want)
		}
		n += m.Threads
	}
	if tids, _ := threadIDs(); n == 0 || n > len(tids)+8 {
		t.Errorf("masks of %d threads, the process has about %d", n, len(tids))
	}
}

// TestResultCarriesAffinity: a driven run's result says where the load
// generator's threads ran, for a driver that cannot read its /proc.
func TestResultCarriesAffinity(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("hi")) }))
	defer srv.Close()
	toGen, fromDriver := io.Pipe()
	toDriver, fromGen := io.Pipe()
	go func() {
		_ = Serve(context.Background(), toGen, fromGen, ServeOptions{})
		fromGen.Close()
	}()
	res, err := Drive(context.Background(), toDriver, fromDriver, Spec{URL: srv.URL + "/", Connections: 1, Duration: Duration(time.Second), MaxRequests: 20}, nil)
	fromDriver.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Affinity) == 0 {
		t.Errorf("result without the load generator's CPU masks: %+v", res.Affinity)
	}
}
