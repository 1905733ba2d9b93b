package tabulate_test

import (
	"strings"
	"testing"

	"yardstick/datasets"
	"yardstick/internal/synthrun"
	"yardstick/pipeline"
	"yardstick/stages/tabulate"
)

func environmentTable(t *testing.T, rd *pipeline.RunDir) []datasets.Environment {
	t.Helper()
	if _, err := tabulate.Run(rd, "v-test"); err != nil {
		t.Fatal(err)
	}
	rows, _, err := datasets.Environments.Read(datasets.Environments.Path(rd.Root))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestEnvironmentOneMachine: a run without node records keeps its one
// row from environment.json, with node and batches null.
func TestEnvironmentOneMachine(t *testing.T) {
	rd, _ := writeFixture(t, synthrun.Options{})
	e, err := rd.ReadEnvironment()
	if err != nil {
		t.Fatal(err)
	}
	rows := environmentTable(t, rd)
	if len(rows) != 1 || rows[0].Host != e.Host || rows[0].Node != nil || rows[0].Batches != nil {
		t.Fatalf("rows %+v", rows)
	}
}

// TestEnvironmentPerNode: batches that ran as separate tasks give one
// row per node (and fingerprint) with the batches that ran there; a
// batch resubmitted onto another node adds that node.
func TestEnvironmentPerNode(t *testing.T) {
	rd, p := writeFixture(t, synthrun.Options{})
	if len(p.Batches) < 2 {
		t.Fatalf("the fixture has %d batch(es); the test needs two", len(p.Batches))
	}
	env := func(host, kernel string) pipeline.Environment {
		return pipeline.Environment{Host: host, Fingerprint: pipeline.Fingerprint{OS: "linux", Arch: "amd64", Kernel: kernel, CPUModel: "Xeon", Cores: 8}, Yardstick: "v1", PlanHash: p.Hash}
	}
	b0, b1 := p.Batches[0].Name, p.Batches[1].Name
	for _, r := range []struct {
		batch string
		run   pipeline.NodeRun
	}{
		{b0, pipeline.NodeRun{Node: "n1", Environment: env("host1", "6.1")}},
		{b1, pipeline.NodeRun{Node: "n1", Environment: env("host1", "6.1")}},
		{b1, pipeline.NodeRun{Node: "n2", Environment: env("host2", "6.5")}},
	} {
		if err := rd.AppendNodeRun(r.batch, r.run); err != nil {
			t.Fatal(err)
		}
	}
	rows := environmentTable(t, rd)
	var got []string
	for _, r := range rows {
		if r.Node == nil || r.Batches == nil {
			t.Fatalf("row without node or batches: %+v", r)
		}
		got = append(got, *r.Node+"/"+r.Host+"/"+r.Kernel+"/"+*r.Batches)
	}
	want := []string{"n1/host1/6.1/" + b0 + "," + b1, "n2/host2/6.5/" + b1}
	if len(p.Batches) > 2 {
		t.Fatalf("the fixture has %d batches; this test expects two", len(p.Batches))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("rows %q, want %q", got, want)
	}
	for _, r := range rows {
		if r.PlannedCells != int64(len(p.Cells)) || r.PlanHash != p.Hash {
			t.Errorf("row %+v: planned cells or plan hash", r)
		}
	}
}
