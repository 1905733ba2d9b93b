package datasets

import (
	"strings"
	"testing"

	"yardstick/pipeline"
)

// A batch run in rounds is compared paired by round: a machine that runs
// at half speed in some rounds slows both starts of those rounds, and the
// pairs see through it where the unpaired comparison cannot; cells of
// another order are compared unpaired, and the comparisons table's rounds
// column says which.
func TestCompareBatchByRound(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	yes := true
	conc := int64(8)
	var cells []*Cell
	speeds := []float64{1, 0.5, 1, 0.5, 1, 0.5}
	for r, speed := range speeds {
		for _, v := range []struct {
			name string
			rps  float64
		}{{"base", 10000}, {"slow", 8000}} {
			// each start off by up to ±1.5%, the same in both variants' pattern
			jitter := 1 + 0.015*float64((r*7+len(v.name))%3-1)
			cells = append(cells, &Cell{Batch: "main", Variant: v.name, Repeat: int64(r + 1), Status: pipeline.StatusOK, Mode: "closed",
				Concurrency: &conc, RPS: f(v.rps * speed * jitter), NoiseRPS: f(0.02), KeptSteady: &yes, P99KeptSteady: &yes})
		}
	}
	var paired, unpaired Comparison
	for _, c := range CompareBatch("main", cells, "base", 0.05, true) {
		if c.Metric == "throughput" {
			paired = c
		}
	}
	for _, c := range CompareBatch("main", cells, "base", 0.05, false) {
		if c.Metric == "throughput" {
			unpaired = c
		}
	}
	if paired.Rounds == nil || *paired.Rounds != 6 || paired.Verdict != "worse" || !strings.Contains(paired.Reason, "(6 rounds, paired)") {
		t.Errorf("paired by round: %s (rounds %v)", paired, paired.Rounds)
	}
	if unpaired.Rounds != nil || unpaired.Verdict != "undecided" {
		t.Errorf("unpaired, half the rounds at half speed: %s", unpaired)
	}
	b := &pipeline.Batch{Order: pipeline.OrderRounds}
	if !b.PairedByRound() || (&pipeline.Batch{Order: "random"}).PairedByRound() || (*pipeline.Batch)(nil).PairedByRound() {
		t.Error("PairedByRound: rounds pairs, random without adaptive repeats and no batch do not")
	}
	if !(&pipeline.Batch{Order: "random", Repeats: 8, RepeatsMin: 3}).PairedByRound() {
		t.Error("random with adaptive repeats runs round by round: paired")
	}
}
