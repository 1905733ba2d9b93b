package execute

import (
	"testing"

	"yardstick/stages/execute/procsample"
)

// readCPUTimes reads this machine's /proc/stat: every CPU, times that do
// not go backwards between two readings.
func TestReadCPUTimes(t *testing.T) {
	fs, err := procsample.DefaultFS()
	if err != nil {
		t.Fatal(err)
	}
	a := readCPUTimes(fs)
	for range 2_000_000 { // a little CPU time between the readings
	}
	b := readCPUTimes(fs)
	if a == nil || b == nil {
		t.Fatal("/proc/stat unreadable")
	}
	if _, ok := a[0]; !ok {
		t.Fatalf("no CPU 0 in %v", a)
	}
	for cpu, x := range a {
		y := b[cpu]
		if y.User < x.User || y.System < x.System || y.Idle < x.Idle {
			t.Errorf("CPU %d went backwards: %+v then %+v", cpu, x, y)
		}
	}
}
