package pipeline

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCellStatus reads real checkpoints of a run directory: ok, failed,
// none (pending, or not needed by a stopped round), and a tampered one.
func TestCellStatus(t *testing.T) {
	d := &RunDir{Root: t.TempDir()}
	now := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	cells := []Cell{
		{ID: "00000000000a", Name: "main/go/c8/r1", Batch: "main", Repeat: 1},
		{ID: "00000000000b", Name: "main/go/c8/r2", Batch: "main", Repeat: 2},
		{ID: "00000000000c", Name: "main/go/c8/r3", Batch: "main", Repeat: 3},
		{ID: "00000000000d", Name: "main/go/c8/r4", Batch: "main", Repeat: 4},
		{ID: "00000000000e", Name: "main/go/c8/r5", Batch: "main", Repeat: 5},
	}
	for i, st := range []string{StatusOK, StatusFailed} {
		cp := &Checkpoint{Version: CheckpointVersion, CellID: cells[i].ID, CellName: cells[i].Name, Status: st, Started: now, Ended: now.Add(time.Second)}
		if st == StatusFailed {
			cp.Error = "the target exited"
		}
		if err := d.WriteCheckpoint(cp); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(d.CellDir(cells[3].ID), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.CellDir(cells[3].ID), "checkpoint.json"), []byte(`{"version":`), 0o644); err != nil {
		t.Fatal(err)
	}
	rounds := Rounds{"main": {Min: 1, Max: 5, Ran: 4, Stopped: "decided"}}
	var n CellCounts
	want := []string{StatusOK, StatusFailed, StatusPending, StatusPending, StatusNotNeeded}
	for i := range cells {
		st, err := d.CellStatus(&cells[i], rounds)
		if st != want[i] || (err != nil) != (i == 3) {
			t.Errorf("%s: status %q, error %v; want %q", cells[i].Name, st, err, want[i])
		}
		n.Add(st)
	}
	n.Add(StatusUnfair)
	if want := (CellCounts{OK: 1, Unfair: 1, Failed: 1, Pending: 2, NotNeeded: 1}); n != want {
		t.Errorf("counts %+v, want %+v", n, want)
	}
	if n.Finished() != 3 || n.Planned() != 5 || n.Plus(n).Pending != 4 {
		t.Errorf("finished %d, planned %d, doubled pending %d", n.Finished(), n.Planned(), n.Plus(n).Pending)
	}
}
