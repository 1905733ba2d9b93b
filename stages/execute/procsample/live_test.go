package procsample

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Environment of the helper process (the test binary run again).
const (
	helperEnv    = "PROCSAMPLE_HELPER"         // "work" (spins) or "idle" to run as a helper
	threadsEnv   = "PROCSAMPLE_HELPER_THREADS" // OS threads to hold
	helperMemMiB = 64                          // touched on "alloc"
)

// keep holds the helper's allocation so that it stays resident.
var keep []byte

// TestHelperProcess is not a test: run with PROCSAMPLE_HELPER=work or idle it
// is the target the live tests sample. It holds PROCSAMPLE_HELPER_THREADS OS
// threads (goroutines locked to their threads and parked), with "work" spins
// one more goroutine to burn CPU, prints "ready", and then on each line of
// stdin: "alloc" touches 64 MiB and prints "touched".
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode != "work" && mode != "idle" {
		return // not a helper: nothing to test
	}
	n, _ := strconv.Atoi(os.Getenv(threadsEnv))
	started := make(chan struct{})
	for range n {
		go func() {
			runtime.LockOSThread()
			started <- struct{}{}
			select {}
		}()
	}
	for range n {
		<-started
	}
	go func() {
		if mode == "idle" {
			return
		}
		x := 0
		for {
			x++
		}
	}()
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() == "alloc" {
			keep = make([]byte, helperMemMiB<<20)
			for i := 0; i < len(keep); i += 4096 {
				keep[i] = 1
			}
			fmt.Println("touched")
		}
	}
	select {}
}

// child is a process started in a process group of its own.
type child struct {
	cmd   *exec.Cmd
	pgid  int
	in    io.Writer
	lines chan string
}

// start runs argv in a new process group, kills the group and reaps the
// child on cleanup, and waits for the child to print "ready" (unless
// waitReady is false).
func start(t testing.TB, env []string, waitReady bool, argv ...string) *child {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %q: %v", argv, err)
	}
	c := &child{cmd: cmd, pgid: cmd.Process.Pid, in: in, lines: make(chan string, 16)}
	t.Cleanup(func() {
		_ = syscall.Kill(-c.pgid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	if waitReady {
		c.expect(t, "ready")
	}
	return c
}

func (c *child) expect(t testing.TB, want string) {
	t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok || line != want {
			t.Fatalf("child printed %q (open %v), want %q", line, ok, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("child did not print %q within 20 s", want)
	}
}

func startHelper(t testing.TB, threads int, prefix ...string) *child {
	t.Helper()
	return startHelperMode(t, "work", threads, prefix...)
}

func startHelperMode(t testing.TB, mode string, threads int, prefix ...string) *child {
	t.Helper()
	argv := append(prefix, os.Args[0], "-test.run=^TestHelperProcess$")
	return start(t, []string{helperEnv + "=" + mode, threadsEnv + "=" + strconv.Itoa(threads)}, true, argv...)
}

func startJava(t testing.TB) *child {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatalf("java is needed for the JVM thread-name test and is not on PATH (CI installs OpenJDK 17: apt-get install openjdk-17-jdk-headless): %v", err)
	}
	return start(t, nil, true, java, "-Xmx32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-XX:CICompilerCount=1", "testdata/Named.java")
}

func realFS(t testing.TB) FS {
	t.Helper()
	pfs, err := DefaultFS()
	if err != nil {
		t.Fatal(err)
	}
	return pfs
}

func take(t testing.TB, pfs FS, pgid int, re *regexp.Regexp) Sample {
	t.Helper()
	s, err := Take(pfs, pgid, re)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLiveGoProcess(t *testing.T) {
	pfs := realFS(t)
	const threads = 6
	c := startHelper(t, threads)

	before := take(t, pfs, c.pgid, regexp.MustCompile(`.`))
	if before.PIDs != 1 || before.Threads < threads+1 {
		t.Errorf("PIDs %d, Threads %d; want 1 and at least %d", before.PIDs, before.Threads, threads+1)
	}
	// Go does not name its threads: all carry the binary's name, so "."
	// matches every one.
	if before.MatchedThreads != before.Threads {
		t.Errorf("MatchedThreads %d of %d threads with pattern \".\"", before.MatchedThreads, before.Threads)
	}
	if before.RSSBytes <= 0 || before.VoluntaryCtxSwitches <= 0 {
		t.Errorf("implausible sample %+v", before)
	}

	// One goroutine spins: CPU time must grow. How fast depends on what else
	// runs on the machine, so wait for 0.2 s of it rather than for a share
	// of a fixed wall time.
	var spun Sample
	var cpu, wall float64
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		spun = take(t, pfs, c.pgid, nil)
		cpu = (spun.CPUUserSeconds + spun.CPUSysSeconds) - (before.CPUUserSeconds + before.CPUSysSeconds)
		wall = spun.Time.Sub(before.Time).Seconds()
		if cpu >= 0.2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("CPU time grew only %.2f s in %.1f s of wall time while a goroutine spins", cpu, wall)
		}
	}
	if spun.CPUUserSeconds <= before.CPUUserSeconds {
		t.Errorf("user CPU did not grow: %.2f -> %.2f", before.CPUUserSeconds, spun.CPUUserSeconds)
	}

	fmt.Fprintln(c.in, "alloc")
	c.expect(t, "touched")
	after := take(t, pfs, c.pgid, nil)
	grew := float64(after.RSSBytes-spun.RSSBytes) / (1 << 20)
	upper := float64(helperMemMiB + 16)
	if raceEnabled {
		upper = 3 * helperMemMiB // shadow memory of the race detector
	}
	if grew < helperMemMiB-4 || grew > upper {
		t.Errorf("RSS grew %.1f MiB after touching %d MiB", grew, helperMemMiB)
	}
	t.Logf("threads %d, cpu +%.2f s in %.2f s, rss %.1f -> %.1f MiB",
		before.Threads, cpu, wall, float64(spun.RSSBytes)/(1<<20), float64(after.RSSBytes)/(1<<20))
}

// TestLiveGroup samples a wrapper shell with two children: the sample sums
// three processes, and one fewer once a child has exited and been reaped.
func TestLiveGroup(t *testing.T) {
	pfs := realFS(t)
	c := start(t, nil, false, "sh", "-c", "sleep 60 & sleep 60 & echo ready; wait")
	c.expect(t, "ready")
	pids := waitPIDs(t, pfs, c.pgid, 3)
	s := take(t, pfs, c.pgid, nil)
	if s.PIDs != 3 || s.Threads != 3 {
		t.Errorf("PIDs %d, Threads %d; want 3 and 3", s.PIDs, s.Threads)
	}
	if err := syscall.Kill(pids[2], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitPIDs(t, pfs, c.pgid, 2)
}

func waitPIDs(t *testing.T, pfs FS, pgid, n int) []int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids, err := GroupPIDs(pfs, pgid)
		if err != nil {
			t.Fatal(err)
		}
		if len(pids) == n {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("group %d has pids %v, want %d of them", pgid, pids, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLiveChurn samples a group whose short-lived children start and exit
// all the time, so that processes vanish between listing and reading: no
// sample may fail.
func TestLiveChurn(t *testing.T) {
	pfs := realFS(t)
	c := start(t, nil, false, "sh", "-c", "echo ready; while :; do /bin/true; done")
	c.expect(t, "ready")
	re := regexp.MustCompile(`true`)
	deadline := time.Now().Add(time.Second)
	n := 0
	for ; time.Now().Before(deadline); n++ {
		if _, err := Take(pfs, c.pgid, re); err != nil {
			t.Fatalf("sample %d: %v", n, err)
		}
	}
	t.Logf("%d samples", n)
}

func TestLiveAffinity(t *testing.T) {
	pfs := realFS(t)
	self, err := Affinity(pfs, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Pin to the first CPU this test may use (CI may restrict the set).
	cpu := strconv.Itoa(self[os.Getpid()][0])
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Fatalf("taskset (util-linux) is needed to start a pinned child: %v", err)
	}
	c := startHelper(t, 3, "taskset", "-c", cpu)
	aff, err := Affinity(pfs, c.pgid)
	if err != nil {
		t.Fatal(err)
	}
	if len(aff) < 4 {
		t.Errorf("Affinity lists %d threads, want at least 4", len(aff))
	}
	for tid, cpus := range aff {
		if cpus.String() != cpu {
			t.Errorf("thread %d: Cpus_allowed_list %s, want %s", tid, cpus, cpu)
		}
	}
}

func TestSampler(t *testing.T) {
	pfs := realFS(t)
	c := startHelper(t, 2)
	const interval = 20 * time.Millisecond
	s := NewSampler(pfs, c.pgid, nil, interval, 16)
	// Sampled until it has 5 samples (at most 10 s): on a busy machine
	// ticks are dropped, and a fixed window may hold too few.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		for len(s.Samples()) < 5 && ctx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	begin := time.Now()
	if err := s.Run(ctx); err != nil {
		t.Fatal(err)
	}
	took := time.Since(begin)
	got := s.Samples()
	if len(got) < 5 || len(got) > int(took/interval)+2 {
		t.Errorf("%d samples in %v at %v: want 5, and no more than the ticks", len(got), took, interval)
	}
	if len(got) > 0 && got[0].Time.Sub(begin) > interval/2 {
		t.Errorf("first sample %v after start, want it at once", got[0].Time.Sub(begin))
	}
	for i := 1; i < len(got); i++ {
		if !got[i].Time.After(got[i-1].Time) || got[i].CPUUserSeconds < got[i-1].CPUUserSeconds {
			t.Errorf("sample %d does not follow sample %d", i, i-1)
		}
	}
}

func TestSamplerGroupGone(t *testing.T) {
	pfs := realFS(t)
	c := startHelper(t, 1)
	s := NewSampler(pfs, c.pgid, nil, 10*time.Millisecond, 8)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() { // kill the group once the sampler has a sample or two
		for len(s.Samples()) < 2 && ctx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
		}
		_ = syscall.Kill(-c.pgid, syscall.SIGKILL)
	}()
	err := s.Run(ctx)
	if !errors.Is(err, ErrGroupGone) {
		t.Fatalf("Run = %v, want ErrGroupGone", err)
	}
	if ctx.Err() != nil {
		t.Error("Run went on until the context ended")
	}
	if n := len(s.Samples()); n < 2 {
		t.Errorf("%d samples before the group went", n)
	}
}

// BenchmarkTake measures one sample of a live process group, the cost the
// sampler adds on the target's machine per interval: an idle Go helper
// holding 8 threads, and an idle JVM with 16. Most of it is GroupPIDs, which
// reads /proc/<pid>/stat of every process on the machine.
func BenchmarkTake(b *testing.B) {
	pfs := realFS(b)
	re := regexp.MustCompile(`^sample-worker-`)
	for _, tt := range []struct {
		name  string
		start func(testing.TB) *child
	}{
		{"go-8-threads", func(tb testing.TB) *child { return startHelperMode(tb, "idle", 8) }},
		{"jvm", startJava},
	} {
		c := tt.start(b)
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Take(pfs, c.pgid, re); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("GroupPIDs", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := GroupPIDs(pfs, os.Getpid()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestSamplerFindsNewMembers: a Sampler reads only the members it knows
// between two looks through /proc, so a process that joins the group
// later must show up within rescanEvery, and one that exits must leave
// the sum at once.
func TestSamplerFindsNewMembers(t *testing.T) {
	pfs := realFS(t)
	c := start(t, nil, true, "sh", "-c", "echo ready; read x; sleep 30 & echo started; wait; read y")
	s := NewSampler(pfs, c.pgid, nil, 20*time.Millisecond, 1024)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	fds := openFDs(t)
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	waitSample := func(what string, ok func(Sample) bool, from int) int {
		t.Helper()
		for deadline := time.Now().Add(rescanEvery + 5*time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			got := s.Samples()
			for i := from; i < len(got); i++ {
				if ok(got[i]) {
					return i
				}
			}
		}
		t.Fatalf("no sample with %s within %s", what, rescanEvery+5*time.Second)
		return 0
	}
	i := waitSample("one process", func(x Sample) bool { return x.PIDs == 1 }, 0)
	fmt.Fprintln(c.in, "go")
	c.expect(t, "started")
	i = waitSample("two processes", func(x Sample) bool { return x.PIDs == 2 }, i+1)
	pids := waitPIDs(t, pfs, c.pgid, 2)
	if err := syscall.Kill(pids[1], syscall.SIGKILL); err != nil { // the sleep: pids are sorted, the shell forked it
		t.Fatal(err)
	}
	waitSample("one process again", func(x Sample) bool { return x.PIDs == 1 }, i+1)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if after := openFDs(t); after != fds {
		t.Errorf("%d files open before the sampler ran, %d after: it must close what it kept open", fds, after)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}
