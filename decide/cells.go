package decide

import (
	"math"

	"yardstick/datasets"
	"yardstick/pipeline"
)

// StartsOf are the cells' figures of metric m as the starts of one side
// of a decision: each cell is one process start of its variant at its
// point. A load figure of a cell whose load never reached a steady state
// is marked so (Start.NeverSteady), and left out of the decision; a cell
// that drifted inside its kept window counts, its drift in its
// half-width.
func StartsOf(cells []*datasets.Cell, m Metric) []Start {
	var out []Start
	for _, c := range cells {
		v, ok := m.Value(c)
		if !ok {
			continue
		}
		hw := math.NaN()
		if m.HalfWidth != nil {
			hw = m.HalfWidth(c)
		}
		if m.Floor > 0 {
			v = max(v, m.Floor)
			hw = m.Floor / v
		}
		out = append(out, Start{Value: v, HalfWidth: hw, NeverSteady: m.Load && NeverSteady(c)})
	}
	return out
}

// NeverSteady says a cell's load never reached a steady segment of the
// minimum length: its steady-state analysis could not run, or its
// throughput series has no final steady segment (no_steady_state) while
// nothing else saw one either. An adaptive warm-up that ended before its
// cap ended because it saw steadyFor of steady load: such a cell reached
// a steady state, whatever the series does later (a drift inside the
// kept window widens the start's interval). Such cells' load figures are
// left out of the decisions, and the comparisons say how many were;
// nothing else leaves a measured cell out.
func NeverSteady(c *datasets.Cell) bool {
	if c.SteadyError != nil {
		return true
	}
	if c.WarmupAuto != nil && *c.WarmupAuto && (c.WarmupCapped == nil || !*c.WarmupCapped) {
		return false
	}
	return c.SteadyClass != nil && *c.SteadyClass == pipeline.SteadyNone
}

// BaselineVariant is the variant that the name (a variant label, else a
// target whose first variant in plan order is taken) names among the
// batch's cells; "" when none does.
func BaselineVariant(cells []*datasets.Cell, name string) string {
	if name == "" {
		return ""
	}
	first := ""
	var firstSeq int64 = math.MaxInt64
	for _, c := range cells {
		if c.Variant == name {
			return name
		}
		if c.Target == name && c.Seq < firstSeq {
			first, firstSeq = c.Variant, c.Seq
		}
	}
	return first
}
