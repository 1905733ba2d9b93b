package report

import (
	"strings"
	"testing"

	"yardstick/datasets"
	"yardstick/pipeline"
	"yardstick/stages/report/analysis"
)

// TestBusyNote: a run whose kept windows had other work on the target's
// CPUs says so among the first notes, before any number; a quiet one
// does not.
func TestBusyNote(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	i := func(v int64) *int64 { return &v }
	cell := func(id string, share float64) datasets.Cell {
		return datasets.Cell{Batch: "main", CellID: id, CellName: "main/go/c1/r" + id, Target: "go", Variant: "go", Kind: "go",
			Mode: "closed", Concurrency: i(1), Repeat: 1, Status: pipeline.StatusOK, Requests: i(1000), RPS: f(250), OthersCPUShare: f(share)}
	}
	tb := &analysis.Tables{Meta: datasets.Meta{Experiment: "busy", RunID: "r"}, Cells: []datasets.Cell{cell("1", 0.4), cell("2", 0.3)}}
	d, _ := build(tb, "")
	md := string(d.markdown())
	note := strings.Index(md, "The machine was busy: other work took a median 35% (up to 40%)")
	if note < 0 || note > strings.Index(md, "## Batch ") {
		t.Errorf("the busy note is missing or comes after the batch:\n%s", md)
	}
	tb.Cells = []datasets.Cell{cell("1", 0.01), cell("2", 0.02)}
	d, _ = build(tb, "")
	if strings.Contains(string(d.markdown()), "machine was busy") {
		t.Error("a quiet run is called busy")
	}
}
