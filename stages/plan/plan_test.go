package plan_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/parser"

	"yardstick/pipeline"
	"yardstick/schema"
	"yardstick/stages/plan"
)

var update = os.Getenv("YARDSTICK_UPDATE") == "1"

// shipped lists the experiments under experiments/, relative to this
// package.
func shipped(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../experiments/*.cue")
	if err != nil || len(files) < 3 {
		t.Fatalf("shipped experiments: %v %v", files, err)
	}
	return files
}

// planFrom loads definition files from source text and renders the plan.
func planFrom(t *testing.T, name string, src []byte) (*pipeline.Plan, string) {
	t.Helper()
	p, err := plan.FromSource(name, src, "", plan.Options{})
	if err != nil {
		t.Fatalf("plan %s: %v", name, err)
	}
	var b bytes.Buffer
	if err := plan.WriteText(&b, p); err != nil {
		t.Fatal(err)
	}
	return p, b.String()
}

// TestGoldenPlans: the plans of the shipped experiments match their golden
// files, byte for byte, and stay the same after `cue fmt` and after every
// struct's fields are written in reverse order.
func TestGoldenPlans(t *testing.T) {
	for _, f := range shipped(t) {
		base := strings.TrimSuffix(filepath.Base(f), ".cue")
		t.Run(base, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, got := planFrom(t, base+".cue", src)
			golden := filepath.Join("testdata", "golden", base+".plan.txt")
			if update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (YARDSTICK_UPDATE=1 writes it)", err)
			}
			if got != string(want) {
				t.Errorf("plan of %s differs from %s (YARDSTICK_UPDATE=1 rewrites it):\n%s", f, golden, got)
			}
			_, again := planFrom(t, base+".cue", src)
			if again != got {
				t.Errorf("two plans of the same file differ")
			}

			file, err := parser.ParseFile(base+".cue", src, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			formatted, err := format.Node(file)
			if err != nil {
				t.Fatal(err)
			}
			if _, fmtPlan := planFrom(t, base+".cue", formatted); fmtPlan != got {
				t.Errorf("plan changed after cue fmt")
			}

			reverseFields(file)
			reordered, err := format.Node(file)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(reordered, formatted) {
				t.Fatalf("reordering changed nothing; the test would prove nothing")
			}
			if _, rePlan := planFrom(t, base+".cue", reordered); rePlan != got {
				t.Errorf("plan changed after reordering fields:\n%s", reordered)
			}
		})
	}
}

// reverseFields reverses the order of the fields of every struct (and of
// the file's top-level declarations after the package clause). List
// elements keep their order: a list's order is its meaning.
func reverseFields(f *ast.File) {
	ast.Walk(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.StructLit); ok {
			slices.Reverse(s.Elts)
		}
		return true
	}, nil)
	var head, rest []ast.Decl
	for _, d := range f.Decls {
		switch d.(type) {
		case *ast.Package, *ast.ImportDecl, *ast.CommentGroup:
			head = append(head, d)
		default:
			rest = append(rest, d)
		}
	}
	slices.Reverse(rest)
	f.Decls = append(head, rest...)
}

// TestCellCountIsProductOfAxes: without include/exclude, a batch has
// variants x payloads x (concurrency + rate) points x repeats cells.
func TestCellCountIsProductOfAxes(t *testing.T) {
	for _, f := range shipped(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := planFrom(t, filepath.Base(f), src)
		for _, b := range p.Batches {
			payloads := 1
			if len(b.Variants) == 0 {
				t.Fatalf("%s: batch %s has no variants", f, b.Name)
			}
			n := 0
			for _, c := range p.Cells {
				if c.Batch == b.Name {
					n++
				}
			}
			def, _ := schema.LoadSources(f, []schema.SourceFile{{Path: f, Content: src}})
			e, _ := def.Experiment("")
			var sb *schema.Batch
			for _, x := range e.Batches {
				if x.Name == b.Name {
					sb = x
				}
			}
			if len(sb.Workload.Payload) > 0 {
				payloads = len(sb.Workload.Payload)
			}
			points := len(sb.Workload.Concurrency) + len(sb.Workload.Rate)
			if sb.Workload.Hold != nil {
				points = 1 // its steps are one point, held
			}
			want := len(b.Variants) * payloads * points * b.Repeats
			if n != want {
				t.Errorf("%s batch %s: %d cells, want %d variants x %d payloads x %d points x %d repeats = %d",
					f, b.Name, n, len(b.Variants), payloads, points, b.Repeats, want)
			}
		}
	}
	// payload-scaling: 3 variants (go, jvm-jit, jvm-cds) x 4 x 7 x 2.
	src, _ := os.ReadFile("../../experiments/payload-scaling.cue")
	if p, _ := planFrom(t, "payload-scaling.cue", src); len(p.Cells) != 3*4*7*2 {
		t.Errorf("payload-scaling: %d cells, want %d", len(p.Cells), 3*4*7*2)
	}
}

const knobBase = `exp: {
	description: "ids"
	batches: main: {
		placement: {target: "0", loadgen: "1"}
		workload: {request: path: "/api/generated/{payload}", payload: [7, 128], concurrency: [1, 8]}
		repeats: 2
		targets: {
			g: {kind: "go", cmd: ["bin/sample-go"], gogc: 100}
			j: {kind: "jvm", jar: "x.jar", heap: "256m", gc: ["G1", "ZGC"]}
		}
	}
}
`

func ids(t *testing.T, src string) map[string]string {
	t.Helper()
	p, _ := planFrom(t, "ids.cue", []byte(src))
	m := map[string]string{}
	for _, c := range p.Cells {
		m[c.Name] = c.ID
	}
	return m
}

// TestIDsChangeOnlyWhereTouched: changing one knob of one target changes
// the ids of that target's cells and no other; adding a variant value adds
// cells and leaves the existing ids alone.
func TestIDsChangeOnlyWhereTouched(t *testing.T) {
	before := ids(t, knobBase)
	if len(before) != 2*2*2*3 {
		t.Fatalf("%d cells", len(before))
	}
	seen := map[string]bool{}
	for _, id := range before {
		if seen[id] {
			t.Fatalf("duplicate id %s", id)
		}
		seen[id] = true
	}

	after := ids(t, strings.Replace(knobBase, "gogc: 100", "gogc: 50", 1))
	for name, id := range before {
		touched := strings.HasPrefix(name, "main/g/")
		if changed := after[name] != id; changed != touched {
			t.Errorf("gogc change: cell %s changed=%v, want %v", name, changed, touched)
		}
	}

	after = ids(t, strings.Replace(knobBase, `gc: ["G1", "ZGC"]`, `gc: ["G1", "ZGC", "Parallel"]`, 1))
	for name, id := range before {
		if after[name] != id {
			t.Errorf("adding a GC changed the id of %s", name)
		}
	}
	if len(after) != len(before)+2*2*2 {
		t.Errorf("adding a GC: %d cells, want %d", len(after), len(before)+8)
	}

	after = ids(t, strings.Replace(knobBase, "concurrency: [1, 8]", "concurrency: [8, 1]", 1))
	for name, id := range before {
		if after[name] != id {
			t.Errorf("reordering a workload axis changed the id of %s", name)
		}
	}
}

// TestOrders: the three orders run the same cells; sequential keeps a
// variant's repeats together, interleaved alternates variants, random is
// reproducible from its seed and keeps each group's cells together.
func TestOrders(t *testing.T) {
	def, err := schema.LoadSources("ids.cue", []schema.SourceFile{{Path: "ids.cue", Content: []byte(knobBase)}})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := def.Experiment("")
	get := func(order string, seed int64) *pipeline.Plan {
		p, err := plan.Expand(context.Background(), def, e, plan.Options{Order: order, Seed: &seed})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	names := func(p *pipeline.Plan) []string {
		var out []string
		for _, c := range p.Cells {
			out = append(out, c.Name)
		}
		return out
	}
	seq, inter, r1, r1b, r2 := get("sequential", 1), get("interleaved", 1), get("random", 1), get("random", 1), get("random", 2)
	sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
	for _, p := range []*pipeline.Plan{inter, r1, r2} {
		if !slices.Equal(sorted(names(p)), sorted(names(seq))) {
			t.Fatalf("orders run different cells")
		}
	}
	if got := seq.Cells[4].Name; got != "main/g/c1-p7/r2" {
		t.Errorf("sequential: 5th cell %s, want main/g/c1-p7/r2", got)
	}
	if got := inter.Cells[4].Name; got != "main/j-g1/c1-p7/r1" {
		t.Errorf("interleaved: 5th cell %s, want main/j-g1/c1-p7/r1", got)
	}
	if !slices.Equal(names(r1), names(r1b)) {
		t.Errorf("random with the same seed gave two orders")
	}
	if slices.Equal(names(r1), names(r2)) || slices.Equal(names(r1), names(seq)) {
		t.Errorf("random order did not change with the seed")
	}
	for _, p := range []*pipeline.Plan{seq, inter, r1} {
		last := -1
		for _, c := range p.Cells {
			if c.StartSeq < last {
				t.Errorf("%s: groups not contiguous", p.Batches[0].Order)
			}
			last = c.StartSeq
		}
		for i, c := range p.Cells {
			if c.Seq != i {
				t.Errorf("seq %d at %d", c.Seq, i)
			}
		}
	}
}
