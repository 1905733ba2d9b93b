package datasets

import (
	"strings"
	"testing"

	"yardstick/pipeline"
)

// Busy speaks when the median measured cell's others share reaches a
// tenth, and only then; cells that were not measured do not count.
func TestBusy(t *testing.T) {
	share := func(st string, v float64) Cell { return Cell{Status: st, OthersCPUShare: &v} }
	ok := pipeline.StatusOK
	if got := Busy([]Cell{share(ok, 0.01), share(ok, 0.3), share(ok, 0.02)}); got != "" {
		t.Errorf("median 0.02: %q", got)
	}
	got := Busy([]Cell{share(ok, 0.2), share(ok, 0.4), share(ok, 0.05), share(pipeline.StatusFailed, 0.9), {Status: ok}})
	if !strings.Contains(got, "a median 20% (up to 40%) of the target's CPUs during 3 kept window(s)") {
		t.Errorf("busy: %q", got)
	}
	if got := Busy(nil); got != "" {
		t.Errorf("no cells: %q", got)
	}
}
