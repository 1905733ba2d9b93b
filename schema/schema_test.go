package schema

import (
	"bytes"
	"strings"
	"testing"
)

// TestPatternNamesMatchSchema keeps patternNames in step with the schema:
// every pattern it explains appears in yardstick.cue as CUE quotes it.
func TestPatternNamesMatchSchema(t *testing.T) {
	for pat := range patternNames {
		lit := strings.TrimSuffix(strings.TrimPrefix(pat, `"`), `"`)
		if !bytes.Contains(schemaSource, []byte(`=~"`+lit+`"`)) {
			t.Errorf("pattern %s is not in yardstick.cue", pat)
		}
	}
}

func TestLoadSourcesValid(t *testing.T) {
	src := `exp: {
	description: "d"
	batches: main: {
		placement: {target: "0", loadgen: "1"}
		workload: {request: path: "/x", concurrency: [1]}
		targets: {
			j: {kind: "jvm", jar: "a.jar", heap: ["128m", "1g"], gc: "ZGC", flags: {a: ["-Xshare:off"], b: []}}
		}
	}
}
`
	def, err := LoadSources("x.cue", []SourceFile{{Path: "x.cue", Content: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := def.Experiment("")
	if err != nil {
		t.Fatal(err)
	}
	tg := e.Batches[0].Targets[0]
	if !tg.Heap.List || len(tg.Heap.Values) != 2 || tg.GC.List || tg.GC.Values[0] != "ZGC" {
		t.Errorf("axes decoded wrong: heap %+v gc %+v", tg.Heap, tg.GC)
	}
	if !tg.Flags.List || tg.Flags.Sets[0].Name != "a" || tg.Flags.Sets[1].Name != "b" {
		t.Errorf("flag sets decoded wrong: %+v", tg.Flags)
	}
	b := e.Batches[0]
	if b.Repeats != 1 || b.Windows.Measure.String() != "30s" || b.Order != "sequential" || b.Workload.Request.Method != "GET" {
		t.Errorf("defaults not applied: %+v", b)
	}
	if p := e.Pos("batches", "main", "targets", "j", "heap"); p.Line != 7 || p.File != "x.cue" {
		t.Errorf("Pos(heap) = %v, want x.cue:7", p)
	}
}

func TestLoadSourcesErrorsHavePositions(t *testing.T) {
	src := "exp: {\n\tdescription: 1\n\tbatches: main: repeats: -1\n}\n"
	_, err := LoadSources("x.cue", []SourceFile{{Path: "x.cue", Content: []byte(src)}})
	ps, ok := err.(Problems)
	if !ok || len(ps) == 0 {
		t.Fatalf("want Problems, got %v", err)
	}
	for _, p := range ps {
		if p.Pos.File != "x.cue" || p.Pos.Line == 0 {
			t.Errorf("problem without a position in the user's file: %v", p)
		}
	}
}
