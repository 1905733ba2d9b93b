package threadpin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAll pins a child process (this test binary again, so the test
// process keeps its CPUs) that has started many threads, and reads back
// the mask of every one of its threads from /proc.
func TestAll(t *testing.T) {
	var mine unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mine); err != nil {
		t.Fatal(err)
	}
	cpu := -1
	for c := 0; c < len(mine)*64; c++ {
		if mine.IsSet(c) {
			cpu = c
			break
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestAllChild$")
	cmd.Env = append(os.Environ(), "THREADPIN_CHILD_CPU="+fmt.Sprint(cpu))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "pinned-threads:") {
		t.Fatalf("child did not report its threads:\n%s", out)
	}
}

// TestAllChild is TestAll's child: it starts threads, pins the process
// and checks every thread's Cpus_allowed_list.
func TestAllChild(t *testing.T) {
	want := os.Getenv("THREADPIN_CHILD_CPU")
	if want == "" {
		t.Skip("runs as TestAll's child only")
	}
	var wg sync.WaitGroup
	release := make(chan struct{})
	started := make(chan struct{})
	for range 8 { // threads held by locked goroutines
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			started <- struct{}{}
			<-release
		}()
	}
	for range 8 {
		<-started
	}
	var cpu int
	fmt.Sscan(want, &cpu)
	defer wg.Wait()
	defer close(release)
	if err := All([]int{cpu}); err != nil {
		t.Fatal(err)
	}
	dirs, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil || len(dirs) < 9 {
		t.Fatalf("threads: %v %v", dirs, err)
	}
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue // exited
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok && strings.TrimSpace(v) != want {
				t.Errorf("%s: Cpus_allowed_list %q, want %q", d, strings.TrimSpace(v), want)
			}
		}
	}
	fmt.Println("pinned-threads:", len(dirs))
}

func TestAllBadSets(t *testing.T) {
	for _, cpus := range [][]int{nil, {-1}, {1 << 20}} {
		if err := All(cpus); err == nil {
			t.Errorf("All(%v) = nil, want an error", cpus)
		}
	}
}

// TestWalkReportsUnsettled: a thread list that grows on every pass is
// reported, not taken as pinned.
func TestWalkReportsUnsettled(t *testing.T) {
	next := 0
	growing := func() ([]int, error) {
		next++
		tids := make([]int, next)
		for i := range tids {
			tids[i] = i + 1
		}
		return tids, nil
	}
	pinned := 0
	err := walk(growing, func(int) error { pinned++; return nil })
	if !errors.Is(err, ErrUnsettled) {
		t.Fatalf("walk = %v, want ErrUnsettled", err)
	}
	if pinned != MaxPasses {
		t.Errorf("pinned %d threads, want %d", pinned, MaxPasses)
	}
}

// TestWalkErrors: an exited thread is skipped, any other failure stops
// the walk with its error.
func TestWalkErrors(t *testing.T) {
	tids := func() ([]int, error) { return []int{1, 2, 3}, nil }
	if err := walk(tids, func(tid int) error {
		if tid == 2 {
			return unix.ESRCH
		}
		return nil
	}); err != nil {
		t.Errorf("an exited thread: walk = %v, want nil", err)
	}
	if err := walk(tids, func(int) error { return unix.EPERM }); !errors.Is(err, unix.EPERM) {
		t.Errorf("walk = %v, want EPERM", err)
	}
	if err := walk(func() ([]int, error) { return nil, os.ErrNotExist }, nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("walk = %v, want the listing's error", err)
	}
}
