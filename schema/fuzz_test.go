package schema

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to the loader: it must return a definition
// or problems, never panic, and every problem must carry a message.
// `make fuzz` runs it for 60 s.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("../experiments/*.cue")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("exp: {description: \"x\", batches: main: {}}"))
	f.Add([]byte("package x\n_a: b: c\n"))
	f.Add([]byte("exp: batches: main: targets: t: {kind: \"jvm\", heap: [\"1g\", 2]}"))
	f.Add([]byte("import \"strings\"\nexp: description: strings.Repeat(\"a\", 3)"))
	f.Fuzz(func(t *testing.T, src []byte) {
		def, err := LoadSources("fuzz.cue", []SourceFile{{Path: "fuzz.cue", Content: src}})
		if err == nil {
			if def == nil || len(def.Experiments) == 0 {
				t.Fatalf("no error and no experiment")
			}
			return
		}
		if ps, ok := err.(Problems); ok {
			for _, p := range ps {
				if p.Msg == "" {
					t.Fatalf("problem without a message: %+v", p)
				}
			}
		}
	})
}
