// Package compare joins two runs of one plan (a run and its rerun months
// later, say) by cell id and says, per metric, how the second run's numbers
// relate to the first's, with the report's noise-aware verdicts.
//
// The flow: read both runs' cells tables (through datasets), their locks
// and environments; list what changed around the cells first (binaries,
// machine, toolchains); then the cells only one run has; then, per batch,
// variant and workload point, the repeats both runs measured as two
// samples, compared with stats.Compare (A is the baseline, B the
// candidate; the batch's declared noise band from B's plan).
package compare

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"yardstick/datasets"
	"yardstick/pipeline"
	"yardstick/stats"
)

// A Metric is one compared column of the cells table.
type Metric struct {
	Name          string
	LowerIsBetter bool
	get           func(*datasets.Cell) (float64, bool)
}

func i64(p *int64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return float64(*p), true
}

func f64(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// Metrics are the compared metrics, in output order. max is not compared
// (it is never ranked).
var Metrics = []Metric{
	{"rps", false, func(c *datasets.Cell) (float64, bool) { return f64(c.RPS) }},
	{"p50", true, func(c *datasets.Cell) (float64, bool) { return i64(c.LatencyP50US) }},
	{"p99", true, func(c *datasets.Cell) (float64, bool) { return i64(c.LatencyP99US) }},
	{"p99.9", true, func(c *datasets.Cell) (float64, bool) { return i64(c.LatencyP999US) }},
	{"RSS", true, func(c *datasets.Cell) (float64, bool) { return i64(c.RSSSteadyBytes) }},
	{"CPU/req", true, func(c *datasets.Cell) (float64, bool) { return f64(c.CPUPerRequestUS) }},
	{"cold start", true, func(c *datasets.Cell) (float64, bool) { return i64(c.ColdStartUS) }},
}

// A Run is one side of the comparison.
type Run struct {
	Dir   *pipeline.RunDir
	Plan  *pipeline.Plan
	Lock  *pipeline.Lock // nil for a run without lock.json
	Env   *pipeline.Environment
	Cells []datasets.Cell
}

// Load reads a run directory: its cells table, plan, lock and environment.
func Load(dir string) (*Run, error) {
	rd, err := pipeline.OpenRunDir(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: rd}
	if r.Plan, err = rd.ReadPlan(); err != nil {
		return nil, err
	}
	if r.Env, err = rd.ReadEnvironment(); err != nil {
		return nil, err
	}
	if l, err := rd.ReadLock(); err == nil {
		r.Lock = l
	}
	cells, _, err := datasets.Cells.Read(datasets.Cells.Path(rd.Root))
	if err != nil {
		return nil, fmt.Errorf("compare %s: %w (run yardstick datasets on it first)", rd.Root, err)
	}
	r.Cells = cells
	return r, nil
}

// A Row compares one group of cells (batch, variant, workload point) over
// the repeats both runs measured.
type Row struct {
	Batch, Variant, Point string
	Repeats               int // cell ids measured (ok or unfair) in both runs
	Comparisons           []stats.Comparison
	Unfair                bool // a cell of the group is unfair in either run
}

// Result is the whole comparison.
type Result struct {
	A, B     *Run
	Drift    []pipeline.Drift // binaries and environment, A's lock against B's
	OnlyA    []string         // cell names measured only in A
	OnlyB    []string
	SamePlan bool
	Rows     []Row
}

// Compare joins a and b by cell id.
func Compare(a, b *Run) *Result {
	res := &Result{A: a, B: b, SamePlan: a.Plan.Hash == b.Plan.Hash}
	la, lb := a.Lock, b.Lock
	if la != nil && lb != nil {
		res.Drift = la.Diff(lb)
	} else {
		fa, fb := a.Env.Fingerprint, b.Env.Fingerprint
		res.Drift = (&pipeline.Lock{Fingerprint: fa}).Diff(&pipeline.Lock{Fingerprint: fb})
	}
	measured := func(c *datasets.Cell) bool { return c.Status == pipeline.StatusOK || c.Status == "unfair" }
	ia := map[string]*datasets.Cell{}
	for i := range a.Cells {
		if measured(&a.Cells[i]) {
			ia[a.Cells[i].CellID] = &a.Cells[i]
		}
	}
	ib := map[string]*datasets.Cell{}
	for i := range b.Cells {
		if measured(&b.Cells[i]) {
			ib[b.Cells[i].CellID] = &b.Cells[i]
		}
	}
	type group struct {
		row  Row
		a, b []*datasets.Cell
	}
	groups := map[string]*group{}
	var order []string
	for i := range b.Cells {
		cb := &b.Cells[i]
		if !measured(cb) {
			continue
		}
		ca, ok := ia[cb.CellID]
		if !ok {
			res.OnlyB = append(res.OnlyB, cb.CellName)
			continue
		}
		key := cb.Batch + "\x00" + cb.Variant + "\x00" + pointOf(cb)
		g := groups[key]
		if g == nil {
			g = &group{row: Row{Batch: cb.Batch, Variant: cb.Variant, Point: pointOf(cb)}}
			groups[key] = g
			order = append(order, key)
		}
		g.a = append(g.a, ca)
		g.b = append(g.b, cb)
		g.row.Unfair = g.row.Unfair || ca.Status != pipeline.StatusOK || cb.Status != pipeline.StatusOK
	}
	for i := range a.Cells {
		ca := &a.Cells[i]
		if _, ok := ib[ca.CellID]; measured(ca) && !ok {
			res.OnlyA = append(res.OnlyA, ca.CellName)
		}
	}
	sort.Strings(res.OnlyA)
	sort.Strings(res.OnlyB)
	for _, key := range order {
		g := groups[key]
		g.row.Repeats = len(g.a)
		noise := noiseOf(b.Plan, g.row.Batch)
		for _, m := range Metrics {
			g.row.Comparisons = append(g.row.Comparisons, stats.Compare(values(g.a, m), values(g.b, m), m.LowerIsBetter, noise))
		}
		res.Rows = append(res.Rows, g.row)
	}
	return res
}

func values(cs []*datasets.Cell, m Metric) []float64 {
	var out []float64
	for _, c := range cs {
		if v, ok := m.get(c); ok {
			out = append(out, v)
		}
	}
	return out
}

func noiseOf(p *pipeline.Plan, batch string) float64 {
	for _, b := range p.Batches {
		if b.Name == batch {
			return b.Fairness.Noise
		}
	}
	return 0
}

// pointOf formats a cell's workload point: "c32 p128", "rate 2000".
func pointOf(c *datasets.Cell) string {
	var parts []string
	switch {
	case c.Concurrency != nil:
		parts = append(parts, "c"+strconv.FormatInt(*c.Concurrency, 10))
	case c.RateTarget != nil:
		parts = append(parts, "rate "+strconv.FormatFloat(*c.RateTarget, 'f', -1, 64))
	}
	if c.Payload != nil {
		parts = append(parts, "p"+strconv.FormatInt(*c.Payload, 10))
	}
	return strings.Join(parts, " ")
}

// cellText formats one comparison: "1.03x ~" or "0.71x better".
func cellText(c stats.Comparison) string {
	if c.Verdict == stats.NoData || math.IsNaN(c.Ratio) {
		return "n/a"
	}
	v := c.Verdict
	if v == stats.Tie {
		v = "~"
	}
	return fmt.Sprintf("%.2fx %s", c.Ratio, v)
}

// WriteText writes the comparison as plain text; markdown as Markdown.
func Write(w io.Writer, r *Result, markdown bool) error {
	var b strings.Builder
	h := func(s string) {
		if markdown {
			b.WriteString("\n## " + s + "\n\n")
		} else {
			b.WriteString("\n" + s + "\n")
		}
	}
	title := fmt.Sprintf("compare %s run %s (A) with run %s (B)", r.B.Plan.Experiment, r.A.Dir.ID(), r.B.Dir.ID())
	if markdown {
		b.WriteString("# yardstick " + title + "\n")
	} else {
		b.WriteString(title + "\n")
	}
	if r.SamePlan {
		fmt.Fprintf(&b, "\nSame plan (hash %s): the cells are joined by id.\n", short(r.B.Plan.Hash))
	} else {
		fmt.Fprintf(&b, "\nThe plans differ (hash %s vs %s): only cells with the same id are compared.\n", short(r.A.Plan.Hash), short(r.B.Plan.Hash))
	}

	h("What changed around the cells")
	if len(r.Drift) == 0 {
		b.WriteString("Nothing: the same binaries, machine fingerprint and toolchains.\n")
	}
	for _, d := range r.Drift {
		if markdown {
			fmt.Fprintf(&b, "- %s `%s`: `%s` → `%s`\n", d.What, d.Item, d.Was, d.Now)
		} else {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	if lb := r.B.Lock; lb != nil && lb.RerunOf != "" {
		fmt.Fprintf(&b, "B is a rerun of %s", lb.RerunOf)
		if len(lb.Drift) > 0 {
			fmt.Fprintf(&b, ", run with --allow-drift (%d difference(s) recorded)", len(lb.Drift))
		}
		b.WriteString(".\n")
	}

	h("Cells in one run only")
	if len(r.OnlyA)+len(r.OnlyB) == 0 {
		b.WriteString("None: every measured cell is in both runs.\n")
	}
	for _, n := range r.OnlyA {
		fmt.Fprintf(&b, "- only in A: %s\n", n)
	}
	for _, n := range r.OnlyB {
		fmt.Fprintf(&b, "- only in B: %s\n", n)
	}

	h("B against A")
	b.WriteString("Ratio B / A of the medians over the repeats both runs measured (for latency, memory, CPU and cold start above 1 is worse); ~ is a tie: inside the batch's noise band or the repeats' spread, or not significant (Mann-Whitney U) with 5 or more repeats. Unfair cells are marked.\n\n")
	var names []string
	for _, m := range Metrics {
		names = append(names, m.Name)
	}
	if markdown {
		fmt.Fprintf(&b, "| batch | variant | point | repeats | %s |\n|---|---|---|--:|%s\n", strings.Join(names, " | "), strings.Repeat("--:|", len(names)))
	} else {
		fmt.Fprintf(&b, "%-12s %-14s %-10s %7s", "batch", "variant", "point", "repeats")
		for _, n := range names {
			fmt.Fprintf(&b, " %14s", n)
		}
		b.WriteString("\n")
	}
	for _, row := range r.Rows {
		variant := row.Variant
		if row.Unfair {
			variant += " (unfair)"
		}
		var cells []string
		for _, c := range row.Comparisons {
			cells = append(cells, cellText(c))
		}
		if markdown {
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %s |\n", row.Batch, variant, row.Point, row.Repeats, strings.Join(cells, " | "))
			continue
		}
		fmt.Fprintf(&b, "%-12s %-14s %-10s %7d", row.Batch, variant, row.Point, row.Repeats)
		for _, c := range cells {
			fmt.Fprintf(&b, " %14s", c)
		}
		b.WriteString("\n")
	}
	if len(r.Rows) == 0 {
		b.WriteString("No cell was measured in both runs.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func short(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return h
}
