// Package validate is the validate stage: it loads a definition against the
// embedded schema and runs the static fairness checks that CUE cannot
// express with good positions (one function per check in checks.go).
//
// It is pure: it reads the definition's files and this machine's CPU count,
// ephemeral port range and descriptor limit, and runs nothing the
// definition names.
package validate

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sort"
	"time"

	"yardstick/loadgen"
	"yardstick/pipeline/safetext"
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
	// EphemeralPorts is the size of the ephemeral port range of one
	// source address (net.ipv4.ip_local_port_range); 0 if unknown.
	EphemeralPorts int
	// NoFileHard is the hard RLIMIT_NOFILE processes start with here, and
	// NoFileRaisable whether a process may raise it (CAP_SYS_RESOURCE);
	// NoFileHard 0 if unknown.
	NoFileHard     uint64
	NoFileRaisable bool
}

// ThisMachine describes the machine validate runs on.
func ThisMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), EphemeralPorts: ephemeralPorts()}
	m.NoFileHard, m.NoFileRaisable = loadgen.NoFileLimit()
	return m
}

// Defaults of Options.
const (
	// DefaultMaxCells is the cell cap of one experiment: generous for a
	// real study (hours of cells), small enough that a matrix written by
	// mistake (list.Range over two axes) is refused at once.
	DefaultMaxCells = 100_000
	// DefaultTimeout bounds the evaluation of a definition.
	DefaultTimeout = time.Minute
)

// Options are the machine the checks run against and the limits of a
// definition.
type Options struct {
	Machine Machine
	// MaxCells caps the cells one experiment may plan, counted before its
	// include and exclude rules; 0 means DefaultMaxCells.
	MaxCells int
	// Timeout bounds the CUE evaluation; 0 means DefaultTimeout.
	Timeout time.Duration
	// Tags are injected into the fields marked @tag (-t key=value).
	Tags []schema.Tag
	// Memory bounds the heap of the evaluation and the checks, in bytes;
	// 0 means DefaultMemory.
	Memory int64
}

func (o Options) memory() int64 {
	if o.Memory > 0 {
		return o.Memory
	}
	return DefaultMemory
}

func (o Options) maxCells() int {
	if o.MaxCells > 0 {
		return o.MaxCells
	}
	return DefaultMaxCells
}

// Deadline bounds ctx by the evaluation timeout of o, with a cause that
// names the flag that raises it. Load applies it; a caller that does more
// with the definition under the same deadline (plan expands it) applies it
// around both.
func Deadline(ctx context.Context, o Options) (context.Context, context.CancelFunc) {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return context.WithTimeoutCause(ctx, timeout, fmt.Errorf("gave up after %s (raise it with --eval-timeout)", timeout))
}

// Load loads the definition named by arg (relative to wd) and checks it.
// An error is returned only when the files cannot be read or the
// evaluation or the checks are interrupted (ctx), time out or exceed the
// memory bound; problems with their content are findings.
func Load(ctx context.Context, wd, arg string, o Options) (*Result, error) {
	return load(ctx, arg, o, func(ctx context.Context) (*schema.Definition, error) {
		return schema.LoadContext(ctx, wd, arg, o.Tags)
	})
}

// LoadSources is Load on a definition given as its files' contents (diff
// --base reads them from git): it touches no file.
func LoadSources(ctx context.Context, arg string, srcs []schema.SourceFile, o Options) (*Result, error) {
	return load(ctx, arg, o, func(ctx context.Context) (*schema.Definition, error) {
		return schema.LoadSourcesContext(ctx, arg, srcs, o.Tags)
	})
}

func load(ctx context.Context, arg string, o Options, eval func(context.Context) (*schema.Definition, error)) (*Result, error) {
	ctx, cancel := Deadline(ctx, o)
	defer cancel()
	ctx, stop := watchMemory(ctx, o.memory())
	defer stop()
	def, err := eval(ctx)
	if err != nil {
		probs, ok := err.(schema.Problems)
		if !ok {
			return nil, err
		}
		return &Result{Findings: fromProblems(probs)}, nil
	}
	fs, err := Check(ctx, def, o)
	if err != nil {
		return nil, fmt.Errorf("check %s: %w", arg, err)
	}
	return &Result{Definition: def, Findings: fs}, nil
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

// Check runs every static check on a decoded definition. An experiment
// over the cell cap gets that one finding: its other checks would expand
// the matrix that the cap refuses. It returns ctx's cause when ctx ends
// before the checks do.
func Check(ctx context.Context, def *schema.Definition, o Options) ([]Finding, error) {
	var fs []Finding
	for _, e := range def.Experiments {
		if f, over := checkCap(e, o.maxCells()); over {
			fs = append(fs, f)
			continue
		}
		for _, b := range e.Batches {
			c := &checker{ctx: ctx, e: e, b: b, m: o.Machine}
			for _, check := range batchChecks {
				check(c)
				if c.err != nil {
					return nil, c.err
				}
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
	return fs, nil
}

// checkCap counts an experiment's cells from its axes' lengths, before
// anything is expanded, and refuses more than limit.
func checkCap(e *schema.Experiment, limit int) (Finding, bool) {
	total := 0
	for _, b := range e.Batches {
		total = min(total+schema.CellBound(b, limit), limit+1)
	}
	if total <= limit {
		return Finding{}, false
	}
	return Finding{
		Pos: e.Pos("batches"), Severity: Error, Check: "matrix",
		Msg: fmt.Sprintf("experiment %s: more than %d cells (variants x points x repeats, before include/exclude); split it, or raise the cap with --max-cells", e.Name, limit),
	}, true
}

// Print writes findings one per line, each escaped for its line
// (safetext.Line): a finding quotes the definition, its file names and
// CUE's messages about them, none of which may add a line.
func Print(w io.Writer, fs []Finding) {
	for _, f := range fs {
		fmt.Fprintln(w, safetext.Line(f.String()))
	}
}
