package datasets

import (
	"fmt"
	"slices"

	"yardstick/pipeline"
	"yardstick/stats"
)

// Busy says, in one sentence, that the cells rows were measured on a busy
// machine: the median and the largest others_cpu_share of the measured
// cells, when the median reaches pipeline.BusyShare; "" otherwise (or when no cell
// measured it).
func Busy(rows []Cell) string {
	var shares []float64
	for i := range rows {
		if s := rows[i].OthersCPUShare; s != nil && Measured(&rows[i]) {
			shares = append(shares, *s)
		}
	}
	if len(shares) == 0 {
		return ""
	}
	med := stats.Median(shares)
	if med < pipeline.BusyShare {
		return ""
	}
	return fmt.Sprintf("the machine was busy: other work took a median %.0f%% (up to %.0f%%) of the target's CPUs during %d kept window(s) (cells.others_cpu_share); "+
		"windows on a busy machine are seldom steady and their intervals wide: run on a quiet machine for decisions", 100*med, 100*slices.Max(shares), len(shares))
}
