package decide

import (
	"strings"
	"testing"

	"yardstick/datasets"
	"yardstick/pipeline"
)

// Busy speaks when the median measured cell's others share reaches a
// tenth, and only then; cells that were not measured do not count.
func TestBusy(t *testing.T) {
	share := func(st string, v float64) datasets.Cell { return datasets.Cell{Status: st, OthersCPUShare: &v} }
	ok := pipeline.StatusOK
	if got := Busy([]datasets.Cell{share(ok, 0.01), share(ok, 0.3), share(ok, 0.02)}); got != "" {
		t.Errorf("median 0.02: %q", got)
	}
	got := Busy([]datasets.Cell{share(ok, 0.2), share(ok, 0.4), share(ok, 0.05), share(pipeline.StatusFailed, 0.9), {Status: ok}})
	if !strings.Contains(got, "a median 20% (up to 40%) of the target's CPUs during 3 kept window(s)") {
		t.Errorf("busy: %q", got)
	}
	if got := Busy(nil); got != "" {
		t.Errorf("no cells: %q", got)
	}
}

// The load generator's CPUs count as much: other work there delays the
// client, which the target's latency then shows.
func TestBusyLoadgen(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	rows := []datasets.Cell{
		{Status: pipeline.StatusOK, OthersCPUShare: f(0.01), LoadgenOthersCPUShare: f(0.3)},
		{Status: pipeline.StatusOK, OthersCPUShare: f(0.02), LoadgenOthersCPUShare: f(0.5)},
	}
	got := Busy(rows)
	if !strings.Contains(got, "a median 2% (up to 2%) of the target's CPUs and a median 40% (up to 50%) of the load generator's during 2 kept window(s)") {
		t.Errorf("busy on the load generator's CPUs: %q", got)
	}
}
