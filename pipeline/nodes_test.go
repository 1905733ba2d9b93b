package pipeline

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
)

func TestBatchNodesRoundTrip(t *testing.T) {
	rd := &RunDir{Root: t.TempDir()}
	if _, err := rd.ReadBatchNodes("main"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no record yet: err = %v, want not exist", err)
	}
	for _, n := range []string{"n1", "n2"} {
		if err := rd.AppendNodeRun("main", NodeRun{Node: n, Engine: "e", Job: "7"}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := rd.ReadBatchNodes("main")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Runs) != 2 || got.Runs[0].Node != "n1" || got.Runs[1].Node != "n2" {
		t.Fatalf("runs %+v", got.Runs)
	}
	all, err := rd.ReadAllNodes(&Plan{Batches: []Batch{{Name: "main"}, {Name: "other"}}})
	if err != nil || len(all) != 1 || all["main"] == nil {
		t.Fatalf("ReadAllNodes = %v, %v", all, err)
	}
	// Another batch's record under this name is refused, and so is a
	// name that is not a plain name.
	if err := WriteJSONAtomic(rd.NodesPath("other"), got); err != nil {
		t.Fatal(err)
	}
	if _, err := rd.ReadBatchNodes("other"); err == nil || !strings.Contains(err.Error(), `the record of batch "main"`) {
		t.Errorf("another batch's record: err = %v", err)
	}
	if _, err := rd.ReadBatchNodes("../x"); err == nil {
		t.Error("a path as batch name was accepted")
	}
}

// TestLockBatch: batches of one run lock side by side; one batch twice,
// or the whole run while a batch runs, is refused.
func TestLockBatch(t *testing.T) {
	rd := &RunDir{Root: t.TempDir()}
	ua, err := rd.LockBatch("a")
	if err != nil {
		t.Fatal(err)
	}
	ub, err := rd.LockBatch("b")
	if err != nil {
		t.Fatalf("a second batch: %v", err)
	}
	if _, err := rd.LockBatch("a"); err == nil || !strings.Contains(err.Error(), "batch a of") {
		t.Errorf("batch a twice: err = %v", err)
	}
	if _, err := rd.Lock(); err == nil {
		t.Error("the whole run locked while batches run")
	}
	ua()
	ub()
	unlock, err := rd.Lock()
	if err != nil {
		t.Fatalf("whole run after the batches: %v", err)
	}
	if _, err := rd.LockBatch("a"); err == nil {
		t.Error("a batch locked while the whole run runs")
	}
	unlock()
	if _, err := os.Stat(rd.Path(".lock-batch-a")); err != nil {
		t.Error(err)
	}
}
