package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"cuelang.org/go/cue"

	"yardstick/pipeline"
)

// The Go side of yardstick.cue. Field names follow the CUE names; maps in
// CUE become slices sorted by name here, so that everything derived from a
// definition is independent of the order fields were written in.

// An Experiment is one top-level experiment of a definition.
type Experiment struct {
	Name        string
	Description string
	// Question is the study's question, answered on the report's first
	// screen; nil when the experiment asks none.
	Question *pipeline.Question
	Batches  []*Batch // sorted by name

	raw cue.Value // the user's own value, for positions
}

// Pos returns the position in the user's files of the field at path below
// the experiment (e.g. "batches", "main", "placement", "target"), or of its
// nearest enclosing field that the user wrote.
func (e *Experiment) Pos(path ...string) Pos {
	if p := lookupPos(e.raw, path); p.IsValid() {
		return p
	}
	return posOf(e.raw.Pos())
}

// CPULists are a batch's placement CPU lists as written ("0,1"); the
// plan holds them as sets (pipeline.Placement), in one compact spelling.
type CPULists struct {
	Target, Services, Loadgen string
}

// List returns the list of a placement role (pipeline.RoleTarget, ...),
// "" when the role has none.
func (l CPULists) List(role string) string {
	switch role {
	case pipeline.RoleTarget:
		return l.Target
	case pipeline.RoleServices:
		return l.Services
	case pipeline.RoleLoadgen:
		return l.Loadgen
	}
	return ""
}

// A Batch is a batch as declared: a self-contained comparison, as the
// definition writes it (pipeline.Batch is the batch resolved).
type Batch struct {
	Name        string
	Description string
	Targets     []*Target  // sorted by name
	Services    []*Service // sorted by name
	Workload    Workload
	Repeats     int // the most repeats: a plain number, or adaptive's max
	// RepeatsMin and RepeatsBudget are the adaptive repeats' min and
	// budget; 0 for a plain number.
	RepeatsMin    int
	RepeatsBudget pipeline.Duration
	// RepeatsUntil are the metrics whose decisions stop the rounds.
	RepeatsUntil []string
	Windows      pipeline.Windows
	Placement    pipeline.Placement
	Processors   int // 0: not declared
	Fairness     pipeline.Fairness
	Baseline     string
	ColdStarts   int
	Sampling     pipeline.Sampling
	Include      []Match
	Exclude      []Match
	Order        string
	Seed         int64

	// CPULists are placement's CPU lists as the definition wrote them,
	// for validate to parse and quote.
	CPULists CPULists
}

// A Match is one include or exclude rule: keys and the values they must
// have, as canonical strings.
type Match map[string]string

// Workload is the batch's request and its axes.
type Workload struct {
	Request     pipeline.Request
	Payload     []int
	Concurrency []int
	Rate        []Rate
	Connections int
	// Hold, when set, holds connections in steps instead of requests
	// (workload.hold); it takes the place of Concurrency and Rate.
	Hold    *pipeline.Hold
	Timeout pipeline.Duration
}

// A Rate is an open-loop arrival rate: absolute (PerSecond) or a fraction
// of the variant's peak closed-loop throughput (PeakFraction).
type Rate struct {
	PerSecond    float64 `json:"perSecond,omitempty"`
	PeakFraction float64 `json:"peakFraction,omitempty"`
}

// String formats r as written: "2000" or "80%".
func (r Rate) String() string {
	if r.PeakFraction > 0 {
		return strconv.FormatFloat(r.PeakFraction*100, 'f', -1, 64) + "%"
	}
	return strconv.FormatFloat(r.PerSecond, 'f', -1, 64)
}

// UnmarshalJSON reads a number or a "NN%" string. Either must come out
// above 0: "0%", or a rate so small that it rounds to 0, would be no rate.
func (r *Rate) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if len(s) < 2 || s[len(s)-1] != '%' {
			return fmt.Errorf("rate %q: want a number or a percentage such as \"80%%\"", s)
		}
		f, err := strconv.ParseFloat(s[:len(s)-1], 64)
		if err != nil || !(f/100 > 0) {
			return fmt.Errorf("rate %q: want a percentage above 0 such as \"80%%\"", s)
		}
		*r = Rate{PeakFraction: f / 100}
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	if !(f > 0) {
		return fmt.Errorf("rate %s: want a number of requests/s above 0", b)
	}
	*r = Rate{PerSecond: f}
	return nil
}

// Process is what targets and services share.
type Process struct {
	Name             string            `json:"-"`
	Kind             string            `json:"kind"`
	Cmd              []string          `json:"cmd,omitempty"`
	Env              map[string]string `json:"env,omitempty"`
	Port             int               `json:"port"`
	Ready            string            `json:"ready"`
	Build            []string          `json:"build,omitempty"`
	Dir              string            `json:"dir,omitempty"`
	EventLoopThreads string            `json:"eventLoopThreads,omitempty"`
	AccessLog        string            `json:"accessLog,omitempty"`
}

// A Service is a helper started once per batch.
type Service struct {
	Process
}

// A Target is a service under test with its typed knobs. An Axis with List
// set is a variant axis of this target.
type Target struct {
	Process
	// Windows overrides the batch's windows for this target.
	Windows *pipeline.Windows `json:"-"`

	// go
	GoMaxProcs Axis `json:"gomaxprocs"`
	GoMemLimit Axis `json:"gomemlimit"`
	GoGC       Axis `json:"gogc"`

	// jvm
	Java       string            `json:"java,omitempty"`
	Jar        string            `json:"jar,omitempty"`
	MainClass  string            `json:"mainClass,omitempty"`
	Classpath  []string          `json:"classpath,omitempty"`
	Args       []string          `json:"args,omitempty"`
	Heap       Axis              `json:"heap"`
	GC         Axis              `json:"gc"`
	Processors Axis              `json:"processors"`
	Flags      Flags             `json:"flags"`
	Properties map[string]string `json:"properties,omitempty"`

	// go and jvm
	GCLog bool `json:"gcLog"`

	// every kind
	Limits *Limits `json:"limits,omitempty"`
}

// Limits are a target's container limits as declared; CPUs and Memory are
// knobs like the others (a list is a variant axis).
type Limits struct {
	CPUs   Axis   `json:"cpus"`
	Memory Axis   `json:"memory"`
	Period string `json:"period"`
}

// An Axis is a knob's values as canonical strings. A knob given as a scalar
// has one value and List false; a list makes a variant axis.
type Axis struct {
	Values []string
	List   bool
}

// Set reports whether the knob was given at all.
func (a Axis) Set() bool { return len(a.Values) > 0 }

// UnmarshalJSON reads a scalar or a list of scalars.
func (a *Axis) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*a = Axis{}
		return nil
	}
	if len(b) > 0 && b[0] == '[' {
		var raw []json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil {
			return err
		}
		out := Axis{List: true}
		for _, r := range raw {
			s, err := scalar(r)
			if err != nil {
				return err
			}
			out.Values = append(out.Values, s)
		}
		*a = out
		return nil
	}
	s, err := scalar(b)
	if err != nil {
		return err
	}
	*a = Axis{Values: []string{s}}
	return nil
}

func scalar(b []byte) (string, error) {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		return s, nil
	}
	var n json.Number
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&n); err != nil {
		return "", fmt.Errorf("knob value %s: want a string or a number", b)
	}
	return n.String(), nil
}

// Flags are extra JVM flags: one list, or named lists that form a variant
// axis ("aot": [...], "plain": [...]).
type Flags struct {
	Sets []FlagSet // one unnamed set, or named sets sorted by name
	List bool      // named sets: a variant axis
}

// A FlagSet is one named (or unnamed) list of flags.
type FlagSet struct {
	Name  string
	Flags []string
}

// UnmarshalJSON reads a list of strings or an object of lists.
func (f *Flags) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*f = Flags{}
	case len(b) > 0 && b[0] == '[':
		var l []string
		if err := json.Unmarshal(b, &l); err != nil {
			return err
		}
		*f = Flags{Sets: []FlagSet{{Flags: l}}}
	default:
		var m map[string][]string
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		out := Flags{List: true}
		for k, v := range m {
			out.Sets = append(out.Sets, FlagSet{Name: k, Flags: v})
		}
		sort.Slice(out.Sets, func(i, j int) bool { return out.Sets[i].Name < out.Sets[j].Name })
		*f = out
	}
	return nil
}

// NameRE is the spelling of experiment, batch, target and service names
// (#Name in the schema): pipeline's, since names become file names.
var NameRE = pipeline.NameRE

// decodeExperiments fills def from the validated value v; raw is the user's
// own value, used for positions.
func decodeExperiments(v cue.Value, raw *cue.Value, def *Definition) Problems {
	var probs Problems
	it, err := v.Fields() // regular fields only: hidden fields and definitions are helpers
	if err != nil {
		return fromCUE(err, raw)
	}
	for it.Next() {
		name := it.Selector().Unquoted()
		ev := it.Value()
		er := raw.LookupPath(cue.MakePath(cue.Str(name)))
		e, ps := decodeExperiment(name, ev, er)
		probs = append(probs, ps...)
		if e != nil {
			def.Experiments = append(def.Experiments, e)
		}
	}
	sort.Slice(def.Experiments, func(i, j int) bool { return def.Experiments[i].Name < def.Experiments[j].Name })
	return probs
}

// jsonRepeats is repeats: a number, or {min, max, budget}.
type jsonRepeats struct {
	Min, Max int
	Budget   pipeline.Duration
	Until    []string
}

func (r *jsonRepeats) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &r.Max); err == nil {
		return nil
	}
	var a struct {
		Min    int               `json:"min"`
		Max    int               `json:"max"`
		Budget pipeline.Duration `json:"budget"`
		Until  []string          `json:"until"`
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("repeats: want a number or {min, max, budget}: %w", err)
	}
	r.Min, r.Max, r.Budget, r.Until = a.Min, a.Max, a.Budget, a.Until
	return nil
}

// jsonExperiment mirrors #Experiment for decoding.
type jsonExperiment struct {
	Description string               `json:"description"`
	Question    *pipeline.Question   `json:"question"`
	Batches     map[string]jsonBatch `json:"batches"`
}

type jsonBatch struct {
	Description string                       `json:"description"`
	Targets     map[string]*jsonTarget       `json:"targets"`
	Services    map[string]*Service          `json:"services"`
	Workload    jsonWorkload                 `json:"workload"`
	Repeats     jsonRepeats                  `json:"repeats"`
	Windows     jsonWindows                  `json:"windows"`
	Placement   jsonPlacement                `json:"placement"`
	Processors  int                          `json:"processors"`
	Fairness    jsonFairness                 `json:"fairness"`
	Baseline    string                       `json:"baseline"`
	ColdStarts  int                          `json:"coldStarts"`
	Sampling    jsonSampling                 `json:"sampling"`
	Include     []map[string]json.RawMessage `json:"include"`
	Exclude     []map[string]json.RawMessage `json:"exclude"`
	Order       string                       `json:"order"`
	Seed        int64                        `json:"seed"`
}

func decodeExperiment(name string, v, raw cue.Value) (*Experiment, Problems) {
	e := &Experiment{Name: name, raw: raw}
	if !NameRE.MatchString(name) {
		return nil, Problems{{Pos: e.Pos(), Path: name, Msg: "invalid experiment name: use letters, digits, '.', '_' and '-', starting with a letter or digit"}}
	}
	b, err := v.MarshalJSON()
	if err != nil {
		return nil, fromCUE(err, &raw)
	}
	var je jsonExperiment
	if err := json.Unmarshal(b, &je); err != nil {
		return nil, Problems{{Pos: e.Pos(), Path: name, Msg: fmt.Sprintf("decode: %v", err)}}
	}
	e.Description = je.Description
	e.Question = je.Question
	var probs Problems
	for bn, jb := range je.Batches {
		bt := &Batch{
			Name: bn, Description: jb.Description, Workload: jb.Workload.convert(), Repeats: jb.Repeats.Max,
			RepeatsMin: jb.Repeats.Min, RepeatsBudget: jb.Repeats.Budget, RepeatsUntil: jb.Repeats.Until,
			Windows: jb.Windows.convert(), Processors: jb.Processors,
			Fairness: jb.Fairness.convert(), Baseline: jb.Baseline, ColdStarts: jb.ColdStarts,
			Sampling: jb.Sampling.convert(), Order: jb.Order, Seed: jb.Seed,
		}
		bt.Placement, bt.CPULists = jb.Placement.convert()
		for tn, jt := range jb.Targets {
			t := &jt.Target
			t.Name = tn
			if jt.Windows != nil {
				w := jt.Windows.convert()
				t.Windows = &w
			}
			bt.Targets = append(bt.Targets, t)
		}
		sort.Slice(bt.Targets, func(i, j int) bool { return bt.Targets[i].Name < bt.Targets[j].Name })
		for sn, s := range jb.Services {
			s.Name = sn
			bt.Services = append(bt.Services, s)
		}
		sort.Slice(bt.Services, func(i, j int) bool { return bt.Services[i].Name < bt.Services[j].Name })
		for i, m := range jb.Include {
			mm, err := decodeMatch(m)
			if err != nil {
				probs = append(probs, Problem{Pos: e.Pos("batches", bn, "include", strconv.Itoa(i)), Msg: err.Error()})
			}
			bt.Include = append(bt.Include, mm)
		}
		for i, m := range jb.Exclude {
			mm, err := decodeMatch(m)
			if err != nil {
				probs = append(probs, Problem{Pos: e.Pos("batches", bn, "exclude", strconv.Itoa(i)), Msg: err.Error()})
			}
			bt.Exclude = append(bt.Exclude, mm)
		}
		e.Batches = append(e.Batches, bt)
	}
	sort.Slice(e.Batches, func(i, j int) bool { return e.Batches[i].Name < e.Batches[j].Name })
	return e, probs
}

func decodeMatch(m map[string]json.RawMessage) (Match, error) {
	out := Match{}
	for k, r := range m {
		s, err := scalar(r)
		if err != nil {
			return nil, fmt.Errorf("rule key %s: %v", k, err)
		}
		out[k] = s
	}
	return out, nil
}
