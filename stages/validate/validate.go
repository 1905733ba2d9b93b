// Package validate is the validate stage: it loads a definition against the
// embedded schema and runs the static fairness checks that CUE cannot
// express with good positions (one function per check in checks.go).
//
// It is pure: it reads the definition's files and this machine's CPU count,
// and runs nothing the definition names.
package validate

import (
	"fmt"
	"io"
	"runtime"
	"sort"

	"yardstick/schema"
)

// Severity says whether a finding makes the definition invalid.
type Severity int

const (
	// Error makes the definition invalid.
	Error Severity = iota
	// Warning is reported but the definition stays valid.
	Warning
)

// A Finding is one problem, at a position in the user's files.
type Finding struct {
	Pos      schema.Pos
	Severity Severity
	// Check names the check that found it ("schema" for CUE's own).
	Check string
	Msg   string
}

func (f Finding) String() string {
	s := f.Msg
	if f.Severity == Warning {
		s = "warning: " + s
	}
	if f.Pos.IsValid() {
		s = f.Pos.String() + ": " + s
	}
	return s
}

// Result is what validating one definition gives.
type Result struct {
	Definition *schema.Definition // nil when the files do not evaluate
	Findings   []Finding
}

// Valid reports whether no finding is an error.
func (r *Result) Valid() bool {
	for _, f := range r.Findings {
		if f.Severity == Error {
			return false
		}
	}
	return true
}

// Machine is what the checks know of the machine they run on.
type Machine struct {
	// CPUs is the number of CPUs; CPU sets that name a higher CPU get a
	// warning (plans are reviewed on laptops).
	CPUs int
}

// ThisMachine describes the machine validate runs on.
func ThisMachine() Machine { return Machine{CPUs: runtime.NumCPU()} }

// Load loads the definition named by arg (relative to wd) and checks it.
// An error is returned only when the files cannot be read; problems with
// their content are findings.
func Load(wd, arg string, m Machine) (*Result, error) {
	def, err := schema.Load(wd, arg)
	if err != nil {
		probs, ok := err.(schema.Problems)
		if !ok {
			return nil, err
		}
		return &Result{Findings: fromProblems(probs)}, nil
	}
	return &Result{Definition: def, Findings: Check(def, m)}, nil
}

func fromProblems(ps schema.Problems) []Finding {
	out := make([]Finding, len(ps))
	for i, p := range ps {
		msg := p.Msg
		if p.Path != "" {
			msg = p.Path + ": " + msg
		}
		out[i] = Finding{Pos: p.Pos, Severity: Error, Check: "schema", Msg: msg}
	}
	return out
}

// Check runs every static check on a decoded definition.
func Check(def *schema.Definition, m Machine) []Finding {
	var fs []Finding
	for _, e := range def.Experiments {
		for _, b := range e.Batches {
			c := &checker{e: e, b: b, m: m}
			for _, check := range batchChecks {
				check(c)
			}
			fs = append(fs, c.findings...)
		}
	}
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Pos != fs[j].Pos {
			return fs[i].Pos.Less(fs[j].Pos)
		}
		return fs[i].Msg < fs[j].Msg
	})
	return fs
}

// Print writes findings one per line.
func Print(w io.Writer, fs []Finding) {
	for _, f := range fs {
		fmt.Fprintln(w, f.String())
	}
}
