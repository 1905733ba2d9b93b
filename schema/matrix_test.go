package schema

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// loadBatch evaluates a one-batch definition whose batch body is body.
func loadBatch(t *testing.T, body string) *Batch {
	t.Helper()
	src := `import "list"
_n: len(list.Range(0, 1, 1))
e: {
	description: "rules"
	batches: main: {
		placement: {target: "0", loadgen: "1"}
		targets: g: {kind: "go", cmd: ["bin/sample-go"], gogc: [100, 200], gomaxprocs: [1, 2]}
` + body + `
	}
}
`
	def, err := LoadSources("x.cue", []SourceFile{{Path: "x.cue", Content: []byte(src)}})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return def.Experiments[0].Batches[0]
}

// naiveMatches is the rule semantics written out plainly: every key of
// the rule is a value of the cell, equal when case is ignored.
func naiveMatches(rule Match, vals map[string]string) bool {
	for k, want := range rule {
		got, ok := vals[k]
		if !ok || !strings.EqualFold(got, want) {
			return false
		}
	}
	return true
}

// TestMatcherAgreesWithRules: the indexed matcher keeps and counts exactly
// what comparing every rule with every cell does, for random rules over
// every key.
func TestMatcherAgreesWithRules(t *testing.T) {
	b := loadBatch(t, `workload: {request: path: "/p/{payload}", payload: [1, 2, 3], concurrency: [1, 2], rate: [100]}
		repeats: 2`)
	rng := rand.New(rand.NewPCG(1, 2))
	values := map[string][]string{
		"target": {"g", "G", "h"}, "payload": {"1", "3", "9"}, "concurrency": {"1", "2"},
		"rate": {"100", "50"}, "repeat": {"1", "2"}, "gogc": {"100", "200"}, "gomaxprocs": {"1", "2", "3"},
	}
	keys := []string{"target", "payload", "concurrency", "rate", "repeat", "gogc", "gomaxprocs"}
	randRules := func() []Match {
		var rs []Match
		for range rng.IntN(6) {
			r := Match{}
			for range 1 + rng.IntN(3) {
				k := keys[rng.IntN(len(keys))]
				r[k] = values[k][rng.IntN(len(values[k]))]
			}
			rs = append(rs, r)
		}
		return rs
	}
	for trial := range 200 {
		b.Include, b.Exclude = randRules(), randRules()
		rc, err := CountRules(context.Background(), b)
		if err != nil {
			t.Fatal(err)
		}
		want := RuleCounts{Include: make([]int, len(b.Include)), Exclude: make([]int, len(b.Exclude))}
		m := NewMatcher(b)
		for _, tg := range b.Targets {
			for _, v := range Variants(b, tg) {
				for r := 1; r <= b.Repeats; r++ {
					for _, pt := range Points(&b.Workload) {
						vals := matchValues(&v, pt, r)
						in := len(b.Include) == 0
						for i, rule := range b.Include {
							if naiveMatches(rule, vals) {
								want.Include[i]++
								in = true
							}
						}
						out := false
						for i, rule := range b.Exclude {
							if naiveMatches(rule, vals) {
								want.Exclude[i]++
								out = true
							}
						}
						if in && !out {
							want.Kept++
						}
						if got := m.Keep(&v, pt, r); got != (in && !out) {
							t.Fatalf("trial %d: include %v exclude %v: cell %v kept %v, want %v", trial, b.Include, b.Exclude, vals, got, in && !out)
						}
					}
				}
			}
		}
		if fmt.Sprint(rc) != fmt.Sprint(want) {
			t.Fatalf("trial %d: include %v exclude %v: counts %v, want %v", trial, b.Include, b.Exclude, rc, want)
		}
	}
}

// TestFoldIsEqualFold: two values fold alike exactly when EqualFold says
// they are equal, beyond ASCII too (the Kelvin sign folds with k).
func TestFoldIsEqualFold(t *testing.T) {
	words := []string{"k", "K", "\u212a", "ß", "ẞ", "σ", "Σ", "ς", "512m", "512M", "g1", "G1", "ſ", "s"}
	for _, a := range words {
		for _, b := range words {
			if (fold(a) == fold(b)) != strings.EqualFold(a, b) {
				t.Errorf("fold(%q)==fold(%q) is %v, EqualFold %v", a, b, fold(a) == fold(b), strings.EqualFold(a, b))
			}
		}
	}
}

// TestCountRulesIsLinear: 100,000 cells and 2,000 exclude rules are counted
// in one pass (seconds before: rules x cells comparisons took minutes).
func TestCountRulesIsLinear(t *testing.T) {
	b := loadBatch(t, `workload: {request: path: "/p/{payload}", payload: list.Range(1, 101, 1), concurrency: list.Range(1, 251, 1)}
		exclude: [for i in list.Range(0, 2000, 1) {concurrency: i + 1, payload: 3}]`)
	start := time.Now()
	rc, err := CountRules(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	// 4 variants x 100 payloads x 250 concurrencies, less payload 3 at
	// every concurrency.
	if rc.Kept != 100_000-4*250 {
		t.Errorf("kept %d cells, want %d", rc.Kept, 100_000-4*250)
	}
	if rc.Exclude[0] != 4 || rc.Exclude[1999] != 0 {
		t.Errorf("rule 0 matches %d cells (want 4), rule 1999 %d (want 0)", rc.Exclude[0], rc.Exclude[1999])
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("counting took %s", d)
	}
}

// TestCountRulesHonoursContext: a cancelled context ends the walk with its
// cause.
func TestCountRulesHonoursContext(t *testing.T) {
	b := loadBatch(t, `workload: {request: path: "/p/{payload}", payload: list.Range(1, 101, 1), concurrency: list.Range(1, 251, 1)}
		exclude: [{payload: 3}]`)
	cause := errors.New("stop")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	if _, err := CountRules(ctx, b); !errors.Is(err, cause) {
		t.Fatalf("err %v, want the context's cause", err)
	}
}

// TestCountRulesCapsKeySets: rules over so many different key sets that
// matching them would cost more than MaxRuleWork are refused with a reason.
func TestCountRulesCapsKeySets(t *testing.T) {
	keys := []string{"target", "payload", "concurrency", "repeat", "gogc", "gomaxprocs", "rate"}
	vals := map[string]string{"target": `"g"`, "payload": "1", "concurrency": "1", "repeat": "1", "gogc": "100", "gomaxprocs": "1", "rate": "100"}
	var rules []string
	for set := 1; set < 1<<len(keys); set++ {
		var fs []string
		for i, k := range keys {
			if set&(1<<i) != 0 {
				fs = append(fs, k+": "+vals[k])
			}
		}
		rules = append(rules, "{"+strings.Join(fs, ", ")+"}")
	}
	b := loadBatch(t, `workload: {request: path: "/p/{payload}", payload: list.Range(1, 101, 1), concurrency: list.Range(1, 251, 1), rate: [100]}
		exclude: [`+strings.Join(rules, ", ")+`]`)
	_, err := CountRules(context.Background(), b)
	if err == nil || !strings.Contains(err.Error(), "127 different key sets") {
		t.Fatalf("err %v, want the key-set cap", err)
	}
}
