package runner

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"yardstick/pipeline"
)

// A round after which no cell of the batch was measured (every start
// failed) decides nothing: the rounds go on, and at the last one the
// message says that no comparison could be made, not that all were
// decided.
func TestDecideRoundWithoutComparisons(t *testing.T) {
	p := &pipeline.Plan{Experiment: "e", Batches: []pipeline.Batch{{
		Name: "main", Repeats: 4, RepeatsMin: 2, Baseline: "a",
		Variants: []pipeline.Variant{{Label: "a"}, {Label: "b"}},
	}}}
	for r := 1; r <= 4; r++ {
		for _, v := range []string{"a", "b"} {
			p.Cells = append(p.Cells, pipeline.Cell{
				ID: fmt.Sprintf("%012x", 16*r+len(v)+int(v[0])), Batch: "main", Target: v, Variant: v, Repeat: r,
				Name: "main/" + v + "/c1/r" + string(rune('0'+r)),
			})
		}
	}
	rd, err := pipeline.CreateRunDir(t.TempDir(), "e", "run1")
	if err != nil {
		t.Fatal(err)
	}
	if err := rd.WritePlan(p); err != nil {
		t.Fatal(err)
	}
	b := &p.Batches[0]
	var st pipeline.BatchRounds
	st.Min, st.Max = b.RepeatsMin, b.Repeats
	for r := 1; r <= 4; r++ {
		var w bytes.Buffer
		if err := decideRound(rd, p, b, &st, r, 4, &w); err != nil {
			t.Fatal(err)
		}
		out := w.String()
		if strings.Contains(out, "decided") {
			t.Errorf("round %d: %q claims a decision on no comparison", r, out)
		}
		if r < 4 && (st.Stopped != "" || !strings.Contains(out, "no comparison of throughput and p99 yet")) {
			t.Errorf("round %d: stopped %q, said %q; want the next round", r, st.Stopped, out)
		}
		if r == 4 && (st.Stopped != pipeline.RoundsMax || !strings.Contains(out, "no comparison of throughput and p99 after 4 rounds (max)")) {
			t.Errorf("last round: stopped %q, said %q", st.Stopped, out)
		}
		if strings.Contains(out, "busy") {
			t.Errorf("round %d: no cell measured, yet the machine is called busy: %q", r, out)
		}
	}
}
