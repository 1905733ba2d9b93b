package changepoint

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// refFile holds ruptures' answers for refCases, recorded by
// `make ruptures-reference` (YARDSTICK_UPDATE=1 on TestRupturesReference,
// which runs testdata/ruptures_ref.py in the .venv of make pyenv).
const refFile = "testdata/ruptures_ref.json"

// refCase is one series, its minimum segment length and penalty, and
// ruptures' changepoints for them (Changepoints, from the recording).
type refCase struct {
	Name         string    `json:"name"`
	X            []float64 `json:"x"`
	MinSize      int       `json:"min_size"`
	Pen          float64   `json:"pen"`
	Changepoints []int     `json:"changepoints,omitempty"`
}

// reference is what refFile holds: the ruptures version that answered,
// and every case with its answer.
type reference struct {
	Ruptures string    `json:"ruptures"`
	Cases    []refCase `json:"cases"`
}

// inexact are the cases where ruptures is not exact: its Pelt drops a
// candidate as soon as another dominates it, before the dominating start
// is itself a candidate (segments of at least min_size), and on the spiky
// series (spikes of 5x and dips to 20% at 4% of the points each) that
// loses the optimum. Detect keeps the candidate until then; it must find a
// lower penalised cost than ruptures, and ruptures what the pruning at
// once (oldPelt) finds.
var inexact = map[string]bool{"spiky_pruning": true}

// refCases are the series compared with ruptures' Pelt, each with the
// penalty Go computes for it (scaled).
func refCases(t *testing.T) []refCase {
	t.Helper()
	var cases []refCase
	add := func(name string, x []float64, minSize int, scale float64) {
		pen, err := DefaultPenalty(x, Config{MinSize: minSize})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cases = append(cases, refCase{Name: name, X: x, MinSize: minSize, Pen: pen * scale})
	}
	add("step", stepSeries(1, 200, 90, 100, 112, 5), 5, 1)
	add("noise", flatSeries(2, 200), 5, 1)
	add("ramp_flat", rampSeries(3, 300, 80, 500, 1000, 25), 5, 1)
	add("slowdown", stepSeries(4, 300, 180, 1000, 850, 30), 5, 1)
	add("jit_warmup", jitWarmup(5), 5, 1)
	add("jit_warmup_min2", jitWarmup(6), 2, 1)
	add("jit_warmup_min10", jitWarmup(7)[:300], 10, 1)
	// Lower penalties, to compare many changepoints. (ruptures is pure
	// Python and quadratic on flat stretches: the series stay short.)
	add("jit_warmup_low_pen", jitWarmup(8), 5, 0.25)
	add("ramp_low_pen", rampSeries(9, 400, 300, 0.002, 0.001, 0.0001), 3, 0.25)
	add("noise_low_pen", flatSeries(10, 200), 2, 0.1)
	add("spiky_pruning", spiky(2, 120, 0.04), 5, 1)
	return cases
}

// TestRupturesReference checks Detect against ruptures' Pelt (model "l2",
// jump 1), the reference implementation pinned in requirements.txt: on
// the recorded series, minimum segment lengths and penalties, Detect must
// give the changepoints ruptures gave. The recording must be of the cases
// above (the same series and penalties) and of the pinned ruptures, so
// that a changed case or pin without `make ruptures-reference` fails too.
func TestRupturesReference(t *testing.T) {
	root := repoRoot(t)
	pin := pinnedVersion(t, filepath.Join(root, "requirements.txt"), "ruptures")
	cases := refCases(t)
	if os.Getenv("YARDSTICK_UPDATE") == "1" {
		record(t, root, cases)
	}
	ref := readReference(t)
	if ref.Ruptures != pin {
		t.Fatalf("%s was recorded with ruptures %s, requirements.txt pins %s: run make ruptures-reference", refFile, ref.Ruptures, pin)
	}
	if err := sameCases(ref.Cases, cases); err != nil {
		t.Fatalf("%s: %v: run make ruptures-reference", refFile, err)
	}
	total := 0
	for _, c := range ref.Cases {
		total += len(c.Changepoints)
		got, err := Detect(c.X, Config{MinSize: c.MinSize, Penalty: c.Pen})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if err := compareRef(c, got); err != nil {
			t.Error(err)
			continue
		}
		t.Logf("%s: Go %v, ruptures %s %v", c.Name, got, ref.Ruptures, c.Changepoints)
	}
	if total < 20 {
		t.Errorf("the cases have %d changepoints in all, too few to compare the two searches", total)
	}
}

// TestRupturesReferenceHasTeeth: the comparison reports a recorded answer
// that is not Detect's, for an exact case and for the inexact one.
func TestRupturesReferenceHasTeeth(t *testing.T) {
	for _, c := range readReference(t).Cases {
		if len(c.Changepoints) == 0 {
			continue
		}
		got, err := Detect(c.X, Config{MinSize: c.MinSize, Penalty: c.Pen})
		if err != nil {
			t.Fatal(err)
		}
		moved := slices.Clone(c.Changepoints)
		moved[0]++
		c.Changepoints = moved
		if compareRef(c, got) == nil {
			t.Errorf("%s: a recorded changepoint moved by one went unnoticed", c.Name)
		}
	}
}

// compareRef compares Detect's changepoints got with ruptures' on case c:
// the same, or for an inexact case a lower cost than ruptures' and
// ruptures' those of the pruning at once.
func compareRef(c refCase, got []int) error {
	want := c.Changepoints
	if want == nil {
		want = []int{}
	}
	if got == nil {
		got = []int{}
	}
	if !inexact[c.Name] {
		if !slices.Equal(got, want) {
			return fmt.Errorf("%s (n=%d, min_size=%d, pen=%g): Go %v, ruptures %v", c.Name, len(c.X), c.MinSize, c.Pen, got, want)
		}
		return nil
	}
	cfg := Config{MinSize: c.MinSize, Penalty: c.Pen}
	_, sigma, _ := cfg.resolve(c.X)
	cost, _ := newCoster(c.X, CostMean, sigma)
	at := oldPelt(len(c.X), c.MinSize, c.Pen/sigma/sigma, cost)
	if g, w := costOf(c.X, cfg, got), costOf(c.X, cfg, want); g >= w || !slices.Equal(at, want) {
		return fmt.Errorf("%s: Go %v (cost %.3f), ruptures %v (cost %.3f), pruning at once %v: want Go below ruptures, and ruptures as the pruning at once",
			c.Name, got, g, want, w, at)
	}
	return nil
}

// sameCases checks that the recorded cases are the ones given, in order:
// the same names, minimum segment lengths, and series and penalties to a
// relative 1e-12 (the last bits of math functions may differ between
// architectures).
func sameCases(rec, cases []refCase) error {
	if len(rec) != len(cases) {
		return fmt.Errorf("%d cases recorded, the test has %d", len(rec), len(cases))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }
	for i, c := range cases {
		r := rec[i]
		if r.Name != c.Name || r.MinSize != c.MinSize || len(r.X) != len(c.X) || !near(r.Pen, c.Pen) {
			return fmt.Errorf("case %d is %s (n=%d, min_size=%d, pen=%g), the test's %s (n=%d, min_size=%d, pen=%g)",
				i, r.Name, len(r.X), r.MinSize, r.Pen, c.Name, len(c.X), c.MinSize, c.Pen)
		}
		for j := range c.X {
			if !near(r.X[j], c.X[j]) {
				return fmt.Errorf("%s: x[%d] is %g, the test's %g", c.Name, j, r.X[j], c.X[j])
			}
		}
	}
	return nil
}

// readReference reads refFile.
func readReference(t *testing.T) reference {
	t.Helper()
	b, err := os.ReadFile(refFile)
	if err != nil {
		t.Fatalf("%v: run make ruptures-reference", err)
	}
	var ref reference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatalf("%s: %v", refFile, err)
	}
	return ref
}

// record writes ruptures' answers for the cases to refFile.
func record(t *testing.T, root string, cases []refCase) {
	t.Helper()
	if err := os.WriteFile(refFile, askRuptures(t, root, cases), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s", refFile)
}

// askRuptures has testdata/ruptures_ref.py, in the .venv of make pyenv,
// answer the cases, and returns what it wrote (refFile's format).
func askRuptures(t *testing.T, root string, cases []refCase) []byte {
	t.Helper()
	python := filepath.Join(root, ".venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("no Python environment at %s: run make pyenv (%v)", python, err)
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.json"), filepath.Join(dir, "out.json")
	b, err := json.Marshal(map[string]any{"cases": cases})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	script := filepath.Join("testdata", "ruptures_ref.py")
	if msg, err := exec.CommandContext(ctx, python, script, in, out).CombinedOutput(); err != nil {
		hint := ""
		if bytes.Contains(msg, []byte("ModuleNotFoundError")) {
			hint = " (ruptures is missing: run make pyenv)"
		}
		t.Fatalf("%s %s: %v%s\n%s", python, script, err, hint, msg)
	}
	b, err = os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// repoRoot is the directory above the working directory (the package's,
// under go test) that holds go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// pinnedVersion is the version requirements.txt pins pkg to.
func pinnedVersion(t *testing.T, path, pkg string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), pkg+"=="); ok {
			return v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatal(errors.New(pkg + " is not pinned in " + path))
	return ""
}
