package fairness

import (
	"strings"
	"testing"

	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
)

func TestContainerView(t *testing.T) {
	one, two := 1, 2
	mem512, heap := int64(512<<20), int64(128<<20)
	mem1g := int64(1 << 30)
	jvmLimits := &pipeline.Limits{CPUs: 1, PeriodUS: 100_000, Memory: "512m", MemoryBytes: 512 << 20}
	for _, tc := range []struct {
		name   string
		kind   string
		limits *pipeline.Limits
		view   *pipeline.ContainerView
		pass   bool
		detail []string
	}{
		{"jvm as declared", "jvm", jvmLimits, &pipeline.ContainerView{Source: "jvm gc+init", Processors: &one, MemoryLimitBytes: &mem512, HeapMaxBytes: &heap}, true,
			[]string{"runs with 1 processor(s)", "saw 512 MiB of memory", "maximum heap 128 MiB"}},
		{"jvm told 2 processors under a 1-CPU quota", "jvm", jvmLimits, &pipeline.ContainerView{Source: "jvm gc+init", Processors: &two, MemoryLimitBytes: &mem512}, false,
			[]string{"runs with 2 processor(s)", "a quota of 1 CPUs", "gives 1"}},
		{"jvm saw the machine's memory", "jvm", jvmLimits, &pipeline.ContainerView{Source: "jvm gc+init", Processors: &one, MemoryLimitBytes: &mem1g}, false,
			[]string{"saw 1024 MiB of memory, limit 512m"}},
		{"go under half a CPU takes 2 of the set's 2", "go", &pipeline.Limits{CPUs: 0.5}, &pipeline.ContainerView{Source: "go gctrace", Processors: &two}, true, nil},
		{"go view missing", "go", &pipeline.Limits{CPUs: 0.5}, &pipeline.ContainerView{Source: "go gctrace"}, false, []string{"not recorded"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := pipeline.Batch{Name: "main", Placement: pipeline.Placement{Target: cpuset.Set{0, 1}, Loadgen: cpuset.Set{2}},
				Variants: []pipeline.Variant{{Process: pipeline.Process{Kind: tc.kind}, Label: "v", Limits: tc.limits}}}
			p := &pipeline.Plan{Batches: []pipeline.Batch{b}, Cells: []pipeline.Cell{{ID: "a", Name: "main/v/c32/r1", Batch: "main", Variant: "v", Point: pipeline.Point{Mode: "closed", Concurrency: 32}}}}
			cp := ok(1000, 32000, 30000, t)
			cp.ContainerView = tc.view
			var row *pipeline.FairnessRow
			for _, r := range Check(Input{Plan: p, Checkpoints: map[string]*pipeline.Checkpoint{"a": cp}}) {
				if r.Check == "container_view" {
					row = &r
				}
			}
			if row == nil {
				t.Fatal("no container_view row")
			}
			if row.Pass != tc.pass {
				t.Errorf("pass = %v, want %v: %s", row.Pass, tc.pass, *row.Detail)
			}
			for _, d := range tc.detail {
				if !strings.Contains(*row.Detail, d) {
					t.Errorf("detail %q lacks %q", *row.Detail, d)
				}
			}
		})
	}
}
