package pipeline

import (
	"encoding/json"
	"strings"
	"testing"

	"yardstick/pipeline/cpuset"
)

// TestPlacementJSON: a placement is written with each set in its compact
// form, the form plan version 1 wrote for a definition that spelled its
// sets that way ("0-1"): such cells keep their ids. A set spelled "0,1"
// is the same set, so the same cell.
func TestPlacementJSON(t *testing.T) {
	b, err := json.Marshal(Placement{Target: cpuset.Set{0, 1}, Loadgen: cpuset.Set{2}})
	if err != nil || string(b) != `{"target":"0-1","loadgen":"2"}` {
		t.Errorf("placement = %s, %v", b, err)
	}
	spelled := func(list string) string {
		var p Placement
		if err := json.Unmarshal([]byte(`{"target":"`+list+`","loadgen":"2"}`), &p); err != nil {
			t.Fatal(err)
		}
		pl := testPlan()
		pl.Batches[0].Placement = p
		return CellID(pl.Experiment, &pl.Batches[0], &pl.Batches[0].Variants[0], &pl.Cells[0])
	}
	if a, b, c := spelled("0,1"), spelled("0-1"), spelled("1,0"); a != b || b != c {
		t.Errorf("cell ids of one set spelled three ways: %s %s %s", a, b, c)
	}
	if spelled("0-1") == spelled("0") {
		t.Errorf("two sets, one cell id")
	}
}

// TestReadPlanVersion1: a version 1 plan whose sets are written in the
// compact form reads as version 2 (its ids are the ones version 2 gives);
// one that spelled a set otherwise is refused with the spelling and what
// to do, not called tampered with.
func TestReadPlanVersion1(t *testing.T) {
	p := testPlan()
	p.Batches[0].Placement = Placement{Target: cpuset.Set{0, 1}, Loadgen: cpuset.Set{2}}
	for i := range p.Cells {
		p.Cells[i].ID = CellID(p.Experiment, &p.Batches[0], &p.Batches[0].Variants[0], &p.Cells[i])
	}
	p.Hash = PlanHash(p.Cells)
	p.Version = 1
	d := &RunDir{Root: t.TempDir()}
	writeJSON(t, d.Path("plan.json"), p)
	got, err := d.ReadPlan()
	if err != nil {
		t.Fatalf("version 1 plan in the compact form: %v", err)
	}
	if got.Version != PlanVersion || !got.Batches[0].Placement.Target.Equal(cpuset.Set{0, 1}) {
		t.Errorf("read as version %d, placement %+v", got.Version, got.Batches[0].Placement)
	}

	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	odd := strings.Replace(string(raw), `"target":"0-1"`, `"target":"0,1"`, 1)
	if odd == string(raw) {
		t.Fatal("test plan has no target 0-1")
	}
	writeJSON(t, d.Path("plan.json"), json.RawMessage(odd))
	_, err = d.ReadPlan()
	if err == nil || !strings.Contains(err.Error(), `plan version 1, batch main: placement.target "0,1" is written "0-1"`) {
		t.Errorf("version 1 plan with target \"0,1\": %v", err)
	}

	p.Version = 7
	writeJSON(t, d.Path("plan.json"), p)
	if _, err := d.ReadPlan(); err == nil || !strings.Contains(err.Error(), "refused: plan version 7, written by a newer yardstick; this one reads up to version 2") {
		t.Errorf("version 7: %v", err)
	}
}

// TestThreadMasksJSON: masks are an object from CPU list to threads;
// two spellings of one set are one entry, written in the compact form.
func TestThreadMasksJSON(t *testing.T) {
	var m ThreadMasks
	if err := json.Unmarshal([]byte(`{"0,1": 1, "0-1": 3, "2": 2}`), &m); err != nil {
		t.Fatal(err)
	}
	if len(m) != 2 || !m[0].CPUs.Equal(cpuset.Set{0, 1}) || m[0].Threads != 4 || m[1].Threads != 2 {
		t.Errorf("masks = %+v", m)
	}
	b, err := json.Marshal(m)
	if err != nil || string(b) != `{"0-1":4,"2":2}` {
		t.Errorf("marshal = %s, %v", b, err)
	}
	if b, _ := json.Marshal(ThreadMasks(nil)); string(b) != `{}` {
		t.Errorf("no masks = %s", b)
	}
	if err := json.Unmarshal([]byte(`{"1-0": 1}`), &m); err == nil {
		t.Error("a mask that is no CPU list: no error")
	}
}
