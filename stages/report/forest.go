package report

import (
	"fmt"
	"math"
	"strings"

	"yardstick/datasets"
	"yardstick/decide"
)

// A forestChart draws decisions as a forest plot: one row per variant and
// dimension, the ratio to the baseline as a dot on a log axis with its
// 95% interval as a whisker, the margin as a shaded band around 1, the
// dot coloured by outcome. It is the report's picture of a decision.
type forestChart struct {
	title string
	rows  []forestRow
}

type forestRow struct {
	label string
	c     datasets.Comparison
}

// outcomeColour colours an outcome.
var outcomeColour = map[string]string{
	decide.Better: "#2ca02c", decide.Worse: "#d62728", decide.Equivalent: "#1f77b4", decide.Undecided: "#999999",
}

func (c *forestChart) svg() string {
	const w, rowH, left, right, top = 760, 22, 250, 110, 40
	h := top + rowH*len(c.rows) + 50
	lo, hi, margin := c.span()
	x := func(r float64) float64 {
		return left + (math.Log(r)-math.Log(lo))/(math.Log(hi)-math.Log(lo))*float64(w-left-right)
	}
	var b strings.Builder
	svgOpen(&b, w, h, c.title)
	fmt.Fprintf(&b, `<rect class="margin" x="%s" y="%d" width="%s" height="%d" fill="#1f77b4" fill-opacity="0.08"/>`+"\n",
		f1(x(1-margin)), top-6, f1(x(1+margin)-x(1-margin)), rowH*len(c.rows)+6)
	fmt.Fprintf(&b, `<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="#555"/>`+"\n", f1(x(1)), top-6, f1(x(1)), top+rowH*len(c.rows))
	for _, t := range []float64{lo, 1 - margin, 1, 1 + margin, hi} {
		fmt.Fprintf(&b, `<text x="%s" y="%d" text-anchor="middle" font-size="10" fill="#555">%sx</text>`+"\n", f1(x(t)), top+rowH*len(c.rows)+14, trimFloat(math.Round(t*100)/100))
	}
	for i, r := range c.rows {
		y := top + rowH*i + rowH/2
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" font-size="11">%s</text>`+"\n", left-8, y+4, esc(r.label))
		col := outcomeColour[r.c.Verdict]
		if r.c.CILow != nil && r.c.CIHigh != nil {
			fmt.Fprintf(&b, `<line class="interval" x1="%s" y1="%d" x2="%s" y2="%d" stroke="%s" stroke-width="2"/>`+"\n",
				f1(x(clamp(*r.c.CILow, lo, hi))), y, f1(x(clamp(*r.c.CIHigh, lo, hi))), y, col)
		}
		if r.c.Ratio != nil {
			fmt.Fprintf(&b, `<circle class="decision" data-verdict="%s" cx="%s" cy="%d" r="4" fill="%s"/>`+"\n", r.c.Verdict, f1(x(clamp(*r.c.Ratio, lo, hi))), y, col)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" fill="%s">%s</text>`+"\n", w-right+8, y+4, col, esc(r.c.Verdict))
	}
	fmt.Fprintf(&b, `<text x="12" y="%d" fill="#555" font-size="11">ratio to the baseline (log axis), 95%% interval; shaded: the margin ±%s; right of 1 is higher, which is better only for throughput</text>`+"\n", h-10, fmtPct(margin))
	b.WriteString("</svg>\n")
	return b.String()
}

// span is the axis range (the intervals and the margin, at least 0.5x to
// 2x) and the margin.
func (c *forestChart) span() (lo, hi, margin float64) {
	lo, hi = 0.5, 2.0
	for _, r := range c.rows {
		margin = max(margin, r.c.Band)
		for _, v := range []*float64{r.c.CILow, r.c.CIHigh, r.c.Ratio} {
			if v != nil && *v > 0 {
				lo, hi = math.Min(lo, *v), math.Max(hi, *v)
			}
		}
	}
	lo, hi = math.Max(lo, 0.01), math.Min(hi, 100)
	return lo, hi, math.Min(margin, 0.9)
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }
