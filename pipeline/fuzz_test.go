package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadCheckpoint: whatever bytes a checkpoint.json holds, reading it
// gives a checkpoint that passed every check, or an error; never a panic.
func FuzzReadCheckpoint(f *testing.F) {
	const id = "0123456789ab"
	good, err := json.Marshal(goodCheckpoint(id))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(`{"version":1,"cell_id":"0123456789ab","status":"ok","seconds":[{"second":-3,"requests":-1}]}`))
	f.Add([]byte(`{"version":2,"cell_id":"0123456789ab","status":"ok","load":{"rps":1e308}}`))
	f.Add([]byte(`{"version":2,"cell_id":"0123456789ab","status":"failed","intervals":[{"duration_us":-1}]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := &RunDir{Root: t.TempDir()}
		if err := os.MkdirAll(d.CellDir(id), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d.CellDir(id), "checkpoint.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		cp, err := d.ReadCheckpoint(id)
		if err != nil {
			return
		}
		if cp.CellID != id || cp.Version != CheckpointVersion || CheckNumbers(cp, false) != nil {
			t.Fatalf("accepted a checkpoint that fails its checks: %+v", cp)
		}
	})
}

// FuzzReadPlan: whatever bytes plan.json holds, reading it gives a plan
// whose names, ids and hash check, or an error; never a panic.
func FuzzReadPlan(f *testing.F) {
	good, err := json.Marshal(testPlan())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/3])
	f.Add([]byte(`{"version":1,"experiment":"e","batches":[{"name":"b"}],"cells":[{"id":"0123456789ab","batch":"b"}]}`))
	f.Add([]byte(`{"version":1,"experiment":"../x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := &RunDir{Root: t.TempDir()}
		if err := os.WriteFile(d.Path("plan.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := d.ReadPlan()
		if err != nil {
			return
		}
		if p.Check() != nil || p.Verify() != nil {
			t.Fatal("accepted a plan that fails its checks")
		}
	})
}
