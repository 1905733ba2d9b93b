package pipeline

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"yardstick/pipeline/cpuset"
)

// CheckpointVersion is the version of the checkpoint.json format.
const CheckpointVersion = 2

// The statuses of a cell. A checkpoint says ok or failed; the cells table
// adds unfair (ok, but a fairness check of the cell or its batch failed),
// pending (planned, no checkpoint yet) and not_needed (a round of adaptive
// repeats that did not run: the batch was decided before it, rounds/<batch>.json).
const (
	StatusOK        = "ok"
	StatusFailed    = "failed"
	StatusUnfair    = "unfair"
	StatusPending   = "pending"
	StatusNotNeeded = "not_needed"
)

// A Checkpoint is everything the execute stage measured for one cell. It
// is written once, atomically, when the cell ends; a cell with a checkpoint
// is never run again in the same run directory. A failure is data: Status
// failed with Error saying why.
type Checkpoint struct {
	Version  int       `json:"version"`
	CellID   string    `json:"cell_id"`
	CellName string    `json:"cell_name"`
	Status   string    `json:"status"`
	Error    string    `json:"error,omitempty"`
	Started  time.Time `json:"started"`
	Ended    time.Time `json:"ended"`
	// Start names the target start (starts/<name>/) the cell ran in.
	Start string `json:"start,omitempty"`

	Window    *Window      `json:"window,omitempty"`
	Load      *Load        `json:"load,omitempty"`
	Intervals []Interval   `json:"intervals,omitempty"`
	Steady    *Steady      `json:"steady,omitempty"`
	Samples   []Sample     `json:"samples,omitempty"`
	Target    *TargetStats `json:"target,omitempty"`
	// Hold is a connection-holding cell's steps (workload.hold); such a
	// cell has no Load, Intervals or Steady.
	Hold      *HoldStats   `json:"hold,omitempty"`
	GC        *GCStats     `json:"gc,omitempty"`
	AccessLog *LogStats    `json:"access_log,omitempty"`
	ColdStart *ColdStart   `json:"cold_start,omitempty"`
	Affinity  *Affinity    `json:"affinity,omitempty"`
	Varies    *VariesProbe `json:"varies,omitempty"`
	// Cgroup is the start's control group's figures; nil without one.
	Cgroup *CgroupStats `json:"cgroup,omitempty"`
	// ContainerView is what the runtime saw of its limits; nil for a
	// target without limits, or a kind that does not report it.
	ContainerView *ContainerView `json:"container_view,omitempty"`
	// Others is what other work on the machine took of the target's CPUs
	// in the kept window, LoadgenOthers of the load generator's; nil where
	// it cannot be told apart (see Others).
	Others        *Others `json:"others,omitempty"`
	LoadgenOthers *Others `json:"loadgen_others,omitempty"`
}

// checkpointV1 reads a version 1 checkpoint (yardstick before 100 ms
// intervals) into the current form: its per-second rows become intervals
// of a second, without histograms and without a steady-state analysis
// (the steady_state check says so). Reports and datasets of old runs stay
// readable.
type checkpointV1 Checkpoint

func (c *checkpointV1) UnmarshalJSON(b []byte) error {
	type plain Checkpoint // without this method
	var old struct {
		Seconds []struct {
			Second     int     `json:"second"`
			InWindow   bool    `json:"in_window"`
			Requests   int64   `json:"requests"`
			Errors     int64   `json:"errors"`
			P50US      int64   `json:"p50_us"`
			P99US      int64   `json:"p99_us"`
			MaxUS      int64   `json:"max_us"`
			RSSBytes   int64   `json:"rss_bytes"`
			CPUSeconds float64 `json:"cpu_s"`
		} `json:"seconds"`
	}
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &old); err != nil {
		return err
	}
	c.Intervals = nil
	for _, s := range old.Seconds {
		c.Intervals = append(c.Intervals, Interval{
			Index: s.Second, StartUS: int64(s.Second) * 1e6, DurationUS: 1e6, InWindow: s.InWindow,
			Requests: s.Requests, Errors: s.Errors, P50US: s.P50US, P99US: s.P99US, MaxUS: s.MaxUS,
			Sampled: s.RSSBytes > 0, RSSBytes: s.RSSBytes, CPUSeconds: s.CPUSeconds,
		})
	}
	if c.Window != nil {
		c.Window.Interval = time.Second
	}
	c.Version = CheckpointVersion
	return nil
}

// Affinity is the CPU masks read back from /proc/<pid>/task/*/status at the
// start of the kept window, beside the sets the plan declared.
type Affinity struct {
	TargetDeclared  cpuset.Set  `json:"target_declared"`
	Target          ThreadMasks `json:"target"`
	LoadgenDeclared cpuset.Set  `json:"loadgen_declared"`
	Loadgen         ThreadMasks `json:"loadgen"`
}

// ThreadMasks counts threads by the CPU set they may run on, one entry
// per set, sorted by its compact form. In JSON it is an object from that
// form to the count ({"0-1": 4}).
type ThreadMasks []ThreadMask

// A ThreadMask is how many threads may run on CPUs.
type ThreadMask struct {
	CPUs    cpuset.Set
	Threads int
}

// Add counts n more threads on set.
func (m *ThreadMasks) Add(set cpuset.Set, n int) {
	for i := range *m {
		if (*m)[i].CPUs.Equal(set) {
			(*m)[i].Threads += n
			return
		}
	}
	*m = append(*m, ThreadMask{CPUs: set, Threads: n})
	slices.SortFunc(*m, func(a, b ThreadMask) int { return strings.Compare(a.CPUs.String(), b.CPUs.String()) })
}

// MarshalJSON writes the masks as an object from set to thread count.
func (m ThreadMasks) MarshalJSON() ([]byte, error) {
	obj := make(map[string]int, len(m))
	for _, t := range m {
		obj[t.CPUs.String()] += t.Threads
	}
	return json.Marshal(obj)
}

// UnmarshalJSON reads an object from CPU list (any spelling) to thread
// count; two spellings of one set are one entry.
func (m *ThreadMasks) UnmarshalJSON(b []byte) error {
	var obj map[string]int
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	*m = nil
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		var set cpuset.Set
		if err := set.UnmarshalText([]byte(k)); err != nil {
			return fmt.Errorf("thread masks: %w", err)
		}
		m.Add(set, obj[k])
	}
	return nil
}

// VariesProbe is what two requests with different {vary} values got back,
// once per target start, before the first cell: a static or cached answer
// gives the same body twice.
type VariesProbe struct {
	Values   []string `json:"values"`
	Statuses []int    `json:"statuses"`
	BodySHA  []string `json:"body_sha256"`
	Same     bool     `json:"same"`
	Error    string   `json:"error,omitempty"`
}

// Window is when the cell's load ran and which part of it was measured:
// the load generator ran Warmup+Measure; the kept window is from
// Warmup+DiscardHead to the end. With an adaptive warm-up (Auto), Warmup
// is the warm-up the cell took: until its load was steady, or WarmupMax.
type Window struct {
	Warmup      time.Duration `json:"warmup_ns"`
	Measure     time.Duration `json:"measure_ns"`
	DiscardHead time.Duration `json:"discard_head_ns"`
	// Interval is the load series' reporting interval.
	Interval time.Duration `json:"interval_ns"`
	// Auto says the warm-up was adaptive; WarmupCapped that it ended at
	// WarmupMax without a steady state.
	Auto         bool          `json:"auto,omitempty"`
	WarmupMax    time.Duration `json:"warmup_max_ns,omitempty"`
	WarmupCapped bool          `json:"warmup_capped,omitempty"`
	// Remeasured counts the kept windows an adaptive warm-up started
	// again because the window had not been steady in throughput: the
	// warm-up (Warmup) holds them.
	Remeasured int `json:"remeasured,omitempty"`
	// LoadStart is when the load generator was told to start; KeptStart
	// and KeptEnd bound the kept window.
	LoadStart time.Time `json:"load_start"`
	KeptStart time.Time `json:"kept_start"`
	KeptEnd   time.Time `json:"kept_end"`
}

// LatencyUS is a latency summary in microseconds.
type LatencyUS struct {
	Mean  float64 `json:"mean"`
	P50   int64   `json:"p50"`
	P90   int64   `json:"p90"`
	P99   int64   `json:"p99"`
	P999  int64   `json:"p999"`
	P9999 int64   `json:"p9999"`
	Max   int64   `json:"max"`
	Min   int64   `json:"min"`
}

// Load is what the load generator measured in the kept window, and what it
// cost.
type Load struct {
	Mode        string    `json:"mode"`
	Connections int       `json:"connections"`
	RateTarget  float64   `json:"rate_target,omitempty"`
	Requests    int64     `json:"requests"`
	Errors      int64     `json:"errors"`
	DurationS   float64   `json:"duration_s"`
	RPS         float64   `json:"rps"`
	Sends       int64     `json:"sends"`
	LateSends   int64     `json:"late_sends"`
	Latency     LatencyUS `json:"latency_us"`
	// Hist is the kept window's latency histogram (microseconds) in the
	// standard compressed HdrHistogram encoding.
	Hist          string `json:"hist"`
	ResponseBytes int64  `json:"response_bytes"`
	// Whole-run figures of the load generator process (warm-up included).
	LoadgenCPUS      float64          `json:"loadgen_cpu_s"`
	LoadgenDurationS float64          `json:"loadgen_duration_s"`
	LoadgenCPUs      int              `json:"loadgen_cpus"`
	ErrorsByKind     map[string]int64 `json:"errors_by_kind,omitempty"`
	StatusCounts     map[string]int64 `json:"status_counts,omitempty"`
	// Raw is the load generator's own result for the whole run.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// An Interval is one reporting interval of the cell's load (Window.Interval,
// 100 ms by default), from the load's start (warm-up included); InWindow
// marks the kept window.
type Interval struct {
	Index int `json:"index"`
	// StartUS is when the interval starts, from the load's start;
	// DurationUS its length (the last one may be shorter).
	StartUS    int64 `json:"start_us"`
	DurationUS int64 `json:"duration_us"`
	InWindow   bool  `json:"in_window"`
	Requests   int64 `json:"requests"`
	Errors     int64 `json:"errors"`
	P50US      int64 `json:"p50_us"`
	P99US      int64 `json:"p99_us"`
	MaxUS      int64 `json:"max_us"`
	// Bytes is the response bytes read; Sends the requests written,
	// LateSends those of an open loop sent late.
	Bytes     int64 `json:"bytes"`
	Sends     int64 `json:"sends"`
	LateSends int64 `json:"late_sends"`
	// Hist is the interval's latency histogram (microseconds) in the
	// standard compressed HdrHistogram encoding: the kept window's is
	// the merge of its intervals'.
	Hist string `json:"hist,omitempty"`
	// RSSBytes and CPUSeconds come from the last /proc sample taken in the
	// interval (CPU seconds since the sample before), when one was
	// (Sampled): the /proc sampling interval may be the longer one.
	Sampled    bool    `json:"sampled"`
	RSSBytes   int64   `json:"rss_bytes"`
	CPUSeconds float64 `json:"cpu_s"`
}

// RPS is the interval's throughput in requests per second.
func (iv Interval) RPS() float64 {
	if iv.DurationUS <= 0 {
		return 0
	}
	return float64(iv.Requests) * 1e6 / float64(iv.DurationUS)
}

// A Sample is one /proc sample of the target's process group, as the
// checkpoint keeps it (procsample takes it; datasets.Sample is its row).
type Sample struct {
	Time                   time.Time `json:"time"`
	InWindow               bool      `json:"in_window"`
	RSSBytes               int64     `json:"rss_bytes"`
	CPUUserSeconds         float64   `json:"cpu_user_s"`
	CPUSysSeconds          float64   `json:"cpu_sys_s"`
	Threads                int       `json:"threads"`
	MatchedThreads         int       `json:"matched_threads" check:"min=-1"`
	VoluntaryCtxSwitches   int64     `json:"voluntary_ctx_switches"`
	InvoluntaryCtxSwitches int64     `json:"involuntary_ctx_switches"`
	PIDs                   int       `json:"pids"`
}

// TargetStats is the target's side of the kept window.
type TargetStats struct {
	PID             int     `json:"pid"`
	RSSSteadyBytes  int64   `json:"rss_steady_bytes"`
	RSSPeakBytes    int64   `json:"rss_peak_bytes"`
	RSSAfterBytes   int64   `json:"rss_after_bytes"`
	CPUSeconds      float64 `json:"cpu_s"`
	CPUPerRequestUS float64 `json:"cpu_us_per_request"`
	Threads         int     `json:"threads"`
	// EventLoopThreads counts threads matching the target's regex after
	// warm-up; -1 when the target declares none.
	EventLoopThreads int `json:"event_loop_threads" check:"min=-1"`
}

// GCStats are the garbage collections inside the kept window, and for
// reference the counts before and after it in the same target start.
type GCStats struct {
	Source       string `json:"source"` // "gctrace" or "jvm"
	Count        int    `json:"count"`
	PauseTotalUS int64  `json:"pause_total_us"`
	PauseMaxUS   int64  `json:"pause_max_us"`
	CountBefore  int    `json:"count_before"`
	CountAfter   int    `json:"count_after"`
}

// LogStats is the access log's growth in the kept window.
type LogStats struct {
	Path            string  `json:"path"`
	Bytes           int64   `json:"bytes"`
	BytesPerRequest float64 `json:"bytes_per_request"`
}

// ColdStart is exec to first 200 on the ready path, in milliseconds.
type ColdStart struct {
	// StartMS is the start the cell ran in; ProbesMS are extra start-only
	// probes; MedianMS is over all of them.
	StartMS  float64   `json:"start_ms"`
	ProbesMS []float64 `json:"probes_ms,omitempty"`
	MedianMS float64   `json:"median_ms"`
}

// A StartRecord describes one start of a target variant (starts/<name>/
// start.json): how it was started, how long it took to become ready, and
// how it ended.
type StartRecord struct {
	Name       string     `json:"name"`
	StartSeq   int        `json:"group"`
	Variant    string     `json:"variant"`
	Repeat     int        `json:"repeat"`
	Argv       []string   `json:"argv"`
	Env        []string   `json:"env"`
	PID        int        `json:"pid"`
	Started    time.Time  `json:"started"`
	ColdStart  *ColdStart `json:"cold_start,omitempty"`
	Cells      []string   `json:"cells"`
	Stopped    time.Time  `json:"stopped"`
	ExitStatus string     `json:"exit_status"`
	StderrTail string     `json:"stderr_tail,omitempty"`
	Error      string     `json:"error,omitempty"`
	// Hosts says where a two-host batch's start ran; nil on one host.
	Hosts *StartHosts `json:"hosts,omitempty"`
	// Leftovers are processes of the start that outlived its process
	// group's stop (they had left the group) and were killed.
	Leftovers []LeftoverProcess `json:"leftovers,omitempty"`
	// StdoutDropped and StderrDropped count the bytes the target wrote
	// past the log cap: read and discarded, not in the log.
	StdoutDropped int64 `json:"stdout_dropped_bytes,omitempty"`
	StderrDropped int64 `json:"stderr_dropped_bytes,omitempty"`
}

// A LeftoverProcess is one process a start left behind.
type LeftoverProcess struct {
	PID int    `json:"pid"`
	Cmd string `json:"cmd"`
}

// StartHosts are the hosts of a start of a two-host batch, as run was
// given them: launchers ("netns:NAME", "srun:N", "local") and the target
// host's address the load went to.
type StartHosts struct {
	Target     string `json:"target"`
	Loadgen    string `json:"loadgen"`
	TargetAddr string `json:"target_addr"`
}

// Counts formats the non-zero counts of the maps (status classes, error
// kinds) in key order: "2xx 10844, timeout 4"; "none recorded" when there
// are none.
func Counts(ms ...map[string]int64) string {
	var parts []string
	for _, m := range ms {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if m[k] > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
			}
		}
	}
	if len(parts) == 0 {
		return "none recorded"
	}
	return strings.Join(parts, ", ")
}
