package pipeline

import (
	"math"
	"testing"

	"yardstick/pipeline/cpuset"
)

// Others' share is what the target did not use of its CPUs' busy time,
// plus steal, over the CPUs' time in the window; the target's own time
// beyond the busy time (the two are read at slightly different moments)
// does not make it negative.
func TestOthersShare(t *testing.T) {
	for _, c := range []struct {
		o    *Others
		want float64
	}{
		{nil, 0},
		{&Others{CPUs: cpuset.Set{0}, BusyS: 3, OwnS: 1.5, WindowS: 3}, 0.5},
		{&Others{CPUs: cpuset.Set{0, 1}, BusyS: 3, OwnS: 2, StealS: 1, WindowS: 2}, 0.5},
		{&Others{CPUs: cpuset.Set{0}, BusyS: 1, OwnS: 1.1, WindowS: 2}, 0},
		{&Others{CPUs: cpuset.Set{0}, BusyS: 1, WindowS: 0}, 0},
	} {
		if got := c.o.Share(); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%+v: share %v, want %v", c.o, got, c.want)
		}
	}
}
