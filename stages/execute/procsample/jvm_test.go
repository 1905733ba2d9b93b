//go:build integration

package procsample

import (
	"regexp"
	"testing"
)

// TestIntegrationLiveJVMThreadNames samples a real JVM (testdata/Named.java,
// three threads named sample-worker-*): the thread names the sampler
// matches are the JVM's. It needs java, not Go alone, so it carries the
// build tag integration and runs in make test-integration.
func TestIntegrationLiveJVMThreadNames(t *testing.T) {
	pfs := realFS(t)
	c := startJava(t)
	re := regexp.MustCompile(`^sample-worker-`)
	s := take(t, pfs, c.pgid, re)
	if s.MatchedThreads != 3 {
		t.Errorf("MatchedThreads = %d, want 3", s.MatchedThreads)
	}
	names, err := ThreadNames(pfs, c.pgid)
	if err != nil {
		t.Fatal(err)
	}
	if n := CountMatching(names, re); n != 3 || len(names) != s.Threads {
		t.Errorf("%d of %d names match (sample: %d threads): %q", n, len(names), s.Threads, names)
	}
}
