// Package fairness runs the measured fairness checks of a run: from the
// plan and the cells' checkpoints alone, it says for each cell and batch
// whether the comparison was fair, with what was expected and measured.
// The rows go to fairness.json (and from there to the fairness table);
// a failed row marks its cell, or every cell of its batch, unfair.
//
// Each check is one function below, named as in docs/methodology.md#checks:
// event_loops, log_bytes, response_bytes, response_varies,
// loadgen_saturation, littles_law, nagle_floor, affinity, gc_window,
// container_view (container.go); and
// error_rate, since a window of failed requests measures nothing else;
// cross_node (crossnode.go) for runs whose batches ran on cluster nodes.
//
// Whether a cell's load was steady is no fairness check: it says how well
// a start measured, not whether the two sides were measured under the
// same conditions. The steady-state analysis is in the cells table, and a
// start's drift widens its own interval in the decisions.
package fairness

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
	"yardstick/stats"
	"yardstick/stats/hdrstat"
)

// Thresholds of the checks.
const (
	// SaturatedShare: a load generator busy this share of its CPU set's
	// time cannot be trusted to have kept up.
	SaturatedShare = 0.90
	// RateShortfall: an open loop that sent less than this share of its
	// rate did not offer the load it was asked for.
	RateShortfall = 0.97
	// ErrorShare: a window with more failed requests than this share
	// measured errors, not the service.
	ErrorShare = 0.01
	// LateShare: more late sends (over 1 ms behind the schedule) than this
	// share of all sends: a loop that keeps up is late only through
	// scheduling jitter, a few percent at most on a busy machine.
	LateShare = 0.10
	// LittleTolerance: connections / throughput against mean latency.
	LittleTolerance = 0.10
	// NagleLow and NagleHigh bound the Nagle + delayed-ACK floor: 40 ms is
	// Linux's minimum delayed-ACK timeout; measured floors sit at 44-48 ms
	// (docs/methodology.md#nagle).
	NagleLow  = 35_000 // us
	NagleHigh = 50_000 // us
	// NaglePercentile is the latency percentile taken as the floor.
	NaglePercentile = 5.0
)

// Input is what the checks read: the plan and every cell's checkpoint
// (missing cells are skipped).
type Input struct {
	Plan        *pipeline.Plan
	Checkpoints map[string]*pipeline.Checkpoint
	// Nodes are the node records of batches that ran as separate tasks
	// (nodes/<batch>.json), by batch; none for a run on one machine.
	Nodes map[string]*pipeline.BatchNodes
}

// Check runs every check and returns the rows in a fixed order: per
// batch, batch-scope rows then cell rows in plan order; then the
// cross_node rows (crossnode.go), one per batch with node records.
func Check(in Input) []pipeline.FairnessRow {
	var rows []pipeline.FairnessRow
	for bi := range in.Plan.Batches {
		b := &in.Plan.Batches[bi]
		var cells []cellInfo
		for _, c := range in.Plan.Cells {
			if c.Batch != b.Name {
				continue
			}
			cp := in.Checkpoints[c.ID]
			if cp == nil || cp.Status != pipeline.StatusOK {
				continue
			}
			cells = append(cells, cellInfo{cell: c, cp: cp, variant: variant(b, c.Variant)})
		}
		if len(cells) == 0 {
			continue
		}
		bc := &batchCheck{b: b, cells: cells}
		bc.placement() // placement.go
		bc.eventLoops()
		bc.perRequestBytes("log_bytes", b.Fairness.LogBytesPerRequest, "access-log bytes/request", logBytes)
		bc.perRequestBytes("response_bytes", b.Fairness.ResponseBytesPerRequest, "response bytes/request", responseBytes)
		for _, ci := range cells {
			bc.errorRate(ci)
			bc.responseVaries(ci)
			bc.saturation(ci)
			bc.littlesLaw(ci)
			bc.nagle(ci)
			bc.affinity(ci)
			bc.gcWindow(ci)
			bc.containerView(ci) // container.go
		}
		rows = append(rows, bc.rows...)
	}
	return append(rows, crossNode(in.Plan, in.Nodes)...)
}

type cellInfo struct {
	cell    pipeline.Cell
	cp      *pipeline.Checkpoint
	variant *pipeline.Variant
}

type batchCheck struct {
	b     *pipeline.Batch
	cells []cellInfo
	rows  []pipeline.FairnessRow
}

// variant returns the batch's variant labelled label, or an empty one.
func variant(b *pipeline.Batch, label string) *pipeline.Variant {
	if v := b.Variant(label); v != nil {
		return v
	}
	return &pipeline.Variant{}
}

func str(s string) *string          { return &s }
func num(f float64) *float64        { return &f }
func ptrID(c pipeline.Cell) *string { return str(c.ID) }

func (bc *batchCheck) add(r pipeline.FairnessRow) {
	r.Batch = bc.b.Name
	bc.rows = append(bc.rows, r)
}

func (bc *batchCheck) cellRow(ci cellInfo, check string, pass bool, expected, measured, tolerance *float64, unit, detail string) {
	r := pipeline.FairnessRow{Check: check, Scope: "cell", CellID: ptrID(ci.cell), Expected: expected, Measured: measured, Tolerance: tolerance, Pass: pass}
	if unit != "" {
		r.Unit = str(unit)
	}
	r.Detail = str(ci.cell.Name + ": " + detail)
	bc.add(r)
}

// eventLoops: threads matching each target's regex, counted after warm-up,
// equal across targets and to the declared count. Go names no threads: its
// event-loop count is GOMAXPROCS, read from the environment it ran with.
func (bc *batchCheck) eventLoops() {
	want := bc.b.Fairness.EventLoops
	perVariant := map[string]int{}
	var order []string
	for _, ci := range bc.cells {
		v := ci.variant
		var got int
		var how string
		switch {
		case v.EventLoopThreads != "" && ci.cp.Target != nil && ci.cp.Target.EventLoopThreads >= 0:
			got, how = ci.cp.Target.EventLoopThreads, fmt.Sprintf("threads matching /%s/ in /proc/<pid>/task/*/comm after warm-up", v.EventLoopThreads)
		case v.Kind == "go" && v.Limits != nil && v.Limits.CPUs > 0 && ci.cp.ContainerView != nil && ci.cp.ContainerView.Processors != nil && envInt(v.Env, "GOMAXPROCS") == 0:
			got, how = *ci.cp.ContainerView.Processors, "GOMAXPROCS as the runtime set it from its CPU quota (gctrace)"
		case v.Kind == "go":
			got, how = envInt(v.Env, "GOMAXPROCS"), "GOMAXPROCS in the target's environment (Go names no threads)"
		default:
			continue
		}
		if _, seen := perVariant[v.Label]; !seen {
			order = append(order, v.Label)
		}
		perVariant[v.Label] = got
		if want > 0 {
			bc.cellRow(ci, "event_loops", got == want, num(float64(want)), num(float64(got)), nil, "threads",
				fmt.Sprintf("%d event-loop threads, declared %d (%s)", got, want, how))
		}
	}
	if len(perVariant) < 2 {
		return
	}
	var parts []string
	lo, hi := math.MaxInt, math.MinInt
	for _, l := range order {
		parts = append(parts, fmt.Sprintf("%s %d", l, perVariant[l]))
		lo, hi = min(lo, perVariant[l]), max(hi, perVariant[l])
	}
	bc.add(pipeline.FairnessRow{Check: "event_loops", Scope: "batch", Expected: num(float64(lo)), Measured: num(float64(hi)), Unit: str("threads"), Pass: lo == hi,
		Detail: str("event-loop threads per variant: " + strings.Join(parts, ", "))})
}

func envInt(env []string, key string) int {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

func logBytes(ci cellInfo) (float64, bool) {
	if ci.cp.AccessLog == nil {
		return 0, false
	}
	return ci.cp.AccessLog.BytesPerRequest, true
}

func responseBytes(ci cellInfo) (float64, bool) {
	l := ci.cp.Load
	if l == nil || l.Requests == 0 {
		return 0, false
	}
	return float64(l.ResponseBytes) / float64(l.Requests), true
}

// perRequestBytes: bytes per request within the declared tolerance across
// the variants of the batch, per workload point (payloads differ).
func (bc *batchCheck) perRequestBytes(check string, tol *pipeline.Tolerance, unit string, get func(cellInfo) (float64, bool)) {
	if tol == nil {
		return
	}
	type agg struct {
		vals  map[string][]float64
		order []string
	}
	byPoint := map[string]*agg{}
	var points []string
	missing := map[string]bool{}
	for _, ci := range bc.cells {
		pt := ci.cell.Point.Label()
		a := byPoint[pt]
		if a == nil {
			a = &agg{vals: map[string][]float64{}}
			byPoint[pt] = a
			points = append(points, pt)
		}
		v, ok := get(ci)
		if !ok {
			missing[ci.variant.Label] = true
			continue
		}
		if _, seen := a.vals[ci.variant.Label]; !seen {
			a.order = append(a.order, ci.variant.Label)
		}
		a.vals[ci.variant.Label] = append(a.vals[ci.variant.Label], v)
	}
	for _, l := range slices.Sorted(maps.Keys(missing)) {
		bc.add(pipeline.FairnessRow{Check: check, Scope: "batch", Tolerance: num(tol.Tolerance), Unit: str(unit), Pass: false,
			Detail: str(fmt.Sprintf("%s: nothing measured for %s (declare its accessLog)", l, unit))})
	}
	for _, pt := range points {
		a := byPoint[pt]
		if len(a.order) < 2 {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		var parts []string
		for _, l := range a.order {
			m := stats.Median(a.vals[l])
			lo, hi = math.Min(lo, m), math.Max(hi, m)
			parts = append(parts, fmt.Sprintf("%s %.1f", l, m))
		}
		spread := 0.0
		if lo > 0 {
			spread = hi/lo - 1
		} else if hi > 0 {
			spread = math.Inf(1)
		}
		bc.add(pipeline.FairnessRow{Check: check, Scope: "batch", Expected: num(lo), Measured: num(hi), Tolerance: num(tol.Tolerance), Unit: str(unit),
			Pass:   spread <= tol.Tolerance,
			Detail: str(fmt.Sprintf("%s at %s: %s (spread %.1f%%, tolerance %.1f%%)", unit, pt, strings.Join(parts, ", "), spread*100, tol.Tolerance*100))})
	}
}

// errorRate: the kept window's requests mostly succeeded; a window full of
// 4xx, 5xx or timeouts measures the error path, not the service.
func (bc *batchCheck) errorRate(ci cellInfo) {
	l := ci.cp.Load
	if l == nil || l.Requests+l.Errors == 0 {
		return
	}
	share := float64(l.Errors) / float64(max(l.Requests, l.Errors))
	bc.cellRow(ci, "error_rate", share <= ErrorShare, num(ErrorShare), num(share), nil, "share",
		fmt.Sprintf("%d of %d requests failed in the window (%.2f%%); whole run: %s", l.Errors, max(l.Requests, l.Errors), share*100, pipeline.Counts(l.StatusCounts, l.ErrorsByKind)))
}

// responseVaries: two requests with different {vary} values got different
// bodies.
func (bc *batchCheck) responseVaries(ci cellInfo) {
	p := ci.cp.Varies
	if p == nil {
		return
	}
	switch {
	case p.Error != "":
		bc.cellRow(ci, "response_varies", false, nil, nil, nil, "", "the {vary} probe failed: "+p.Error)
	case p.Same:
		bc.cellRow(ci, "response_varies", false, nil, nil, nil, "", fmt.Sprintf("{vary}=%s and {vary}=%s returned the same body (sha256 %s…): a static or cached answer", p.Values[0], p.Values[1], p.BodySHA[0][:12]))
	default:
		bc.cellRow(ci, "response_varies", true, nil, nil, nil, "", fmt.Sprintf("{vary}=%s and {vary}=%s returned different bodies (status %d, %d)", p.Values[0], p.Values[1], p.Statuses[0], p.Statuses[1]))
	}
}

// saturation: the load generator used less than 90% of its CPU set, and an
// open loop sent at least 97% of its rate with few late sends.
func (bc *batchCheck) saturation(ci cellInfo) {
	l := ci.cp.Load
	if l == nil || l.LoadgenDurationS <= 0 || l.LoadgenCPUs <= 0 {
		return
	}
	share := l.LoadgenCPUS / (l.LoadgenDurationS * float64(l.LoadgenCPUs))
	pass := share < SaturatedShare
	detail := fmt.Sprintf("load generator busy %.0f%% of its %d CPU(s)", share*100, l.LoadgenCPUs)
	if l.Mode == "open" && l.DurationS > 0 && l.RateTarget > 0 {
		achieved := float64(l.Sends) / l.DurationS
		late := 0.0
		if l.Sends > 0 {
			late = float64(l.LateSends) / float64(l.Sends)
		}
		detail += fmt.Sprintf("; open loop sent %.0f of %.0f req/s (%.1f%%), %.2f%% late", achieved, l.RateTarget, achieved/l.RateTarget*100, late*100)
		if achieved < RateShortfall*l.RateTarget || late > LateShare {
			pass = false
		}
	}
	bc.cellRow(ci, "loadgen_saturation", pass, num(SaturatedShare), num(share), nil, "CPU share", detail)
}

// littlesLaw: in a closed loop, connections / throughput is the mean time
// a request spends in the system; it must agree with the measured mean
// latency within 10%, or time is being spent where the client cannot see
// it (reconnects, a saturated client).
func (bc *batchCheck) littlesLaw(ci cellInfo) {
	l := ci.cp.Load
	if l == nil || l.Mode != "closed" || l.RPS <= 0 || l.Latency.Mean <= 0 {
		return
	}
	residence := float64(l.Connections) / l.RPS * 1e6
	diff := math.Abs(residence-l.Latency.Mean) / l.Latency.Mean
	bc.cellRow(ci, "littles_law", diff <= LittleTolerance, num(l.Latency.Mean), num(residence), num(LittleTolerance), "us",
		fmt.Sprintf("%d connections / %.0f req/s = %.0f us residence vs %.0f us mean latency (%.1f%% apart)", l.Connections, l.RPS, residence, l.Latency.Mean, diff*100))
}

// nagle: a latency floor near 40 ms is the signature of Nagle's algorithm
// meeting delayed ACKs on keep-alive connections (TCP_NODELAY off).
func (bc *batchCheck) nagle(ci cellInfo) {
	l := ci.cp.Load
	if l == nil || l.Hist == "" {
		return
	}
	h, err := hdrhistogram.Decode([]byte(l.Hist))
	if err != nil || h.TotalCount() == 0 {
		return
	}
	floor := float64(hdrstat.NewDist(h).Percentile(NaglePercentile))
	near := floor >= NagleLow && floor <= NagleHigh
	detail := fmt.Sprintf("p%g latency %.1f ms", NaglePercentile, floor/1000)
	if near {
		detail += ": a floor near 40 ms, the signature of Nagle + delayed ACK; check TCP_NODELAY on the target"
	}
	bc.cellRow(ci, "nagle_floor", !near, nil, num(floor), nil, "us", detail)
}

// affinity: every thread of the target and of the load generator runs on
// the CPU set it was given, read back from /proc/<pid>/task/*/status.
func (bc *batchCheck) affinity(ci cellInfo) {
	a := ci.cp.Affinity
	if a == nil {
		return
	}
	tok, td := affinityOf("target", a.TargetDeclared, a.Target)
	lok, ld := affinityOf("load generator", a.LoadgenDeclared, a.Loadgen)
	bc.cellRow(ci, "affinity", tok && lok, nil, nil, nil, "", td+"; "+ld)
}

// affinityOf says whether every thread of role may run on exactly the
// declared CPU set (compared as sets: "0,1" and "0-1" are one set), and
// lists the masks read back.
func affinityOf(role string, declared cpuset.Set, masks pipeline.ThreadMasks) (bool, string) {
	if len(masks) == 0 {
		return false, role + ": no thread read back"
	}
	ok := true
	var parts []string
	for _, m := range masks {
		if !m.CPUs.Equal(declared) {
			ok = false
		}
		parts = append(parts, fmt.Sprintf("%d thread(s) on %s", m.Threads, m.CPUs))
	}
	return ok, fmt.Sprintf("%s declared %s: %s", role, declared, strings.Join(parts, ", "))
}

// gcWindow: GC statistics come from the kept window only; the collections
// before and after it are recorded beside it.
func (bc *batchCheck) gcWindow(ci cellInfo) {
	g := ci.cp.GC
	kind := ci.variant.Kind
	if g == nil {
		if kind == "go" || kind == "jvm" {
			bc.cellRow(ci, "gc_window", false, nil, nil, nil, "", "no GC log: GC statistics cannot be attributed to the window (enable gcLog)")
		}
		return
	}
	bc.cellRow(ci, "gc_window", true, nil, num(float64(g.Count)), nil, "collections",
		fmt.Sprintf("%d collection(s) in the window (%s), %d before it (warm-up), %d after it (idle); pauses %d us total, %d us max",
			g.Count, g.Source, g.CountBefore, g.CountAfter, g.PauseTotalUS, g.PauseMaxUS))
}
