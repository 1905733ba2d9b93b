package fairness

import (
	"strings"
	"testing"

	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
)

// A declared share records one placement row per share: warned (passed,
// detail starting "warning: ") when the target keeps its CPUs, failed
// when the target shares them, which makes every cell of the batch
// unfair. Without a share there is no placement row.
func TestPlacement(t *testing.T) {
	for _, tc := range []struct {
		name      string
		placement pipeline.Placement
		rows      int
		pass      bool
		shared    float64
		detail    string
	}{
		{name: "disjoint", placement: pipeline.Placement{Target: cpuset.Set{0}, Loadgen: cpuset.Set{1}}},
		{name: "services beside loadgen", placement: pipeline.Placement{Target: cpuset.Set{0}, Services: cpuset.Set{1}, Loadgen: cpuset.Set{1},
			Share: []pipeline.Share{{Roles: [2]string{"services", "loadgen"}, Reason: "2 CPUs"}}},
			rows: 1, pass: true, shared: 1, detail: "warning: services and loadgen share CPU 1 (declared: 2 CPUs): the target kept CPU 0 to itself"},
		{name: "target beside loadgen", placement: pipeline.Placement{Target: cpuset.Set{0, 1}, Loadgen: cpuset.Set{1},
			Share: []pipeline.Share{{Roles: [2]string{"target", "loadgen"}, Reason: "one CPU short"}}},
			rows: 1, pass: false, shared: 1, detail: "target and loadgen share CPU 1 (declared: one CPU short): the target competed for its own CPUs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := plan2()
			p.Batches[0].Placement = tc.placement
			in := Input{Plan: p, Checkpoints: map[string]*pipeline.Checkpoint{"a": ok(1000, 32000, 32000, t), "b": ok(1000, 32000, 32000, t)}}
			rows := Check(in)
			var got []pipeline.FairnessRow
			for _, r := range rows {
				if r.Check == "placement" {
					got = append(got, r)
				}
			}
			if len(got) != tc.rows {
				t.Fatalf("%d placement rows, want %d: %+v", len(got), tc.rows, got)
			}
			if tc.rows == 0 {
				return
			}
			r := got[0]
			if r.Pass != tc.pass || r.Scope != "batch" || *r.Measured != tc.shared || *r.Expected != 0 || !strings.HasPrefix(*r.Detail, tc.detail) {
				t.Errorf("row %+v (detail %q), want pass %v, %v shared CPUs, detail starting %q", r, *r.Detail, tc.pass, tc.shared, tc.detail)
			}
			if IsWarning(r) != tc.pass {
				t.Errorf("IsWarning = %v, want %v", IsWarning(r), tc.pass)
			}
			unfair := pipeline.UnfairCells(p, rows)
			for _, id := range []string{"a", "b"} {
				marked := strings.Contains(strings.Join(unfair[id], ","), "placement")
				if marked == tc.pass {
					t.Errorf("cell %s unfair for placement: %v, want %v", id, marked, !tc.pass)
				}
			}
		})
	}
}
