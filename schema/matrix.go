package schema

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"yardstick/pipeline"
)

// A batch's matrix: its workload points, and the include and exclude rules
// that trim variants x points x repeats into cells.

// Points lists the workload points in order: payload-major, then
// concurrency or rate as declared.
// A hold workload is one point: its steps, held.
func Points(w *Workload) []pipeline.Point {
	if w.Hold != nil {
		if len(w.Hold.Steps) == 0 {
			return nil
		}
		return []pipeline.Point{{Mode: "hold", Connections: w.Hold.Steps[len(w.Hold.Steps)-1], Hold: w.Hold}}
	}
	payloads := []*int{nil}
	if len(w.Payload) > 0 {
		payloads = payloads[:0]
		for i := range w.Payload {
			payloads = append(payloads, &w.Payload[i])
		}
	}
	var out []pipeline.Point
	for _, p := range payloads {
		for _, c := range w.Concurrency {
			out = append(out, pipeline.Point{Payload: p, Mode: "closed", Concurrency: c})
		}
		for _, r := range w.Rate {
			out = append(out, pipeline.Point{Payload: p, Mode: "open", Connections: w.Connections, Rate: r.PerSecond, PeakFraction: r.PeakFraction})
		}
	}
	return out
}

// matchValues returns the values include/exclude keys compare against for a
// cell, as canonical strings.
func matchValues(v *pipeline.Variant, pt pipeline.Point, repeat int) map[string]string {
	m := map[string]string{
		"target": v.Target,
		"repeat": strconv.Itoa(repeat),
	}
	if pt.Payload != nil {
		m["payload"] = strconv.Itoa(*pt.Payload)
	}
	switch pt.Mode {
	case "closed":
		m["concurrency"] = strconv.Itoa(pt.Concurrency)
	case "hold":
	default:
		m["rate"] = Rate{PerSecond: pt.Rate, PeakFraction: pt.PeakFraction}.String()
	}
	for _, k := range v.Knobs {
		m[k.Name] = k.Value
	}
	return m
}

// MatchKeys lists the keys an include or exclude rule may use.
var MatchKeys = append([]string{"target", "payload", "concurrency", "rate", "repeat"}, KnobNames...)

// Keep reports whether batch b keeps the cell of variant v at point pt and
// repeat after its include and exclude rules. It compiles the rules on
// every call: code that asks about many cells uses NewMatcher once.
func Keep(b *Batch, v *pipeline.Variant, pt pipeline.Point, repeat int) bool {
	return NewMatcher(b).Keep(v, pt, repeat)
}

// A Matcher decides which cells of one batch its include and exclude rules
// keep, in time linear in the cells: rules are grouped by the set of keys
// they name and looked up by the cell's values of those keys, so a cell
// costs one map lookup per key set, not one comparison per rule.
type Matcher struct {
	include, exclude ruleIndex
}

// ruleIndex holds the rules of one kind (include or exclude), grouped by
// key set.
type ruleIndex struct {
	n      int
	groups []ruleGroup
}

// ruleGroup is the rules that name exactly keys: the folded values of
// those keys, as one tuple, give the indexes of the rules that want them.
type ruleGroup struct {
	keys   []string
	byVals map[string][]int
}

// NewMatcher compiles the include and exclude rules of batch b.
func NewMatcher(b *Batch) *Matcher {
	return &Matcher{include: indexRules(b.Include), exclude: indexRules(b.Exclude)}
}

func indexRules(rules []Match) ruleIndex {
	ix := ruleIndex{n: len(rules)}
	bySig := map[string]int{}
	for i, r := range rules {
		keys := slices.Sorted(maps.Keys(r))
		sig := tupleKey(keys, func(k string) string { return k })
		g, ok := bySig[sig]
		if !ok {
			g = len(ix.groups)
			bySig[sig] = g
			ix.groups = append(ix.groups, ruleGroup{keys: keys, byVals: map[string][]int{}})
		}
		t := tupleKey(keys, func(k string) string { return fold(r[k]) })
		ix.groups[g].byVals[t] = append(ix.groups[g].byVals[t], i)
	}
	return ix
}

// KeySets is how many distinct key sets the batch's rules name (include
// and exclude together): the per-cell cost of matching.
func (m *Matcher) KeySets() int { return len(m.include.groups) + len(m.exclude.groups) }

// Keep reports whether the cell of variant v at point pt and repeat is
// kept.
func (m *Matcher) Keep(v *pipeline.Variant, pt pipeline.Point, repeat int) bool {
	return m.keep(matchValues(v, pt, repeat))
}

func (m *Matcher) keep(vals map[string]string) bool {
	if m.include.n > 0 && !m.include.any(vals) {
		return false
	}
	return !m.exclude.any(vals)
}

// any reports whether a rule of ix matches vals.
func (ix *ruleIndex) any(vals map[string]string) bool {
	for gi := range ix.groups {
		if len(ix.groups[gi].lookup(vals)) > 0 {
			return true
		}
	}
	return false
}

// count adds one to n[i] for every rule i of ix that matches vals.
func (ix *ruleIndex) count(vals map[string]string, n []int) {
	for gi := range ix.groups {
		for _, i := range ix.groups[gi].lookup(vals) {
			n[i]++
		}
	}
}

// lookup returns the rules of g that match vals: none when the cell lacks
// one of g's keys.
func (g *ruleGroup) lookup(vals map[string]string) []int {
	for _, k := range g.keys {
		if _, ok := vals[k]; !ok {
			return nil
		}
	}
	return g.byVals[tupleKey(g.keys, func(k string) string { return fold(vals[k]) })]
}

// tupleKey joins the values of keys, each prefixed by its length so that
// no value can forge a separator.
func tupleKey(keys []string, val func(string) string) string {
	var sb strings.Builder
	for _, k := range keys {
		v := val(k)
		sb.WriteString(strconv.Itoa(len(v)))
		sb.WriteByte(':')
		sb.WriteString(v)
	}
	return sb.String()
}

// fold maps s to a form that is equal for two strings exactly when
// strings.EqualFold says they are: each rune becomes the smallest rune of
// its simple case-folding orbit.
func fold(s string) string {
	var sb strings.Builder
	for _, r := range s {
		low := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			low = min(low, f)
		}
		sb.WriteRune(low)
	}
	return sb.String()
}

// MaxRuleWork caps cells x key sets, the work of matching a batch's rules:
// 100 key sets at the largest matrix validate accepts. A definition over
// it is refused rather than left to run for minutes.
const MaxRuleWork = 10_000_000

// RuleCounts is what one pass over a batch's cells tells about its rules.
type RuleCounts struct {
	Include, Exclude []int // cells each rule matches before any trimming
	Kept             int   // cells left after the rules
}

// CountRules walks every cell of batch b once and counts, for each include
// and exclude rule, the cells it matches, and the cells kept. It stops
// with ctx's cause when ctx ends, and refuses a batch whose cells x key
// sets exceed MaxRuleWork.
func CountRules(ctx context.Context, b *Batch) (RuleCounts, error) {
	m := NewMatcher(b)
	rc := RuleCounts{Include: make([]int, len(b.Include)), Exclude: make([]int, len(b.Exclude))}
	if cells := CellBound(b, MaxRuleWork); m.KeySets() > 0 && cells > MaxRuleWork/m.KeySets() {
		return rc, fmt.Errorf("include/exclude rules name %d different key sets over %d cells or more; matching them is capped at %d key sets x cells: use fewer key combinations", m.KeySets(), cells, MaxRuleWork)
	}
	points := Points(&b.Workload)
	seen := 0
	for _, t := range b.Targets {
		for _, v := range Variants(b, t) {
			for r := 1; r <= b.Repeats; r++ {
				for _, pt := range points {
					if seen++; seen%1024 == 0 && ctx.Err() != nil {
						return rc, context.Cause(ctx)
					}
					vals := matchValues(&v, pt, r)
					m.include.count(vals, rc.Include)
					m.exclude.count(vals, rc.Exclude)
					if m.keep(vals) {
						rc.Kept++
					}
				}
			}
		}
	}
	return rc, nil
}

// CellBound is the number of cells batch b would expand to before its
// include and exclude rules (variants x points x repeats), computed from
// the axes' lengths alone, so that a huge matrix is refused before it is
// built. It saturates at limit+1.
func CellBound(b *Batch, limit int) int {
	points := len(b.Workload.Concurrency) + len(b.Workload.Rate)
	if len(b.Workload.Payload) > 0 {
		points = mulSat(points, len(b.Workload.Payload), limit)
	}
	// A batch without points still resolves its variants: count them.
	perVariant := mulSat(max(points, 1), max(b.Repeats, 1), limit)
	total := 0
	for _, t := range b.Targets {
		n := perVariant
		for _, a := range Axes(t) {
			n = mulSat(n, len(a.Values), limit)
		}
		total = min(total+n, limit+1)
	}
	return total
}

// mulSat multiplies a and b, saturating at limit+1.
func mulSat(a, b, limit int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a > (limit+1)/b {
		return limit + 1
	}
	return min(a*b, limit+1)
}
