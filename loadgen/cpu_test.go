package loadgen

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// threadCPUs reads Cpus_allowed_list of every thread of this process.
func threadCPUs() (map[string]string, error) {
	dirs, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil {
		return nil, err
	}
	got := map[string]string{}
	for _, d := range dirs {
		f, err := os.Open(d)
		if err != nil {
			continue // the thread exited
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "Cpus_allowed_list:"); ok {
				got[d] = strings.TrimSpace(v)
			}
		}
		f.Close()
	}
	return got, nil
}

// TestPin pins a child process (this test binary again, so the test
// process itself keeps its CPUs) and reads the mask of each of its threads
// back from /proc, including threads started after the pin.
func TestPin(t *testing.T) {
	t.Parallel()
	if os.Getenv("YARDSTICK_PIN_CHILD") == "1" {
		t.Skip("child")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPinChild$", "-test.v")
	cmd.Env = append(os.Environ(), "YARDSTICK_PIN_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var lines []string
	for l := range strings.SplitSeq(string(out), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "thread ") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	if len(lines) < 2 {
		t.Fatalf("child reported %d threads:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if !strings.HasSuffix(l, " 0") {
			t.Errorf("not pinned to CPU 0: %s", l)
		}
	}
}

func TestPinChild(t *testing.T) {
	if os.Getenv("YARDSTICK_PIN_CHILD") != "1" {
		t.Skip("runs as TestPin's child only")
	}
	if err := Pin([]int{0}); err != nil {
		t.Fatal(err)
	}
	// start threads after the pin: they must inherit the mask
	// (each goroutine holds its own thread from LockOSThread until the
	// release: four threads at least once all four have started)
	var wg, started sync.WaitGroup
	release := make(chan struct{})
	for range 4 {
		wg.Add(1)
		started.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			started.Done()
			<-release
		}()
	}
	started.Wait()
	got, err := threadCPUs()
	close(release)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	for d, cpus := range got {
		fmt.Printf("thread %s %s\n", filepath.Base(filepath.Dir(d)), cpus)
	}
}
