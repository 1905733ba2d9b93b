package validate

import (
	"strings"
	"testing"
)

var long = strings.Repeat("x", 199)

// allFixtures are the fixture tables, by check area.
func allFixtures() map[string][]fixture {
	return map[string][]fixture{
		"schema": {
			{file: "schema/good.cue"},
			{file: "schema/unknown_field.cue", want: []want{werr("schema", "8:44", "gomaxproc", "field not allowed")}},
			{file: "schema/bad_duration.cue", want: []want{werr("schema", "9:21", "windows.measure", "want a duration")}},
			{file: "schema/syntax.cue", want: []want{werr("schema", "8:3", "expected '}'")}},
		},
		"names": {
			{file: "names/good.cue"},
			{file: "names/service_is_target.cue", want: []want{werr("names", "9:13", "service a has the name of a target")}},
			{file: "names/label_collides.cue", want: []want{werr("names", "10:4", "target j-256m", "same as a variant of target j")}},
			{file: "names/label_case.cue", want: []want{werr("names", "10:4", "target fast", "variant Fast", "case is ignored")}},
			{file: "names/label_long.cue", want: []want{werr("names", "8:12", long+"-gogc100", "not a plain name", "200 characters")}},
		},
		"duplicates": {
			{file: "duplicates/good.cue"},
			{file: "duplicates/concurrency.cue", want: []want{werr("duplicates", "7:59", "workload.concurrency[2] repeats \"4\"", "element 0")}},
			{file: "duplicates/rate.cue", want: []want{werr("duplicates", "7:51", "workload.rate[1] repeats \"100\"")}},
			{file: "duplicates/payload.cue", want: []want{werr("duplicates", "9:18", "workload.payload[1] repeats \"16\"")}},
			{file: "duplicates/knob_case.cue", want: []want{werr("duplicates", "8:58", "targets.j.heap[1] repeats \"512M\"", "\"512m\"")}},
			{file: "duplicates/flagset_case.cue", want: []want{werr("duplicates", "12:33", "set \"small\"", "set \"Small\"", "case is ignored")}},
		},
		"baseline": {
			{file: "baseline/good.cue"},
			{file: "baseline/unknown.cue", want: []want{werr("baseline", "12:3", "baseline \"c\" is not a target", "targets: a, b")}},
			{file: "baseline/adaptive_without.cue", want: []want{werr("baseline", "9:3", "repeats {min, max}", "declare a baseline")}},
		},
		"placement": {
			{file: "placement/good.cue"},
			{file: "placement/overlap.cue", want: []want{werr("placement", "6:30", "CPU sets overlap", "placement.target 0-1 and placement.loadgen 1 share CPU 1")}},
			{file: "placement/overlap_services.cue", want: []want{werr("placement", "6:30", "placement.target 0-3 and placement.services 3-4 share CPU 3")}},
			{file: "placement/unparsable.cue", want: []want{werr("placement", "6:15", "placement.target", "3-1", "backwards")}},
			{file: "placement/services_unplaced.cue", want: []want{werr("placement", "6:3", "services up need a CPU set", "placement.services")}},
			{file: "placement/beyond_machine.cue", cpus: 8, want: []want{wwarn("placement", "6:28", "placement.loadgen 8-9 names CPU 9", "8 CPUs (0-7)")}},
			{file: "placement/beyond_machine.cue", cpus: 10},
			{file: "placement/two_hosts.cue", want: []want{wwarn("placement", "6:42", "placement.hosts \"separate\"", "--target-host", "--loadgen-host")}},
		},
		"share": {
			{file: "share/good.cue"},
			{file: "share/itself.cue", want: []want{werr("placement", "9:12", "loadgen shares with itself")}},
			{file: "share/twice.cue", want: []want{werr("placement", "12:5", "loadgen and services are declared twice")}},
			{file: "share/no_set.cue", want: []want{werr("placement", "9:12", "names services, which has no CPU set")}},
			{file: "share/disjoint.cue", want: []want{wwarn("placement", "10:12", "services 1 and loadgen 2 do not overlap")}},
			{file: "share/target.cue", want: []want{wwarn("placement", "9:12", "target and loadgen share CPU 1", "competes for its own CPUs")}},
		},
		"processors": {
			{file: "processors/good.cue"},
			{file: "processors/budget.cue", want: []want{
				werr("processors", "7:3", "processors is 2 but placement.target 0 has 1 CPU(s)"),
				werr("processors", "9:12", "g runs with GOMAXPROCS=2", "1 CPU(s)"),
			}},
			{file: "processors/gomaxprocs.cue", want: []want{werr("processors", "8:44", "g runs with GOMAXPROCS=4", "0-1 has 2 CPU(s)")}},
			{file: "processors/jvm.cue", want: []want{werr("processors", "8:57", "j-p1 runs with -XX:ActiveProcessorCount=1")}},
		},
		"limits": {
			{file: "limits/good.cue"},
			{file: "limits/quota_above_set.cue", want: []want{werr("limits", "8:52", "quota of 3 CPU(s)", "at most the CPU set's size")}},
			{file: "limits/quota_below_kernel.cue", want: []want{werr("limits", "8:53", "0.001 CPUs per 100ms", "100µs", "smallest quota of 1ms")}},
			{file: "limits/period.cue", want: []want{werr("limits", "8:67", "limits.period \"2s\"", "1ms to 1s")}},
			{file: "limits/processors_above_quota.cue", want: []want{werr("limits", "8:44", "runs with 4 processors under a quota of 2", "set it to 2")}},
			{file: "limits/heap_too_big.cue", want: []want{werr("limits", "8:63", "heap 1g does not fit the memory limit 1024m")}},
			{file: "limits/two_hosts.cue", want: []want{
				wwarn("placement", "6:42", "placement.hosts \"separate\""),
				werr("limits", "8:44", "target g: limits need the target on this host"),
			}},
		},
		"kinds": {
			{file: "kinds/good.cue"},
			{file: "kinds/jvm_cmd.cue", want: []want{werr("kinds", "8:57", "target j", "started from jar or mainClass")}},
			{file: "kinds/jvm_entry.cue", want: []want{
				werr("kinds", "9:4", "target none", "exactly one of jar or mainClass"),
				werr("kinds", "10:4", "target both", "exactly one of jar or mainClass"),
			}},
			{file: "kinds/no_cmd.cue", want: []want{
				werr("kinds", "8:12", "target g: a go target needs cmd"),
				werr("kinds", "9:13", "service up has no cmd"),
			}},
			{file: "kinds/flags.cue", want: []want{
				werr("kinds", "12:4", "flag -Xmx1g overrides the heap knob"),
				werr("kinds", "12:4", "flag -XX:+UseZGC overrides the gc knob"),
				werr("kinds", "12:4", "flag -XX:ActiveProcessorCount=4 overrides the processors knob"),
				werr("kinds", "12:4", "flag @opts.txt", "java launcher argument file"),
				werr("kinds", "12:4", "flag -XX:VMOptionsFile=vm.txt", "VM options file"),
			}},
			{file: "kinds/env.cue", want: []want{
				werr("kinds", "9:42", "env GOMAXPROCS overrides the gomaxprocs knob"),
				werr("kinds", "9:59", "GODEBUG sets gctrace", "gcLog"),
				werr("kinds", "10:68", "env JAVA_TOOL_OPTIONS overrides the flags knob"),
				werr("kinds", "10:97", "env key \"A=B\" contains '='", "A set to \"B=c\""),
			}},
			{file: "kinds/property.cue", want: []want{werr("kinds", "8:70", "property name \"a=b\"")}},
		},
		"heaps": {
			{file: "heaps/good.cue"},
			{file: "heaps/missing.cue", want: []want{werr("heaps", "8:12", "target j: JVM heap not set")}},
		},
		"windows": {
			{file: "windows/good.cue"},
			{file: "windows/measure_zero.cue", want: []want{werr("windows", "9:13", "windows.measure must be longer than 0")}},
			{file: "windows/discard.cue", want: []want{werr("windows", "9:28", "discardHead 5s leaves nothing of windows.measure 5s")}},
			{file: "windows/sampling_zero.cue", want: []want{werr("windows", "9:13", "sampling.interval must be longer than 0")}},
			{file: "windows/target_differs.cue", want: []want{werr("windows", "8:44", "target g: windows differ", "warm-up 20s", "warm-up 5s")}},
			{file: "windows/measure_auto.cue", want: []want{
				werr("windows", "9:13", "\"auto\" needs adaptive repeats"),
				werr("windows", "9:30", "measureMin 1s and measureMax 20s", "discardHead 2s < measureMin"),
			}},
		},
		"steady": {
			{file: "steady/good.cue"},
			{file: "steady/load_interval.cue", want: []want{werr("windows", "9:13", "loadInterval 5ms", "10ms..10s")}},
			{file: "steady/kept_short.cue", want: []want{werr("windows", "9:13", "holds 2 load interval(s) of 100ms", "at least 3")}},
			{file: "steady/kept_noisy.cue", want: []want{wwarn("windows", "9:13", "holds 5 load intervals", "fewer than the 10")}},
			{file: "steady/total_short.cue", want: []want{
				werr("windows", "9:3", "warm-up and measure hold 6 load intervals of 500ms", "at least 10"),
				wwarn("windows", "9:27", "holds 6 load intervals of 500ms", "fewer than the 10"),
			}},
			{file: "steady/steady_for.cue", want: []want{
				werr("windows", "9:29", "steadyFor 200ms is 2 load interval(s)", "at least 3"),
				werr("windows", "9:49", "warmupMax 200ms must be longer than windows.steadyFor 200ms"),
			}},
		},
		"workload": {
			{file: "workload/good.cue"},
			{file: "workload/no_points.cue", want: []want{werr("workload", "7:3", "workload has no points")}},
			{file: "workload/peak.cue", want: []want{werr("workload", "7:39", "rate given as a percentage needs a peak")}},
			{file: "workload/payload_unset.cue", want: []want{werr("workload", "7:14", "uses {payload} but workload.payload is not set")}},
			{file: "workload/payload_unused.cue", want: []want{wwarn("workload", "7:39", "never uses {payload}")}},
			{file: "workload/vary_unset.cue", want: []want{werr("workload", "7:14", "uses {vary} but request.vary is not declared")}},
			{file: "workload/vary_unused.cue", want: []want{
				wwarn("workload", "7:40", "never uses {vary}"),
				werr("workload", "7:40", "max 5 is below min 10"),
			}},
			{file: "workload/path.cue", want: []want{werr("workload", "7:23", "request.path \"/a b\" has ' ' at byte 2")}},
			{file: "workload/headers.cue", want: []want{
				werr("workload", "10:15", "\"Bad Name\" is not an HTTP token"),
				werr("workload", "10:32", "request header host is written by yardstick's load generator"),
				werr("workload", "10:53", "X-Split", "CR, LF or NUL"),
			}},
		},
		"ready": {
			{file: "ready/good.cue"},
			{file: "ready/remote.cue", want: []want{
				werr("ready", "8:44", "target g", "\"http://192.0.2.1/health\" is not on loopback"),
				werr("ready", "9:65", "service up", "\"health\" must be a path"),
			}},
			{file: "ready/space.cue", want: []want{werr("ready", "8:44", "\"/he alth\" has a space or control character")}},
		},
		"event_loops": {
			{file: "event_loops/good.cue"},
			{file: "event_loops/regex.cue", want: []want{werr("event_loops", "8:48", "target n: eventLoopThreads", "missing closing )")}},
			{file: "event_loops/uncountable.cue", want: []want{
				werr("event_loops", "10:4", "eventLoops is 2 but g-p1 runs GOMAXPROCS=1"),
				werr("processors", "10:36", "g-p1 runs with GOMAXPROCS=1"),
				werr("event_loops", "11:4", "target n", "no eventLoopThreads regex"),
			}},
		},
		"ports": {
			{file: "ports/good.cue"},
			{file: "ports/clash.cue", want: []want{
				werr("ports", "8:44", "target g uses port 18081, as does service up"),
				werr("ports", "11:43", "service up uses port 18081, as does service db"),
			}},
			// The port is the schema's default: the finding points at the target.
			{file: "ports/default.cue", want: []want{werr("ports", "8:12", "target g uses port 18080, as does service up")}},
		},
		"matrix": {
			{file: "matrix/good.cue"},
			{file: "matrix/cells.cue"},
			{file: "matrix/unknown_key.cue", want: []want{werr("matrix", "9:13", "unknown key \"taget\"")}},
			{file: "matrix/unmatched.cue", want: []want{wwarn("matrix", "9:13", "exclude rule {concurrency=16} matches no cell")}},
			{file: "matrix/empty.cue", want: []want{werr("matrix", "5:11", "no cell left after include/exclude")}},
		},
	}
}

func TestSchema(t *testing.T)     { runFixtures(t, allFixtures()["schema"]) }
func TestNames(t *testing.T)      { runFixtures(t, allFixtures()["names"]) }
func TestDuplicates(t *testing.T) { runFixtures(t, allFixtures()["duplicates"]) }
func TestBaseline(t *testing.T)   { runFixtures(t, allFixtures()["baseline"]) }
func TestPlacement(t *testing.T)  { runFixtures(t, allFixtures()["placement"]) }
func TestShares(t *testing.T)     { runFixtures(t, allFixtures()["share"]) }
func TestProcessors(t *testing.T) { runFixtures(t, allFixtures()["processors"]) }
func TestLimits(t *testing.T)     { runFixtures(t, allFixtures()["limits"]) }
func TestKinds(t *testing.T)      { runFixtures(t, allFixtures()["kinds"]) }
func TestHeaps(t *testing.T)      { runFixtures(t, allFixtures()["heaps"]) }
func TestWindows(t *testing.T)    { runFixtures(t, allFixtures()["windows"]) }
func TestSteady(t *testing.T)     { runFixtures(t, allFixtures()["steady"]) }
func TestWorkload(t *testing.T)   { runFixtures(t, allFixtures()["workload"]) }
func TestReady(t *testing.T)      { runFixtures(t, allFixtures()["ready"]) }
func TestEventLoops(t *testing.T) { runFixtures(t, allFixtures()["event_loops"]) }
func TestPorts(t *testing.T)      { runFixtures(t, allFixtures()["ports"]) }
func TestMatrix(t *testing.T)     { runFixtures(t, allFixtures()["matrix"]) }
