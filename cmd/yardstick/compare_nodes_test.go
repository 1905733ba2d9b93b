package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"yardstick/internal/synthrun"
	"yardstick/pipeline"
)

// TestCompareCrossNode: compare says first whether each batch both runs
// ran on cluster nodes ran on nodes of one fingerprint.
func TestCompareCrossNode(t *testing.T) {
	mk := func(kernel string) (string, string) {
		rd, p, err := synthrun.Report.Write(t.TempDir(), synthrun.Options{Tables: true})
		if err != nil {
			t.Fatal(err)
		}
		b := p.Batches[0].Name
		run := pipeline.NodeRun{Node: "n-" + kernel, Environment: pipeline.Environment{Fingerprint: pipeline.Fingerprint{OS: "linux", Kernel: kernel}}}
		if err := rd.AppendNodeRun(b, run); err != nil {
			t.Fatal(err)
		}
		return rd.Root, b
	}
	compare := func(a, b string) string {
		var out, errOut bytes.Buffer
		env := &cliEnv{stdout: &out, stderr: &errOut, wd: t.TempDir()}
		if code := runMain(context.Background(), env, []string{"compare", a, b}); code != 0 {
			t.Fatalf("compare exited %d: %s", code, errOut.String())
		}
		return out.String()
	}
	a, batch := mk("6.1")
	same, _ := mk("6.1")
	other, _ := mk("6.5")
	if out := compare(a, same); !strings.HasPrefix(out, "cross_node [batch "+batch+"]: ok: ran on n-6.1; one fingerprint across both runs\n") {
		t.Errorf("one fingerprint:\n%s", out)
	}
	want := "cross_node [batch " + batch + `]: UNFAIR: node n-6.1 (run A) and node n-6.5 (run B) differ: kernel "6.1" vs "6.5"`
	if out := compare(a, other); !strings.HasPrefix(out, want) {
		t.Errorf("kernels differ:\n%s\nwant it to start with %s", out, want)
	}
}
