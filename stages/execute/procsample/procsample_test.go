package procsample

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"yardstick/pipeline/cpuset"
)

// The fixture tree is a snapshot of a real process group taken with
// testdata/snapshot.sh (Linux 6.x, 2 CPUs):
//
//	setsid sh -c 'sleep 0.1 & sleep 300 & java -Xmx32m -XX:+UseSerialGC \
//	    -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 Named.java & exec sleep 300' &
//	setsid sleep 300 &
//	./snapshot.sh fixtures 31116 31119 31120 31121 31117
//
// Group 31116: the leader (sh, exec'd into sleep), 31119 a zombie (the
// "sleep 0.1" no one waits for), 31120 a live sleep, 31121 the JVM with 16
// threads, three of them named sample-worker-N. 31117 is a sleep in a group
// of its own. Expected figures come from awk over the files:
//
//	for p in 31116 31120 31121; do cat $p/stat; echo; done | awk '{rss+=$24;
//	    u+=$14+$16; s+=$15+$17; th+=$20} END{print rss, u, s, th}'
//	    -> 18915 pages, 48 and 4 ticks, 18 threads
//	for p in 31116 31120 31121; do cat $p/task/*/status; done | awk '
//	    /^voluntary_ctxt_switches/{v+=$2} /^nonvoluntary_ctxt_switches/{n+=$2}
//	    END{print v, n}'
//	    -> 590 113  (the JVM's own status says 2 and 0: its main thread only)
func fixtureFS(t testing.TB) FS {
	t.Helper()
	pfs, err := NewFS("testdata/fixtures/proc")
	if err != nil {
		t.Fatal(err)
	}
	return pfs
}

func TestGroupPIDsFixture(t *testing.T) {
	pfs := fixtureFS(t)
	for _, tt := range []struct {
		pgid int
		want []int
	}{
		{31116, []int{31116, 31120, 31121}}, // the zombie 31119 is left out
		{31117, []int{31117}},
		{4242, nil},
	} {
		got, err := GroupPIDs(pfs, tt.pgid)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("GroupPIDs(%d) = %v, want %v", tt.pgid, got, tt.want)
		}
	}
}

func TestTakeFixture(t *testing.T) {
	pfs := fixtureFS(t)
	s, err := Take(pfs, 31116, regexp.MustCompile(`^sample-worker-`))
	if err != nil {
		t.Fatal(err)
	}
	want := Sample{
		Time:                    s.Time,
		RSSBytes:                18915 * int64(os.Getpagesize()),
		CPUUserSeconds:          0.48,
		CPUSysSeconds:           0.04,
		Threads:                 18,
		MatchedThreads:          3,
		VoluntaryCtxSwitches:    590,
		NonvoluntaryCtxSwitches: 113,
		PIDs:                    3,
	}
	if math.Abs(s.CPUUserSeconds-want.CPUUserSeconds) < 1e-9 && math.Abs(s.CPUSysSeconds-want.CPUSysSeconds) < 1e-9 {
		s.CPUUserSeconds, s.CPUSysSeconds = want.CPUUserSeconds, want.CPUSysSeconds
	}
	if s != want {
		t.Errorf("Take:\n got %+v\nwant %+v", s, want)
	}
	if s.Time.IsZero() {
		t.Error("sample has no time")
	}

	s, err = Take(pfs, 31116, nil)
	if err != nil || s.MatchedThreads != -1 {
		t.Errorf("Take without a pattern: MatchedThreads %d, err %v; want -1, nil", s.MatchedThreads, err)
	}
	if _, err := Take(pfs, 4242, nil); !errors.Is(err, ErrGroupGone) {
		t.Errorf("Take of an empty group: err %v, want ErrGroupGone", err)
	}
}

func TestThreadNamesFixture(t *testing.T) {
	got, err := ThreadNames(fixtureFS(t), 31121)
	if err != nil {
		t.Fatal(err)
	}
	// for t in $(ls 31121/task | sort -n); do cat 31121/task/$t/comm; done
	want := []string{"java", "java", "VM Thread", "Reference Handl", "Finalizer", "Signal Dispatch",
		"Service Thread", "Monitor Deflati", "C1 CompilerThre", "Sweeper thread", "Common-Cleaner",
		"Notification Th", "VM Periodic Tas", "sample-worker-1", "sample-worker-2", "sample-worker-3"}
	if !slices.Equal(got, want) {
		t.Errorf("ThreadNames = %q\nwant %q", got, want)
	}
	if n := CountMatching(got, regexp.MustCompile(`^sample-worker-`)); n != 3 {
		t.Errorf("CountMatching = %d, want 3", n)
	}
	if _, err := ThreadNames(fixtureFS(t), 4242); err == nil {
		t.Error("ThreadNames of a missing pid: no error")
	}
}

func TestAffinityFixture(t *testing.T) {
	got, err := Affinity(fixtureFS(t), 31121)
	if err != nil {
		t.Fatal(err)
	}
	// grep -h Cpus_allowed_list 31121/task/*/status | sort | uniq -c -> 16 "0-1"
	if len(got) != 16 {
		t.Errorf("Affinity has %d threads, want 16", len(got))
	}
	for tid, cpus := range got {
		if !cpus.Equal(cpuset.Set{0, 1}) {
			t.Errorf("thread %d: Cpus_allowed_list %s, want 0-1", tid, cpus)
		}
	}
}

func TestCountMatching(t *testing.T) {
	names := []string{"reactor-http-epoll-1", "reactor-http-epoll-2", "main", ""}
	for _, tt := range []struct {
		re   *regexp.Regexp
		want int
	}{
		{regexp.MustCompile(`^reactor-http-epoll-`), 2},
		{regexp.MustCompile(`^$`), 1},
		{regexp.MustCompile(`nothing`), 0},
		{nil, -1},
	} {
		if got := CountMatching(names, tt.re); got != tt.want {
			t.Errorf("CountMatching(%v) = %d, want %d", tt.re, got, tt.want)
		}
	}
	if got := CountMatching(nil, regexp.MustCompile(`.`)); got != 0 {
		t.Errorf("CountMatching(nil names) = %d", got)
	}
}

// TestVanished builds a /proc tree in which a listed process has no files
// left and a thread directory is empty, as when they exit between the
// directory listing and the read: both are skipped, not errors.
func TestVanished(t *testing.T) {
	root := filepath.Join(t.TempDir(), "proc")
	copyFile := func(from, to string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("testdata/fixtures/proc", from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, to)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, to), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("31120/stat", "31120/stat")
	copyFile("31120/status", "31120/status")
	copyFile("31120/task/31120/comm", "31120/task/31120/comm")
	copyFile("31120/task/31120/status", "31120/task/31120/status")
	for _, dir := range []string{"31120/task/31999", "31998"} { // gone thread, gone process
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pfs, err := NewFS(root)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Take(pfs, 31116, regexp.MustCompile(`sleep`))
	if err != nil {
		t.Fatal(err)
	}
	if s.PIDs != 1 || s.MatchedThreads != 1 || s.Threads != 1 {
		t.Errorf("got %+v, want one process with one (matching) thread", s)
	}
	var empty Sample
	r := newReader(pfs, false)
	if ok, err := r.addProc(&empty, 31998, 31116, nil); ok || err != nil {
		t.Errorf("addProc of a gone process = %v, %v; want false, nil", ok, err)
	}
	if ok, err := r.addProc(&empty, 31997, 31116, nil); ok || err != nil {
		t.Errorf("addProc of a missing pid = %v, %v; want false, nil", ok, err)
	}
}
