package changepoint

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// refCase is one series for ruptures_ref.py.
type refCase struct {
	Name    string    `json:"name"`
	X       []float64 `json:"x"`
	MinSize int       `json:"min_size"`
	Pen     float64   `json:"pen"`
}

// TestRupturesReference checks Detect against ruptures' Pelt (model "l2",
// jump 1), the reference implementation pinned in requirements.txt: the
// same series, minimum segment length and penalty (the one Go computed)
// must give the same changepoints.
func TestRupturesReference(t *testing.T) {
	root := repoRoot(t)
	python := filepath.Join(root, ".venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("no Python environment at %s: run make pyenv (%v)", python, err)
	}
	pin := pinnedVersion(t, filepath.Join(root, "requirements.txt"), "ruptures")

	var cases []refCase
	add := func(name string, x []float64, minSize int, scale float64) {
		c := Config{MinSize: minSize}
		pen, err := DefaultPenalty(x, c)
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
	// Where ruptures is not exact: its Pelt drops a candidate as soon as
	// another dominates it, before the dominating start is itself a
	// candidate (segments of at least min_size), and on this spiky series
	// (spikes of 5x and dips to 20% at 4% of the points each) that loses
	// the optimum. Detect keeps the candidate until then; it must find a
	// lower penalised cost than ruptures, and ruptures what the pruning at
	// once (oldPelt) finds.
	inexact := map[string]bool{"spiky_pruning": true}
	add("spiky_pruning", spiky(2, 120, 0.04), 5, 1)

	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.json"), filepath.Join(dir, "out.json")
	b, err := json.Marshal(map[string]any{"cases": cases})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script := filepath.Join(root, "stats", "changepoint", "testdata", "ruptures_ref.py")
	cmd := exec.CommandContext(ctx, python, script, in, out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		hint := ""
		if strings.Contains(string(msg), "ModuleNotFoundError") {
			hint = " (ruptures is missing: run make pyenv)"
		}
		t.Fatalf("%s %s: %v%s\n%s", python, script, err, hint, msg)
	}
	var ref struct {
		Ruptures string           `json:"ruptures"`
		Cases    map[string][]int `json:"cases"`
	}
	b, err = os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatalf("ruptures_ref.py output: %v", err)
	}
	if ref.Ruptures != pin {
		t.Fatalf("ruptures %s in .venv, requirements.txt pins %s: run make pyenv", ref.Ruptures, pin)
	}
	total := 0
	for _, c := range cases {
		got, err := Detect(c.X, Config{MinSize: c.MinSize, Penalty: c.Pen})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		want, ok := ref.Cases[c.Name]
		if !ok {
			t.Fatalf("%s: no answer from ruptures", c.Name)
		}
		if got == nil {
			got = []int{}
		}
		if inexact[c.Name] {
			cfg := Config{MinSize: c.MinSize, Penalty: c.Pen}
			_, sigma, _ := cfg.resolve(c.X)
			cost, _ := newCoster(c.X, CostMean, sigma)
			at := oldPelt(len(c.X), c.MinSize, c.Pen/sigma/sigma, cost)
			if g, w := costOf(c.X, cfg, got), costOf(c.X, cfg, want); g >= w || !slices.Equal(at, want) {
				t.Errorf("%s: Go %v (cost %.3f), ruptures %v (cost %.3f), pruning at once %v: want Go below ruptures, and ruptures as the pruning at once",
					c.Name, got, g, want, w, at)
			}
			t.Logf("%s: Go %v, ruptures %v (the optimum lost by pruning at once)", c.Name, got, want)
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s (n=%d, min_size=%d, pen=%g): Go %v, ruptures %v", c.Name, len(c.X), c.MinSize, c.Pen, got, want)
		}
		total += len(want)
		t.Logf("%s: %d changepoints, the same as ruptures %s", c.Name, len(got), ref.Ruptures)
	}
	if total < 20 {
		t.Errorf("the cases have %d changepoints in all, too few to compare the two searches", total)
	}
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
