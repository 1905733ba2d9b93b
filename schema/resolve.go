package schema

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"yardstick/pipeline"
)

// Knob names, in the order variant axes multiply and labels read.
const (
	KnobGoMaxProcs = "gomaxprocs"
	KnobGoMemLimit = "gomemlimit"
	KnobGoGC       = "gogc"
	KnobGC         = "gc"
	KnobHeap       = "heap"
	KnobProcessors = "processors"
	KnobFlags      = "flags"
	// KnobCPUs and KnobMemory are limits.cpus and limits.memory, knobs of
	// every kind.
	KnobCPUs   = "cpus"
	KnobMemory = "memory"
)

// KnobNames lists every knob name, for include/exclude keys.
var KnobNames = []string{KnobGoMaxProcs, KnobGoMemLimit, KnobGoGC, KnobGC, KnobHeap, KnobProcessors, KnobFlags, KnobCPUs, KnobMemory}

// GCFlags maps the gc knob to the HotSpot flag that selects it.
var GCFlags = map[string]string{
	"G1":         "-XX:+UseG1GC",
	"ZGC":        "-XX:+UseZGC",
	"Parallel":   "-XX:+UseParallelGC",
	"Serial":     "-XX:+UseSerialGC",
	"Shenandoah": "-XX:+UseShenandoahGC",
}

// Processors returns the batch's processor budget: its declared processors,
// else the size of the target CPU set (0 if its list did not parse).
func Processors(b *Batch) int {
	if b.Processors > 0 {
		return b.Processors
	}
	return len(b.Placement.Target)
}

// A KnobAxis is one knob of a target with its values: a fixed knob has
// one value, a variant axis (List) several.
type KnobAxis struct {
	Knob   string
	Values []string
	List   bool // given as a list: a variant axis, named in the label
}

// Axes lists a target's set knobs in KnobNames order with their values;
// named flag sets are the flags knob's values.
func Axes(t *Target) []KnobAxis {
	var out []KnobAxis
	add := func(name string, a Axis) {
		if a.Set() {
			out = append(out, KnobAxis{name, a.Values, a.List})
		}
	}
	switch t.Kind {
	case "go":
		add(KnobGoMaxProcs, t.GoMaxProcs)
		add(KnobGoMemLimit, t.GoMemLimit)
		add(KnobGoGC, t.GoGC)
	case "jvm":
		add(KnobGC, t.GC)
		add(KnobHeap, t.Heap)
		add(KnobProcessors, t.Processors)
		if len(t.Flags.Sets) > 0 && t.Flags.List {
			var names []string
			for _, s := range t.Flags.Sets {
				names = append(names, s.Name)
			}
			out = append(out, KnobAxis{KnobFlags, names, true})
		}
	}
	if t.Limits != nil {
		cpus := Axis{Values: slices.Clone(t.Limits.CPUs.Values), List: t.Limits.CPUs.List}
		for i, c := range cpus.Values {
			cpus.Values[i] = canonicalCPUs(c)
		}
		add(KnobCPUs, cpus)
		add(KnobMemory, t.Limits.Memory)
	}
	return out
}

// Variants resolves every variant of target t in batch b: the product of
// its list-valued knobs, in declaration order of the lists.
func Variants(b *Batch, t *Target) []pipeline.Variant {
	axes := Axes(t)
	listed := map[string]bool{}
	combos := [][]pipeline.Knob{nil}
	for _, a := range axes {
		listed[a.Knob] = a.List
		var next [][]pipeline.Knob
		for _, c := range combos {
			for _, v := range a.Values {
				next = append(next, append(slices.Clone(c), pipeline.Knob{Name: a.Knob, Value: v}))
			}
		}
		combos = next
	}
	out := make([]pipeline.Variant, 0, len(combos))
	for _, knobs := range combos {
		out = append(out, resolveVariant(b, t, knobs, listed))
	}
	return out
}

// resolveVariant resolves one combination of knob values; listed names the
// knobs that are variant axes.
func resolveVariant(b *Batch, t *Target, knobs []pipeline.Knob, listed map[string]bool) pipeline.Variant {
	knob := func(name string) string {
		for _, k := range knobs {
			if k.Name == name {
				return k.Value
			}
		}
		return ""
	}
	procs := Processors(b)
	v := pipeline.Variant{Target: t.Name, Processors: procs}
	v.Limits = resolveLimits(t, knob(KnobCPUs), knob(KnobMemory))
	quota := quotaDefault(b, t.Kind, v.Limits) // limits.go
	v.Process = resolveProcess(&t.Process)
	label := []string{t.Name}
	for _, k := range knobs {
		if listed[k.Name] {
			v.Axes = append(v.Axes, k.Name)
			label = append(label, labelPart(k))
		}
	}
	v.Label = strings.Join(label, "-")
	env := maps.Clone(t.Env)
	if env == nil {
		env = map[string]string{}
	}
	switch t.Kind {
	case "go":
		if p := knob(KnobGoMaxProcs); p != "" {
			v.Processors, _ = strconv.Atoi(p)
		} else if quota > 0 {
			v.Processors = quota
		} else if procs > 0 {
			knobs = append(knobs, pipeline.Knob{Name: KnobGoMaxProcs, Value: strconv.Itoa(procs)})
		}
		if v.Processors > 0 && (quota == 0 || knob(KnobGoMaxProcs) != "") {
			env["GOMAXPROCS"] = strconv.Itoa(v.Processors)
		}
		if m := knob(KnobGoMemLimit); m != "" {
			env["GOMEMLIMIT"] = m
		}
		if g := knob(KnobGoGC); g != "" {
			env["GOGC"] = g
		}
		if t.GCLog {
			env["GODEBUG"] = appendGodebug(env["GODEBUG"], "gctrace=1")
			v.GCLog = "gctrace"
		}
	case "jvm":
		flagProcs := 0
		if p := knob(KnobProcessors); p != "" {
			v.Processors, _ = strconv.Atoi(p)
			flagProcs = v.Processors
		} else if quota > 0 {
			v.Processors = quota
		} else if procs > 0 {
			knobs = append(knobs, pipeline.Knob{Name: KnobProcessors, Value: strconv.Itoa(procs)})
			flagProcs = procs
		}
		v.Argv = jvmArgv(t, knob(KnobGC), knob(KnobHeap), flagProcs, knob(KnobFlags))
		v.Argv = withViewFlag(t, v.Limits, v.Argv) // limits.go
		if t.GCLog {
			v.GCLog = "file"
		}
	default:
		// native and process targets see the CPU set they are pinned to.
		if len(b.Placement.Target) > 0 {
			v.Processors = len(b.Placement.Target)
		}
	}
	slices.SortStableFunc(knobs, func(a, b pipeline.Knob) int { return slices.Index(KnobNames, a.Name) - slices.Index(KnobNames, b.Name) })
	v.Knobs = knobs
	v.Env = envList(env, t.Port)
	v.Argv = substitutePort(v.Argv, t.Port)
	return v
}

// resolveProcess resolves what every kind shares: the command, the
// environment as given, and the rest as written.
func resolveProcess(p *Process) pipeline.Process {
	return pipeline.Process{
		Name:             p.Name,
		Kind:             p.Kind,
		Argv:             substitutePort(slices.Clone(p.Cmd), p.Port),
		Env:              envList(p.Env, p.Port),
		Dir:              p.Dir,
		Port:             p.Port,
		Ready:            p.Ready,
		Build:            slices.Clone(p.Build),
		EventLoopThreads: p.EventLoopThreads,
		AccessLog:        p.AccessLog,
	}
}

// Resolve resolves a batch helper into the process the executor starts.
func (s *Service) Resolve() pipeline.Process { return resolveProcess(&s.Process) }

// jvmArgv builds the java command line from the typed knobs. Heap sets both
// -Xms and -Xmx, so the heap is explicit and does not grow during a window.
func jvmArgv(t *Target, gc, heap string, procs int, flagSet string) []string {
	java := t.Java
	if java == "" {
		java = "java"
	}
	argv := []string{java}
	if heap != "" {
		argv = append(argv, "-Xms"+heap, "-Xmx"+heap)
	}
	if gc != "" {
		argv = append(argv, GCFlags[gc])
	}
	if procs > 0 {
		argv = append(argv, "-XX:ActiveProcessorCount="+strconv.Itoa(procs))
	}
	for _, s := range t.Flags.Sets {
		if !t.Flags.List || s.Name == flagSet {
			argv = append(argv, s.Flags...)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(t.Properties)) {
		argv = append(argv, "-D"+k+"="+t.Properties[k])
	}
	if t.GCLog {
		argv = append(argv, "-Xlog:gc*:file="+pipeline.GCLogPlaceholder)
	}
	switch {
	case t.Jar != "":
		argv = append(argv, "-jar", t.Jar)
	case t.MainClass != "":
		if len(t.Classpath) > 0 {
			argv = append(argv, "-cp", strings.Join(t.Classpath, ":"))
		}
		argv = append(argv, t.MainClass)
	}
	return append(argv, t.Args...)
}

func appendGodebug(cur, add string) string {
	if cur == "" {
		return add
	}
	return cur + "," + add
}

// envList turns a map into sorted KEY=value strings, with {port} replaced.
func envList(env map[string]string, port int) []string {
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+strings.ReplaceAll(env[k], pipeline.PortPlaceholder, strconv.Itoa(port)))
	}
	return out
}

func substitutePort(argv []string, port int) []string {
	p := strconv.Itoa(port)
	for i, a := range argv {
		argv[i] = strings.ReplaceAll(a, pipeline.PortPlaceholder, p)
	}
	return argv
}

// labelPart is how a knob value reads in a variant label: GC names and
// heap sizes as they are, numbers with their knob's short name.
func labelPart(k pipeline.Knob) string {
	v := strings.ToLower(k.Value)
	switch k.Name {
	case KnobGC, KnobHeap, KnobFlags:
		return v
	case KnobGoMaxProcs, KnobProcessors:
		return "p" + v
	case KnobGoMemLimit:
		return "mem" + v
	case KnobGoGC:
		return "gogc" + v
	case KnobCPUs:
		return "cpus" + v
	case KnobMemory:
		return "lim" + v
	}
	return fmt.Sprintf("%s%s", k.Name, v)
}
