package decide

import (
	"fmt"
	"slices"
	"strings"

	"yardstick/datasets"
	"yardstick/pipeline"
	"yardstick/stats"
)

// Busy says, in one sentence, that the cells rows were measured on a busy
// machine (which makes a comparison between two runs undecided, Unfair): the median and the largest share of the target's CPUs
// (others_cpu_share) and of the load generator's
// (loadgen_others_cpu_share) that other work took in the measured cells'
// kept windows, when either median reaches pipeline.BusyShare; ""
// otherwise (or when no cell measured it).
func Busy(rows []datasets.Cell) string {
	var parts []string
	n, busy := 0, false
	for _, role := range []struct {
		name string
		get  func(*datasets.Cell) *float64
	}{
		{"the target's CPUs", func(c *datasets.Cell) *float64 { return c.OthersCPUShare }},
		{"the load generator's", func(c *datasets.Cell) *float64 { return c.LoadgenOthersCPUShare }},
	} {
		var shares []float64
		for i := range rows {
			if s := role.get(&rows[i]); s != nil && datasets.Measured(&rows[i]) {
				shares = append(shares, *s)
			}
		}
		if len(shares) == 0 {
			continue
		}
		med := stats.Median(shares)
		n, busy = max(n, len(shares)), busy || med >= pipeline.BusyShare
		parts = append(parts, fmt.Sprintf("a median %.0f%% (up to %.0f%%) of %s", 100*med, 100*slices.Max(shares), role.name))
	}
	if !busy {
		return ""
	}
	return fmt.Sprintf("the machine was busy: other work took %s during %d kept window(s) (cells.others_cpu_share, loadgen_others_cpu_share); "+
		"windows on a busy machine are seldom steady and their intervals wide: run on a quiet machine for decisions", strings.Join(parts, " and "), n)
}
