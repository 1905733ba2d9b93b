package validate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"yardstick/pipeline"

	"yardstick/pipeline/cpuset"
	"yardstick/schema"
)

// checker carries one batch through the checks.
type checker struct {
	ctx      context.Context
	err      error // ctx ended during a check: the findings are incomplete
	e        *schema.Experiment
	b        *schema.Batch
	m        Machine
	findings []Finding
}

// pos returns the position of a field below the batch.
func (c *checker) pos(path ...string) schema.Pos {
	return c.e.Pos(append([]string{"batches", c.b.Name}, path...)...)
}

func (c *checker) add(sev Severity, check string, pos schema.Pos, format string, args ...any) {
	c.findings = append(c.findings, Finding{
		Pos:      pos,
		Severity: sev,
		Check:    check,
		Msg:      fmt.Sprintf("batch %s: ", c.b.Name) + fmt.Sprintf(format, args...),
	})
}

// batchChecks run in this order on every batch.
var batchChecks = []func(*checker){
	checkNames,
	checkDuplicates,
	checkBaseline,
	checkPlacement,
	checkShares,
	checkProcessors,
	checkLimits,
	checkKinds,
	checkHeaps,
	checkWindows,
	checkWorkload,
	checkReady,
	checkEventLoops,
	checkPorts,
	checkMatrix,
}

// checkNames: target and service names are unique inside the batch, and
// so are the cell names their variants produce.
func checkNames(c *checker) {
	targets := map[string]bool{}
	for _, t := range c.b.Targets {
		targets[t.Name] = true
	}
	for _, s := range c.b.Services {
		if targets[s.Name] {
			c.add(Error, "names", c.pos("services", s.Name), "service %s has the name of a target; names must be unique in a batch", s.Name)
		}
	}
	// Labels name cells, start directories and report rows, and are
	// compared ignoring case: "jvm-AOT" and "jvm-aot" would share files on
	// some file systems and one row in a case-insensitive reader.
	type owner struct{ target, label string }
	labels := map[string]owner{}
	for _, t := range c.b.Targets {
		for _, v := range schema.Variants(c.b, t) {
			if pipeline.CheckLabel(v.Label) != nil {
				c.add(Error, "names", c.pos("targets", t.Name), "target %s: variant label %q is not a plain name; the values of a varied knob (and flag-set names) may use letters, digits and . _ - %% + = , : @, 200 characters at most", t.Name, v.Label)
				continue
			}
			key := strings.ToLower(v.Label)
			o, dup := labels[key]
			switch {
			case dup && o.label == v.Label && o.target != t.Name:
				c.add(Error, "names", c.pos("targets", t.Name), "target %s has a variant named %s, the same as a variant of target %s; rename one of them", t.Name, v.Label, o.target)
				continue
			case dup && o.label != v.Label:
				c.add(Error, "names", c.pos("targets", t.Name), "target %s has a variant named %s, the same as variant %s of target %s when case is ignored; rename one of them", t.Name, v.Label, o.label, o.target)
				continue
			}
			labels[key] = owner{t.Name, v.Label}
		}
	}
}

// checkDuplicates: no axis repeats a value (a repeated value would plan
// the same cell twice under one id). Knob values and flag-set names are
// compared ignoring case, as labels are ("512m" and "512M" are one heap).
func checkDuplicates(c *checker) {
	dup := func(values []string, fold bool, path ...string) {
		seen := map[string]int{}
		for i, v := range values {
			key := v
			if fold {
				key = strings.ToLower(v)
			}
			if first, ok := seen[key]; ok {
				c.add(Error, "duplicates", c.pos(append(path, strconv.Itoa(i))...), "%s[%d] repeats %q (element %d is %q); each value of an axis must be distinct", strings.Join(path, "."), i, v, first, values[first])
				continue
			}
			seen[key] = i
		}
	}
	wl := c.b.Workload
	dup(intStrings(wl.Payload), false, "workload", "payload")
	dup(intStrings(wl.Concurrency), false, "workload", "concurrency")
	var rates []string
	for _, r := range wl.Rate {
		rates = append(rates, r.String())
	}
	dup(rates, false, "workload", "rate")
	for _, t := range c.b.Targets {
		for _, a := range schema.Axes(t) {
			if a.List && a.Knob != schema.KnobFlags {
				dup(a.Values, true, "targets", t.Name, a.Knob)
			}
		}
		if t.Flags.List {
			seen := map[string]string{}
			for _, fs := range t.Flags.Sets {
				if first, ok := seen[strings.ToLower(fs.Name)]; ok {
					c.add(Error, "duplicates", c.pos("targets", t.Name, "flags", fs.Name), "targets.%s.flags: set %q has the name of set %q when case is ignored; variant labels would collide", t.Name, fs.Name, first)
					continue
				}
				seen[strings.ToLower(fs.Name)] = fs.Name
			}
		}
	}
}

func intStrings(xs []int) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Itoa(x)
	}
	return out
}

// checkBaseline: the baseline names a target of the batch; adaptive
// repeats, which stop once the comparisons against it are decided, need
// one.
func checkBaseline(c *checker) {
	if c.b.Baseline == "" {
		if c.b.RepeatsMin > 0 {
			c.add(Error, "baseline", c.pos("repeats"), "repeats {min, max} run until the comparisons against the baseline are decided: declare a baseline")
		}
		return
	}
	for _, t := range c.b.Targets {
		if t.Name == c.b.Baseline {
			return
		}
	}
	c.add(Error, "baseline", c.pos("baseline"), "baseline %q is not a target of this batch (targets: %s)", c.b.Baseline, strings.Join(targetNames(c.b), ", "))
}

func targetNames(b *schema.Batch) []string {
	var out []string
	for _, t := range b.Targets {
		out = append(out, t.Name)
	}
	return out
}

// checkPlacement: CPU sets parse, are pairwise disjoint, exist on this
// machine (a warning otherwise), and services have a set of their own.
func checkPlacement(c *checker) {
	type named struct {
		role string
		spec string
		set  cpuset.Set
	}
	var sets []named
	for _, r := range []struct{ role, spec string }{
		{"target", c.b.CPULists.Target},
		{"services", c.b.CPULists.Services},
		{"loadgen", c.b.CPULists.Loadgen},
	} {
		if r.spec == "" {
			continue
		}
		s, err := cpuset.Parse(r.spec)
		if err != nil {
			c.add(Error, "placement", c.pos("placement", r.role), "placement.%s: %v", r.role, err)
			continue
		}
		sets = append(sets, named{r.role, r.spec, s})
		if c.m.CPUs > 0 && s.Max() >= c.m.CPUs {
			c.add(Warning, "placement", c.pos("placement", r.role), "placement.%s %s names CPU %d, but this machine has %d CPUs (0-%d); the plan can be reviewed here but not run", r.role, r.spec, s.Max(), c.m.CPUs, c.m.CPUs-1)
		}
	}
	for i := range sets {
		for j := i + 1; j < len(sets); j++ {
			if both := sets[i].set.Intersect(sets[j].set); len(both) > 0 && !c.b.Placement.Shares(sets[i].role, sets[j].role) {
				c.add(Error, "placement", c.pos("placement", sets[j].role), "CPU sets overlap: placement.%s %s and placement.%s %s share CPU %s; the target, its services and the load generator must not share cores (on a machine too small for disjoint sets, declare it: placement.share)",
					sets[i].role, sets[i].spec, sets[j].role, sets[j].spec, both)
			}
		}
	}
	if len(c.b.Services) > 0 && c.b.CPULists.Services == "" {
		c.add(Error, "placement", c.pos("placement"), "services %s need a CPU set of their own: add placement.services", strings.Join(serviceNames(c.b), ", "))
	}
	if c.b.Placement.TwoHost() {
		c.add(Warning, "placement", c.pos("placement", "hosts"), "placement.hosts \"separate\": the load generator runs on another host than the target and its services; "+
			"run needs the hosts: --target-host and --loadgen-host (local, netns:NAME or srun:N) and --target-addr (the target host's address; "+
			"derived from the node in a Slurm job), else the batch fails at its start; load goes only to that address")
	}
}

func serviceNames(b *schema.Batch) []string {
	var out []string
	for _, s := range b.Services {
		out = append(out, s.Name)
	}
	return out
}

// checkProcessors: every variant sees the same processor count, equal to
// the batch's budget and to the size of the target CPU set.
func checkProcessors(c *checker) {
	set := c.b.Placement.Target
	if len(set) == 0 {
		return // its list did not parse: reported by checkPlacement
	}
	if c.b.Processors > 0 && c.b.Processors != len(set) {
		c.add(Error, "processors", c.pos("processors"), "processors is %d but placement.target %s has %d CPU(s); the processor budget and the CPU set must agree", c.b.Processors, c.b.CPULists.Target, len(set))
	}
	for _, t := range c.b.Targets {
		for _, v := range schema.Variants(c.b, t) {
			if v.Processors == quotaProcessors(t.Kind, &v, len(set)) || v.Limits != nil && v.Limits.CPUs > 0 {
				continue // under a quota: checkLimits
			}
			var knob, path string
			switch t.Kind {
			case "go":
				knob, path = "GOMAXPROCS", schema.KnobGoMaxProcs
			case "jvm":
				knob, path = "-XX:ActiveProcessorCount", schema.KnobProcessors
			}
			c.add(Error, "processors", c.pos("targets", t.Name, path), "processors differ: %s runs with %s=%d but placement.target %s has %d CPU(s); every target of a batch must see the same processor count",
				v.Label, knob, v.Processors, c.b.CPULists.Target, len(set))
		}
	}
}

// knobFlags are JVM flags that typed knobs own: giving them in flags would
// silently override (or be overridden by) the knob.
var knobFlags = []struct{ prefix, knob string }{
	{"-Xmx", "heap"}, {"-Xms", "heap"}, {"-XX:MaxRAMPercentage", "heap"},
	{"-XX:InitialRAMPercentage", "heap"}, {"-XX:MinRAMPercentage", "heap"}, {"-XX:MaxHeapSize", "heap"},
	{"-XX:InitialHeapSize", "heap"},
	{"-XX:ActiveProcessorCount", "processors"},
}

// gcSelectFlags are HotSpot's flags that select (or deselect) a garbage
// collector: the gc knob owns them. Other -XX:+Use... flags
// (UseTransparentHugePages, UseCompressedOops, UseNUMA, UseLargePages,
// UseStringDeduplication, UseCompactObjectHeaders, ...) are not GC
// selectors and are the user's to set.
var gcSelectFlags = []string{
	"UseSerialGC", "UseParallelGC", "UseParallelOldGC", "UseG1GC", "UseZGC", "ZGenerational",
	"UseShenandoahGC", "UseEpsilonGC", "UseConcMarkSweepGC",
}

// optionFiles are JVM flags that read further options from a file: any
// knob could be set there, out of validate's sight.
var optionFiles = []struct{ prefix, what string }{
	{"@", "a java launcher argument file"},
	{"-XX:VMOptionsFile=", "a VM options file"},
	{"-XX:Flags=", "a VM flags file"},
}

// optionFile returns what the JVM flag f reads options from, or "".
func optionFile(f string) string {
	for _, of := range optionFiles {
		if strings.HasPrefix(f, of.prefix) {
			return of.what
		}
	}
	return ""
}

// ownedFlag returns the knob that owns the JVM flag f, or "".
func ownedFlag(f string) string {
	for _, kf := range knobFlags {
		if strings.HasPrefix(f, kf.prefix) {
			return kf.knob
		}
	}
	if name, ok := strings.CutPrefix(f, "-XX:"); ok && len(name) > 0 && (name[0] == '+' || name[0] == '-') {
		if slices.Contains(gcSelectFlags, name[1:]) {
			return "gc"
		}
	}
	return ""
}

// knobEnv are environment variables that typed knobs own.
var knobEnv = map[string]map[string]string{
	"go":  {"GOMAXPROCS": "gomaxprocs", "GOMEMLIMIT": "gomemlimit", "GOGC": "gogc"},
	"jvm": {"JAVA_TOOL_OPTIONS": "flags", "_JAVA_OPTIONS": "flags", "JDK_JAVA_OPTIONS": "flags"},
}

// checkKinds: each kind has what it needs to start, and knobs are not
// set behind their back through flags or the environment.
func checkKinds(c *checker) {
	for _, s := range c.b.Services {
		if len(s.Cmd) == 0 {
			c.add(Error, "kinds", c.pos("services", s.Name), "service %s has no cmd", s.Name)
		}
	}
	for _, t := range c.b.Targets {
		at := func(f ...string) schema.Pos { return c.pos(append([]string{"targets", t.Name}, f...)...) }
		switch t.Kind {
		case "jvm":
			if len(t.Cmd) > 0 {
				c.add(Error, "kinds", at("cmd"), "target %s: a jvm target is started from jar or mainClass so that its knobs apply; for a custom launcher use kind \"process\"", t.Name)
			}
			if (t.Jar == "") == (t.MainClass == "") {
				c.add(Error, "kinds", at(), "target %s: a jvm target needs exactly one of jar or mainClass", t.Name)
			}
			for _, s := range t.Flags.Sets {
				for _, f := range s.Flags {
					if knob := ownedFlag(f); knob != "" {
						c.add(Error, "kinds", at("flags"), "target %s: flag %s overrides the %s knob; set %s instead", t.Name, f, knob, knob)
					}
					if what := optionFile(f); what != "" {
						c.add(Error, "kinds", at("flags"), "target %s: flag %s reads JVM options from %s, where heap, gc and processors could be set behind their knobs; give the flags themselves", t.Name, f, what)
					}
				}
			}
			for k := range t.Properties {
				if strings.ContainsAny(k, " =") {
					c.add(Error, "kinds", at("properties", k), "target %s: property name %q may not contain spaces or '='", t.Name, k)
				}
			}
		default:
			if len(t.Cmd) == 0 {
				c.add(Error, "kinds", at(), "target %s: a %s target needs cmd", t.Name, t.Kind)
			}
		}
		for k, v := range t.Env {
			if knob, ok := knobEnv[t.Kind][k]; ok {
				c.add(Error, "kinds", at("env", k), "target %s: env %s overrides the %s knob; set %s instead", t.Name, k, knob, knob)
			}
			if k == "GODEBUG" && t.Kind == "go" && godebugSets(v, "gctrace") {
				c.add(Error, "kinds", at("env", k), "target %s: env GODEBUG sets gctrace, which the gcLog knob owns; set gcLog instead", t.Name)
			}
		}
	}
	checkEnvNames(c)
}

// checkEnvNames: every env key of a target or service is a variable name.
// A key with '=' would be read by the process as another variable ("A=B":
// "c" is A set to "B=c"), which is how a knob's variable could be set
// behind the check above.
func checkEnvNames(c *checker) {
	check := func(what, name string, env map[string]string, path ...string) {
		for k, v := range env {
			at := c.pos(append(path, "env", k)...)
			switch name0, rest, eq := strings.Cut(k, "="); {
			case eq:
				c.add(Error, "kinds", at, "%s %s: env key %q contains '=': the process would read it as %s set to %q; use the variable's own name as the key", what, name, k, name0, rest+"="+v)
			case k == "" || strings.ContainsRune(k, 0):
				c.add(Error, "kinds", at, "%s %s: env key %q is not a variable name", what, name, k)
			}
		}
	}
	for _, t := range c.b.Targets {
		check("target", t.Name, t.Env, "targets", t.Name)
	}
	for _, s := range c.b.Services {
		check("service", s.Name, s.Env, "services", s.Name)
	}
}

// godebugSets reports whether the GODEBUG value v has a setting named key.
func godebugSets(v, key string) bool {
	for kv := range strings.SplitSeq(v, ",") {
		if name, _, _ := strings.Cut(strings.TrimSpace(kv), "="); name == key {
			return true
		}
	}
	return false
}

// checkHeaps: every JVM target declares its heap (Xms = Xmx), so that
// memory results carry their precondition.
func checkHeaps(c *checker) {
	for _, t := range c.b.Targets {
		if t.Kind == "jvm" && !t.Heap.Set() && !memoryLimited(t) {
			c.add(Error, "heaps", c.pos("targets", t.Name), "target %s: JVM heap not set; declare heap (it sets -Xms and -Xmx) so memory results carry their heap size", t.Name)
		}
	}
}

// memoryLimited reports whether every variant of t has a memory limit,
// from which the JVM sizes a heap that is not set (and records it).
func memoryLimited(t *schema.Target) bool {
	return t.Limits != nil && t.Limits.Memory.Set()
}

// checkWindows: windows are sane, and equal for every target of the batch.
func checkWindows(c *checker) {
	w := c.b.Windows
	if w.Measure.D() <= 0 {
		c.add(Error, "windows", c.pos("windows", "measure"), "windows.measure must be longer than 0")
	}
	if w.MeasureAuto && !(c.b.RepeatsMin > 0 && c.b.RepeatsMin < c.b.Repeats) {
		c.add(Error, "windows", c.pos("windows", "measure"), `windows.measure "auto" needs adaptive repeats (repeats: {min, max}): each round's window is chosen from the batch's starts so far; give a duration, or repeats in rounds`)
	}
	if w.MeasureAuto && (w.MeasureMin.D() <= w.DiscardHead.D() || w.MeasureMax.D() < w.MeasureMin.D()) {
		c.add(Error, "windows", c.pos("windows", "measureMin"), "windows.measureMin %s and measureMax %s: want discardHead %s < measureMin <= measureMax", w.MeasureMin, w.MeasureMax, w.DiscardHead)
	}
	if w.DiscardHead.D() >= w.Measure.D() && w.Measure.D() > 0 {
		c.add(Error, "windows", c.pos("windows", "discardHead"), "windows.discardHead %s leaves nothing of windows.measure %s", w.DiscardHead, w.Measure)
	}
	if c.b.Sampling.Interval.D() <= 0 {
		c.add(Error, "windows", c.pos("sampling", "interval"), "sampling.interval must be longer than 0")
	}
	checkSteadyWindows(c)
	for _, t := range c.b.Targets {
		if t.Windows != nil && *t.Windows != w {
			c.add(Error, "windows", c.pos("targets", t.Name, "windows"), "target %s: windows differ from the batch's (%s vs %s); every target of a batch runs with the same windows",
				t.Name, *t.Windows, w)
		}
	}
}

// checkWorkload: the workload has points; placeholders and axes agree.
func checkWorkload(c *checker) {
	wl := c.b.Workload
	r := wl.Request
	if wl.Hold != nil {
		checkHold(c)
	} else if len(wl.Concurrency) == 0 && len(wl.Rate) == 0 {
		c.add(Error, "workload", c.pos("workload"), "workload has no points: give concurrency (closed loop), rate (open loop) or hold (connections held)")
	}
	peak := false
	for _, rt := range wl.Rate {
		peak = peak || rt.PeakFraction > 0
	}
	if peak && len(wl.Concurrency) == 0 {
		c.add(Error, "workload", c.pos("workload", "rate"), "a rate given as a percentage needs a peak: add closed-loop concurrency points to measure it")
	}
	usesPayload := r.Uses(pipeline.PayloadPlaceholder) || r.Uses(pipeline.PayloadTextPlaceholder)
	switch {
	case usesPayload && len(wl.Payload) == 0:
		c.add(Error, "workload", c.pos("workload", "request"), "the request uses {payload} but workload.payload is not set")
	case !usesPayload && len(wl.Payload) > 0:
		c.add(Warning, "workload", c.pos("workload", "payload"), "workload.payload is set but the request never uses {payload}: every payload point sends the same request")
	}
	usesVary := r.Uses(pipeline.VaryPlaceholder)
	switch {
	case usesVary && r.Vary == nil:
		c.add(Error, "workload", c.pos("workload", "request"), "the request uses {vary} but request.vary is not declared")
	case !usesVary && r.Vary != nil:
		c.add(Warning, "workload", c.pos("workload", "request", "vary"), "request.vary is declared but the request never uses {vary}")
	}
	if r.Vary != nil && r.Vary.Max < r.Vary.Min {
		c.add(Error, "workload", c.pos("workload", "request", "vary"), "request.vary: max %d is below min %d", r.Vary.Max, r.Vary.Min)
	}
	if i := strings.IndexFunc(r.Path, badPathRune); i >= 0 {
		bad, _ := utf8.DecodeRuneInString(r.Path[i:])
		c.add(Error, "workload", c.pos("workload", "request", "path"), "request.path %q has %q at byte %d: a space or control character would break the request line of every cell; percent-encode it", r.Path, bad, i)
	}
	checkHeaders(c, r.Headers)
}

// badPathRune reports runes a request path may not hold as they are: a
// space or a control character (CR and LF would end the request line).
func badPathRune(r rune) bool { return r <= ' ' || r == 0x7f || unicode.IsControl(r) }

// ownedHeaders are the request headers the load generator writes itself:
// a definition that sets them would send two, or a wrong body length.
var ownedHeaders = []string{"Host", "Content-Length", "Transfer-Encoding", "Connection"}

// checkHeaders: header names are tokens, values hold no line breaks, and
// none is a header yardstick owns.
func checkHeaders(c *checker, headers map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(headers)) {
		at := c.pos("workload", "request", "headers", k)
		switch {
		case !headerToken.MatchString(k):
			c.add(Error, "workload", at, "request header name %q is not an HTTP token", k)
		case slices.ContainsFunc(ownedHeaders, func(h string) bool { return strings.EqualFold(h, k) }):
			c.add(Error, "workload", at, "request header %s is written by yardstick's load generator; remove it", k)
		case strings.ContainsAny(headers[k], "\r\n\x00"):
			c.add(Error, "workload", at, "request header %s: the value may not contain CR, LF or NUL", k)
		}
	}
}

var headerToken = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// checkReady: ready is a path, or a URL on loopback; load and probes go to
// loopback only.
func checkReady(c *checker) {
	check := func(what string, p *schema.Process, path ...string) {
		if strings.IndexFunc(p.Ready, badPathRune) >= 0 {
			c.add(Error, "ready", c.pos(append(path, "ready")...), "%s %s: ready %q has a space or control character; percent-encode it", what, p.Name, p.Ready)
			return
		}
		if strings.HasPrefix(p.Ready, "/") {
			return
		}
		u, err := url.Parse(p.Ready)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			c.add(Error, "ready", c.pos(append(path, "ready")...), "%s %s: ready %q must be a path (\"/health\") or an http URL on loopback", what, p.Name, p.Ready)
			return
		}
		if !pipeline.IsLoopbackHost(u.Hostname()) {
			c.add(Error, "ready", c.pos(append(path, "ready")...), "%s %s: ready %q is not on loopback; yardstick only talks to 127.0.0.0/8, ::1 and localhost", what, p.Name, p.Ready)
		}
	}
	for _, t := range c.b.Targets {
		check("target", &t.Process, "targets", t.Name)
	}
	for _, s := range c.b.Services {
		check("service", &s.Process, "services", s.Name)
	}
}

// checkEventLoops: regexes compile, and a declared event-loop count can be
// checked on every target: Go targets through GOMAXPROCS (Go names no
// threads; its scheduler runs GOMAXPROCS event loops), every other kind by
// counting threads that match its eventLoopThreads regex.
func checkEventLoops(c *checker) {
	want := c.b.Fairness.EventLoops
	for _, t := range c.b.Targets {
		if t.EventLoopThreads != "" {
			if _, err := regexp.Compile(t.EventLoopThreads); err != nil {
				c.add(Error, "event_loops", c.pos("targets", t.Name, "eventLoopThreads"), "target %s: eventLoopThreads: %v", t.Name, err)
			}
			continue
		}
		if want == 0 {
			continue
		}
		if t.Kind == "go" {
			for _, v := range schema.Variants(c.b, t) {
				if v.Processors != want {
					c.add(Error, "event_loops", c.pos("targets", t.Name), "target %s: fairness.eventLoops is %d but %s runs GOMAXPROCS=%d", t.Name, want, v.Label, v.Processors)
				}
			}
			continue
		}
		c.add(Error, "event_loops", c.pos("targets", t.Name), "target %s: fairness.eventLoops is %d but the target declares no eventLoopThreads regex to count them with", t.Name, want)
	}
}

// checkPorts: services run beside the targets, so their ports differ.
func checkPorts(c *checker) {
	used := map[int]string{}
	for _, s := range c.b.Services {
		if other, dup := used[s.Port]; dup {
			c.add(Error, "ports", c.pos("services", s.Name, "port"), "service %s uses port %d, as does service %s", s.Name, s.Port, other)
		}
		used[s.Port] = s.Name
	}
	for _, t := range c.b.Targets {
		if other, dup := used[t.Port]; dup {
			c.add(Error, "ports", c.pos("targets", t.Name, "port"), "target %s uses port %d, as does service %s, which runs at the same time", t.Name, t.Port, other)
		}
	}
}

// checkMatrix: include/exclude keys exist and match something, and the
// trimmed matrix is not empty. The cells are walked once for all rules
// (schema.CountRules), under the evaluation's deadline.
func checkMatrix(c *checker) {
	bad := false
	known := func(kind string, rs []schema.Match) {
		for i, r := range rs {
			for k := range r {
				if !slices.Contains(schema.MatchKeys, k) {
					c.add(Error, "matrix", c.pos(kind, strconv.Itoa(i)), "%s rule uses unknown key %q (keys: %s)", kind, k, strings.Join(schema.MatchKeys, ", "))
					bad = true
				}
			}
		}
	}
	known("include", c.b.Include)
	known("exclude", c.b.Exclude)
	if bad {
		return
	}
	rc, err := schema.CountRules(c.ctx, c.b)
	if err != nil {
		if c.ctx.Err() != nil && errors.Is(err, context.Cause(c.ctx)) {
			c.err = err
			return
		}
		at := c.pos("exclude")
		if len(c.b.Include) > 0 {
			at = c.pos("include")
		}
		c.add(Error, "matrix", at, "%v", err)
		return
	}
	unmatched := func(kind string, rs []schema.Match, n []int) {
		for i, r := range rs {
			if n[i] == 0 {
				c.add(Warning, "matrix", c.pos(kind, strconv.Itoa(i)), "%s rule %s matches no cell", kind, ruleText(r))
			}
		}
	}
	unmatched("include", c.b.Include, rc.Include)
	unmatched("exclude", c.b.Exclude, rc.Exclude)
	hasPoints := len(c.b.Workload.Concurrency)+len(c.b.Workload.Rate) > 0
	if hasPoints && rc.Kept == 0 {
		c.add(Error, "matrix", c.pos(), "no cell left after include/exclude")
	}
}

func ruleText(r schema.Match) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(r)) {
		parts = append(parts, k+"="+r[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
