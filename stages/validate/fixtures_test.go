package validate

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// want is one finding a fixture must give: its check, severity, position
// in the fixture ("line:col") and words its message must hold.
type want struct {
	check string
	sev   Severity
	at    string
	words []string
}

func werr(check, at string, words ...string) want  { return want{check, Error, at, words} }
func wwarn(check, at string, words ...string) want { return want{check, Warning, at, words} }

// fixture is one definition under testdata and exactly the findings it
// gives on a machine of cpus CPUs (8 when 0).
type fixture struct {
	file string
	cpus int
	want []want
}

// used records the fixtures the tables name, for TestEveryFixtureUsed.
var used = map[string]bool{}

// runFixtures loads each fixture through Load and requires exactly its
// findings: a check that stops firing, or fires on a good case, fails.
func runFixtures(t *testing.T, cases []fixture) {
	t.Helper()
	for _, fx := range cases {
		used[fx.file] = true
		t.Run(strings.TrimSuffix(fx.file, ".cue"), func(t *testing.T) {
			cpus := fx.cpus
			if cpus == 0 {
				cpus = 8
			}
			path := filepath.Join("testdata", fx.file)
			r, err := Load(context.Background(), ".", path, Options{Machine: Machine{CPUs: cpus}})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			matchFindings(t, path, r.Findings, fx.want)
			if valid := !hasError(fx.want); r.Valid() != valid {
				t.Errorf("Valid() = %v, want %v", r.Valid(), valid)
			}
		})
	}
}

func hasError(ws []want) bool {
	for _, w := range ws {
		if w.sev == Error {
			return true
		}
	}
	return false
}

func matchFindings(t *testing.T, path string, got []Finding, ws []want) {
	t.Helper()
	taken := make([]bool, len(got))
	for _, w := range ws {
		found := false
		for i, f := range got {
			if !taken[i] && matches(f, path, w) {
				taken[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("missing finding: %s %s at %s:%s with %q", sevName(w.sev), w.check, path, w.at, w.words)
		}
	}
	for i, f := range got {
		if !taken[i] {
			t.Errorf("unexpected finding [%s %s]: %s", sevName(f.Severity), f.Check, f)
		}
	}
}

func matches(f Finding, path string, w want) bool {
	if f.Check != w.check || f.Severity != w.sev {
		return false
	}
	at := ""
	if f.Pos.IsValid() {
		at = strings.TrimPrefix(f.Pos.String(), path+":")
		if f.Pos.File != path {
			return false
		}
	}
	if at != w.at {
		return false
	}
	for _, word := range w.words {
		if !strings.Contains(f.Msg, word) {
			return false
		}
	}
	return true
}

func sevName(s Severity) string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// TestEveryFixtureUsed: every definition under testdata is checked by a
// table (a fixture nobody reads tests nothing). It runs the tables first.
func TestEveryFixtureUsed(t *testing.T) {
	for _, cases := range allFixtures() {
		for _, fx := range cases {
			used[fx.file] = true
		}
	}
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".cue") {
			return err
		}
		if rel, _ := filepath.Rel("testdata", p); !used[filepath.ToSlash(rel)] {
			t.Errorf("%s is in no fixture table", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEveryCheckCovered: each check has a fixture it accepts and one it
// refuses or warns on.
func TestEveryCheckCovered(t *testing.T) {
	checks := []string{"schema", "names", "duplicates", "baseline", "placement", "processors", "limits",
		"kinds", "heaps", "windows", "workload", "ready", "event_loops", "ports", "matrix"}
	fired := map[string]bool{}
	good := map[string]bool{}
	for _, cases := range allFixtures() {
		for _, fx := range cases {
			dir, _, _ := strings.Cut(fx.file, "/")
			if len(fx.want) == 0 {
				good[dir] = true
			}
			for _, w := range fx.want {
				fired[w.check] = true
			}
		}
	}
	for _, c := range checks {
		dir := c
		if !fired[c] {
			t.Errorf("no fixture makes check %s fire", c)
		}
		if !good[dir] {
			t.Errorf("no good fixture under testdata/%s", dir)
		}
	}
}
