package schema

import (
	"strconv"
	"strings"

	"yardstick/pipeline"
)

// A batch's matrix: its workload points, and the include and exclude rules
// that trim variants x points x repeats into cells.

// Points lists the workload points in order: payload-major, then
// concurrency or rate as declared.
func Points(w *Workload) []pipeline.Point {
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
	if pt.Mode == "closed" {
		m["concurrency"] = strconv.Itoa(pt.Concurrency)
	} else {
		m["rate"] = Rate{PerSecond: pt.Rate, PeakFraction: pt.PeakFraction}.String()
	}
	for _, k := range v.Knobs {
		m[k.Name] = k.Value
	}
	return m
}

// MatchKeys lists the keys an include or exclude rule may use.
var MatchKeys = append([]string{"target", "payload", "concurrency", "rate", "repeat"}, KnobNames...)

func matches(rule Match, vals map[string]string) bool {
	for k, want := range rule {
		got, ok := vals[k]
		if !ok || !strings.EqualFold(got, want) {
			return false
		}
	}
	return true
}

// Keep reports whether batch b keeps the cell of variant v at point pt and
// repeat after its include and exclude rules.
func Keep(b *Batch, v *pipeline.Variant, pt pipeline.Point, repeat int) bool {
	vals := matchValues(v, pt, repeat)
	if len(b.Include) > 0 {
		in := false
		for _, r := range b.Include {
			if matches(r, vals) {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	for _, r := range b.Exclude {
		if matches(r, vals) {
			return false
		}
	}
	return true
}

// RuleMatches counts the cells of batch b an include or exclude rule
// matches before any trimming, so validate can warn about a rule that
// matches nothing.
func RuleMatches(b *Batch, rule Match) int {
	n := 0
	points := Points(&b.Workload)
	for _, t := range b.Targets {
		for _, v := range Variants(b, t) {
			for r := 1; r <= b.Repeats; r++ {
				for _, pt := range points {
					if matches(rule, matchValues(&v, pt, r)) {
						n++
					}
				}
			}
		}
	}
	return n
}

// CellCount is the number of cells batch b expands to after its include
// and exclude rules, counted without building them.
func CellCount(b *Batch) int {
	n := 0
	points := Points(&b.Workload)
	for _, t := range b.Targets {
		for _, v := range Variants(b, t) {
			for r := 1; r <= b.Repeats; r++ {
				for _, pt := range points {
					if Keep(b, &v, pt, r) {
						n++
					}
				}
			}
		}
	}
	return n
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
