package report

import (
	"fmt"
	"math"
	"strings"
)

// A mark is a short vertical mark on a line chart at (x, y): a
// changepoint of the series named series, in its colour.
type mark struct {
	x, y   float64
	color  string
	series string
}

// A span is a shaded x range of a line chart: a kept window. One span is
// grey and labelled "kept window"; several (cells with different
// windows) are tinted in their series' colours.
type span struct {
	x0, x1 float64
	color  string
}

// drawSpans shades the chart's spans, under the series.
func (c *lineChart) drawSpans(b *strings.Builder, f frame) {
	for i, s := range c.spans {
		x0, x1 := c.tr(s.x0, c.xLog), c.tr(s.x1, c.xLog)
		if !finite(x0) || !finite(x1) {
			continue
		}
		x0, x1 = math.Max(x0, f.x0), math.Min(x1, f.x1)
		if x1 <= x0 {
			continue
		}
		fill, label := s.color, ""
		if len(c.spans) == 1 {
			fill = "#888"
		}
		if i == 0 {
			label = "kept window"
		}
		fmt.Fprintf(b, `<g class="kept"><rect x="%s" y="%s" width="%s" height="%s" fill="%s" fill-opacity="0.10"/><text x="%s" y="%s" fill="#555">%s</text></g>`+"\n",
			f1(f.px(x0)), f1(f.py(f.y1)), f1(f.px(x1)-f.px(x0)), f1(f.py(f.y0)-f.py(f.y1)), fill, f1(f.px(x0)+4), f1(f.py(f.y1)+12), esc(label))
	}
}

// drawMarks draws the chart's marks over the series: a vertical stroke 24
// pixels tall centred on the line.
func (c *lineChart) drawMarks(b *strings.Builder, f frame) {
	for _, m := range c.marks {
		x, y := c.tr(m.x, c.xLog), c.tr(m.y, c.yLog)
		if !finite(x) || !finite(y) || x < f.x0 || x > f.x1 {
			continue
		}
		px, py := f.px(x), math.Max(float64(marginT), math.Min(f.py(f.y0), f.py(y)))
		fmt.Fprintf(b, `<line class="changepoint" data-series="%s" x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2"/>`+"\n",
			esc(m.series), f1(px), f1(py-12), f1(px), f1(py+12), m.color)
	}
}
