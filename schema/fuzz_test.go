package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to the loader. It fails not only on a
// panic but on any internal error:
//   - an error that is not Problems (a user error is always reported as
//     Problems), or empty Problems;
//   - a problem without a message, from the loader's own recover ("internal
//     error ..."), or without a file:line:col inside the user's file;
//   - a definition accepted with no experiment, or with a value the schema
//     rules out (checkDefinition);
//   - a different answer when the same bytes are loaded again.
//
// The seed corpus is the shipped experiments, the cases below and
// testdata/fuzz/FuzzLoad. `make fuzz` runs it for FUZZTIME.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("../experiments/*.cue")
	if len(seeds) == 0 {
		f.Fatal("no seed definitions in ../experiments")
	}
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
		def, err := load(src)
		again, err2 := load(src)
		if got, want := outcomeOf(again, err2), outcomeOf(def, err); got != want {
			t.Fatalf("the same bytes loaded twice gave different answers:\n%s\n---\n%s", want, got)
		}
		if err == nil {
			checkDefinition(t, def)
			return
		}
		ps, ok := err.(Problems)
		if !ok {
			t.Fatalf("not a user error (%T): %v", err, err)
		}
		if len(ps) == 0 {
			t.Fatalf("an empty Problems error")
		}
		lines := bytes.Count(src, []byte("\n")) + 1
		for _, p := range ps {
			switch {
			case p.Msg == "":
				t.Fatalf("problem without a message: %+v", p)
			case strings.HasPrefix(p.Msg, "internal error"):
				t.Fatalf("internal error: %v", p)
			case p.Pos.File != fuzzFile || p.Pos.Line < 1 || p.Pos.Line > lines || p.Pos.Col < 1:
				t.Fatalf("problem without a file:line:col in %s (%d lines): %q at %+v", fuzzFile, lines, p.String(), p.Pos)
			}
		}
	})
}

const fuzzFile = "fuzz.cue"

// cpuSetRE is #CPUSet of the schema.
var cpuSetRE = regexp.MustCompile(`^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$`)

func load(src []byte) (*Definition, error) {
	return LoadSources(fuzzFile, []SourceFile{{Path: fuzzFile, Content: src}})
}

// outcomeOf renders a load's answer for comparison: the decoded
// experiments as JSON, or the problems.
func outcomeOf(def *Definition, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	b, jerr := json.Marshal(def.Experiments)
	if jerr != nil {
		return "unmarshalable definition: " + jerr.Error()
	}
	return string(b)
}

// checkDefinition fails on an accepted definition that holds a value the
// schema rules out: the loader must have refused it.
func checkDefinition(t *testing.T, def *Definition) {
	t.Helper()
	if def == nil || len(def.Experiments) == 0 {
		t.Fatalf("no error and no experiment")
	}
	bad := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("accepted an invalid definition: "+format, args...)
	}
	inSet := func(v string, set ...string) bool {
		for _, s := range set {
			if v == s {
				return true
			}
		}
		return false
	}
	for i, e := range def.Experiments {
		if !NameRE.MatchString(e.Name) {
			bad("experiment name %q", e.Name)
		}
		if i > 0 && def.Experiments[i-1].Name >= e.Name {
			bad("experiments not sorted: %q before %q", def.Experiments[i-1].Name, e.Name)
		}
		if p := e.Pos(); p.File != fuzzFile || p.Line < 1 {
			bad("experiment %q has no position in %s: %+v", e.Name, fuzzFile, p)
		}
		for _, b := range e.Batches {
			where := e.Name + ".batches." + b.Name
			switch {
			case !NameRE.MatchString(b.Name):
				bad("batch name %q", where)
			case b.Repeats < 1 || b.Repeats > 100:
				bad("%s: repeats %d", where, b.Repeats)
			case b.ColdStarts < 0 || b.ColdStarts > 20:
				bad("%s: coldStarts %d", where, b.ColdStarts)
			case b.Processors < 0 || b.Processors > 4096:
				bad("%s: processors %d", where, b.Processors)
			case b.Seed < 0:
				bad("%s: seed %d", where, b.Seed)
			case !inSet(b.Order, "sequential", "interleaved", "random"):
				bad("%s: order %q", where, b.Order)
			case !cpuSetRE.MatchString(b.CPULists.Target) || !cpuSetRE.MatchString(b.CPULists.Loadgen) ||
				(b.CPULists.Services != "" && !cpuSetRE.MatchString(b.CPULists.Services)):
				bad("%s: placement %+v", where, b.CPULists)
			case b.Fairness.Noise < 0 || b.Fairness.Noise >= 1:
				bad("%s: fairness noise %v", where, b.Fairness.Noise)
			case b.Windows.Measure < 0 || b.Windows.Warmup < 0 || b.Windows.ServiceWarmup < 0 ||
				b.Windows.DiscardHead < 0 || b.Windows.ReadyTimeout < 0 || b.Sampling.Interval < 0 || b.Sampling.IdleAfter < 0:
				bad("%s: negative window %+v %+v", where, b.Windows, b.Sampling)
			}
			if b.Baseline != "" && !NameRE.MatchString(b.Baseline) {
				bad("%s: baseline %q", where, b.Baseline)
			}
			w := b.Workload
			if !inSet(w.Request.Method, "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS") {
				bad("%s: method %q", where, w.Request.Method)
			}
			if !strings.HasPrefix(w.Request.Path, "/") {
				bad("%s: path %q", where, w.Request.Path)
			}
			if w.Connections < 1 || w.Connections > 100000 || w.Timeout < 0 {
				bad("%s: connections %d timeout %s", where, w.Connections, w.Timeout)
			}
			for _, c := range w.Concurrency {
				if c < 1 || c > 100000 {
					bad("%s: concurrency %d", where, c)
				}
			}
			for _, p := range w.Payload {
				if p < 0 {
					bad("%s: payload %d", where, p)
				}
			}
			for _, r := range w.Rate {
				if (r.PerSecond > 0) == (r.PeakFraction > 0) || r.PerSecond < 0 || r.PeakFraction < 0 {
					bad("%s: rate %+v", where, r)
				}
			}
			procs := make([]*Process, 0, len(b.Targets)+len(b.Services))
			for _, tg := range b.Targets {
				procs = append(procs, &tg.Process)
			}
			for _, s := range b.Services {
				procs = append(procs, &s.Process)
			}
			for _, p := range procs {
				if !NameRE.MatchString(p.Name) || !inSet(p.Kind, "go", "jvm", "native", "process") || p.Port < 1 || p.Port > 65535 {
					bad("%s: process %q kind %q port %d", where, p.Name, p.Kind, p.Port)
				}
			}
		}
	}
}
