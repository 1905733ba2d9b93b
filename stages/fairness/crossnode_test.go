package fairness

import (
	"strings"
	"testing"

	"yardstick/pipeline"
)

func twoBatches() *pipeline.Plan {
	return &pipeline.Plan{Batches: []pipeline.Batch{{Name: "a"}, {Name: "b"}}}
}

func fp(kernel string) pipeline.Fingerprint {
	return pipeline.Fingerprint{OS: "linux", Arch: "amd64", Kernel: kernel, CPUModel: "Xeon", Cores: 2, Governor: "performance"}
}

func nodes(batch string, runs ...pipeline.NodeRun) *pipeline.BatchNodes {
	return &pipeline.BatchNodes{Version: pipeline.NodesVersion, Batch: batch, Runs: runs}
}

func on(node string, f pipeline.Fingerprint) pipeline.NodeRun {
	return pipeline.NodeRun{Node: node, Environment: pipeline.Environment{Host: node, Fingerprint: f}}
}

func TestCrossNode(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nodes map[string]*pipeline.BatchNodes
		// pass is the want of each row, in plan order; "" for no rows.
		pass string
		// detail is part of the first row's detail.
		detail string
	}{
		{name: "one machine, no records", nodes: nil, pass: ""},
		{name: "two nodes, one fingerprint",
			nodes: map[string]*pipeline.BatchNodes{"a": nodes("a", on("n1", fp("6.1"))), "b": nodes("b", on("n2", fp("6.1")))},
			pass:  "a:true b:true", detail: "ran on n1"},
		{name: "two nodes, kernels differ",
			nodes: map[string]*pipeline.BatchNodes{"a": nodes("a", on("n1", fp("6.1"))), "b": nodes("b", on("n2", fp("6.5")))},
			pass:  "a:false b:false", detail: `node n1 (batch a) and node n2 (batch b) differ: kernel "6.1" vs "6.5"`},
		{name: "batch resubmitted onto a different node",
			nodes: map[string]*pipeline.BatchNodes{"a": nodes("a", on("n1", fp("6.1")), on("n3", fp("6.5")))},
			pass:  "a:false", detail: `node n1 (batch a) and node n3 (batch a) differ`},
		{name: "only one batch recorded",
			nodes: map[string]*pipeline.BatchNodes{"b": nodes("b", on("n2", fp("6.1")))},
			pass:  "b:true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := Check(Input{Plan: twoBatches(), Nodes: tc.nodes})
			var got []string
			for i, r := range rows {
				if r.Check != "cross_node" || r.Scope != "batch" {
					t.Errorf("row %+v", r)
				}
				got = append(got, r.Batch+":"+map[bool]string{true: "true", false: "false"}[r.Pass])
				if i == 0 && tc.detail != "" && !strings.Contains(*r.Detail, tc.detail) {
					t.Errorf("batch %s: detail %q, want it to contain %q", r.Batch, *r.Detail, tc.detail)
				}
			}
			if strings.Join(got, " ") != tc.pass {
				t.Errorf("rows %q, want %q", strings.Join(got, " "), tc.pass)
			}
		})
	}
}

func TestCompareNodes(t *testing.T) {
	a := []BatchNode{{Batch: "main", Node: "n1", Fingerprint: fp("6.1")}, {Batch: "only-a", Node: "n1", Fingerprint: fp("6.1")}}
	same := []BatchNode{{Batch: "main", Node: "n7", Fingerprint: fp("6.1")}}
	other := []BatchNode{{Batch: "main", Node: "n7", Fingerprint: fp("6.5")}}
	rows := CompareNodes(a, same)
	if len(rows) != 1 || !rows[0].Pass || rows[0].Batch != "main" {
		t.Fatalf("same fingerprint: %+v", rows)
	}
	rows = CompareNodes(a, other)
	if len(rows) != 1 || rows[0].Pass || !strings.Contains(*rows[0].Detail, `node n1 (run A) and node n7 (run B) differ: kernel "6.1" vs "6.5"`) {
		t.Fatalf("kernels differ: %+v %s", rows, *rows[0].Detail)
	}
	if rows := CompareNodes(a, nil); len(rows) != 0 {
		t.Errorf("run B without node records: %+v", rows)
	}
}
