package report

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// The charts are hand-written SVG: no script, fixed sizes, colours and
// number formats, series in the order given, so that the same tables give
// the same bytes. Structure the tests rely on: every chart has a
// <text class="title">, axes are <g class="axis ...">, every series is a
// <g class="series" data-name="..."> holding one <polyline class="line">
// (or <polygon class="area"> in the radar) and a <circle class="point">
// per point.

type xy struct{ x, y float64 }

type series struct {
	name  string
	color string
	pts   []xy
}

type tick struct {
	v     float64
	label string
}

type lineChart struct {
	title, xLabel, yLabel string
	xLog, yLog            bool
	// xTicks, when set, replace the computed x ticks.
	xTicks  []tick
	yFormat func(float64) string
	// yTick, when set, labels the ticks of a log y axis (powers of ten).
	yTick  func(float64) string
	series []series
	// vline draws a dashed vertical marker at x (when not NaN).
	vline      float64
	vlineLabel string
	// zeroY starts a linear y axis at 0.
	zeroY bool
}

const (
	chartW, chartH                  = 720, 380
	marginL, marginR, marginT, marB = 78, 170, 40, 52
)

func esc(s string) string { return html.EscapeString(s) }

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }

func svgOpen(b *strings.Builder, w, h int, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">`+"\n", w, h, w, h)
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", w, h)
	fmt.Fprintf(b, `<text class="title" x="%d" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", 12, esc(title))
}

func (c *lineChart) tr(v float64, log bool) float64 {
	if log {
		if v <= 0 {
			return math.NaN()
		}
		return math.Log10(v)
	}
	return v
}

// svg draws the chart.
func (c *lineChart) svg() string {
	var xs, ys []float64
	for _, s := range c.series {
		for _, p := range s.pts {
			if x, y := c.tr(p.x, c.xLog), c.tr(p.y, c.yLog); !math.IsNaN(x) && !math.IsNaN(y) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
				xs, ys = append(xs, x), append(ys, y)
			}
		}
	}
	var b strings.Builder
	svgOpen(&b, chartW, chartH, c.title)
	if len(xs) == 0 {
		b.WriteString(`<text x="20" y="60">no data</text>` + "\n</svg>\n")
		return b.String()
	}
	x0, x1 := minMax(xs)
	y0, y1 := minMax(ys)
	for _, t := range c.xTicks {
		v := c.tr(t.v, c.xLog)
		x0, x1 = math.Min(x0, v), math.Max(x1, v)
	}
	var yt []tick
	if c.yLog {
		y0, y1 = math.Floor(y0), math.Ceil(y1)
		if y1 == y0 {
			y1++
		}
		for e := y0; e <= y1+1e-9; e++ {
			f := c.yFormat
			if c.yTick != nil {
				f = c.yTick
			}
			yt = append(yt, tick{e, f(math.Pow(10, e))})
		}
	} else {
		if c.zeroY {
			y0 = math.Min(0, y0)
		}
		var step float64
		y0, y1, step = niceRange(y0, y1)
		for v := y0; v <= y1+step/1e6; v += step {
			yt = append(yt, tick{v, c.yFormat(v)})
		}
	}
	if x1 == x0 {
		x0, x1 = x0-1, x1+1
	}
	pw, ph := float64(chartW-marginL-marginR), float64(chartH-marginT-marB)
	px := func(v float64) float64 { return float64(marginL) + (v-x0)/(x1-x0)*pw }
	py := func(v float64) float64 { return float64(marginT) + ph - (v-y0)/(y1-y0)*ph }

	// axes
	fmt.Fprintf(&b, `<g class="axis y" stroke="#999">`+"\n")
	for _, t := range yt {
		fmt.Fprintf(&b, `<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e5e5e5"/>`+"\n", f1(px(x0)), f1(py(t.v)), f1(px(x1)), f1(py(t.v)))
		fmt.Fprintf(&b, `<text class="tick" x="%s" y="%s" text-anchor="end" stroke="none" fill="#333">%s</text>`+"\n", f1(px(x0)-6), f1(py(t.v)+4), esc(t.label))
	}
	fmt.Fprintf(&b, `<text class="label" transform="translate(14 %s) rotate(-90)" text-anchor="middle" stroke="none" fill="#333">%s</text>`+"\n", f1(float64(marginT)+ph/2), esc(c.yLabel))
	b.WriteString("</g>\n")
	xt := c.xTicks
	if xt == nil {
		if c.xLog {
			for e := math.Floor(x0); e <= math.Ceil(x1); e++ {
				xt = append(xt, tick{math.Pow(10, e), trimFloat(math.Pow(10, e))})
			}
		} else {
			lo, hi, step := niceRange(x0, x1)
			for v := lo; v <= hi+step/1e6; v += step {
				if v >= x0-1e-9 && v <= x1+1e-9 {
					xt = append(xt, tick{v, trimFloat(math.Round(v*1000) / 1000)})
				}
			}
		}
	}
	fmt.Fprintf(&b, `<g class="axis x" stroke="#999">`+"\n")
	fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", f1(px(x0)), f1(py(y0)), f1(px(x1)), f1(py(y0)))
	for _, t := range xt {
		v := c.tr(t.v, c.xLog)
		if v < x0-1e-9 || v > x1+1e-9 {
			continue
		}
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", f1(px(v)), f1(py(y0)), f1(px(v)), f1(py(y0)+5))
		fmt.Fprintf(&b, `<text class="tick" x="%s" y="%s" text-anchor="middle" stroke="none" fill="#333">%s</text>`+"\n", f1(px(v)), f1(py(y0)+18), esc(t.label))
	}
	fmt.Fprintf(&b, `<text class="label" x="%s" y="%d" text-anchor="middle" stroke="none" fill="#333">%s</text>`+"\n", f1(float64(marginL)+pw/2), chartH-10, esc(c.xLabel))
	b.WriteString("</g>\n")
	if !math.IsNaN(c.vline) {
		v := c.tr(c.vline, c.xLog)
		fmt.Fprintf(&b, `<g class="marker"><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#555" stroke-dasharray="4 3"/><text x="%s" y="%s" fill="#555">%s</text></g>`+"\n",
			f1(px(v)), f1(py(y1)), f1(px(v)), f1(py(y0)), f1(px(v)+4), f1(py(y1)+12), esc(c.vlineLabel))
	}
	for i, s := range c.series {
		fmt.Fprintf(&b, `<g class="series" data-name="%s" stroke="%s" fill="%s">`+"\n", esc(s.name), s.color, s.color)
		var pts []string
		for _, p := range s.pts {
			x, y := c.tr(p.x, c.xLog), c.tr(p.y, c.yLog)
			if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(y, 0) {
				continue
			}
			pts = append(pts, f1(px(x))+","+f1(py(y)))
		}
		fmt.Fprintf(&b, `<polyline class="line" fill="none" stroke-width="2" points="%s"/>`+"\n", strings.Join(pts, " "))
		for _, p := range pts {
			xy := strings.SplitN(p, ",", 2)
			fmt.Fprintf(&b, `<circle class="point" cx="%s" cy="%s" r="3"/>`+"\n", xy[0], xy[1])
		}
		b.WriteString("</g>\n")
		// legend
		ly := marginT + 8 + 20*i
		fmt.Fprintf(&b, `<g class="legend"><line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/><text x="%d" y="%d">%s</text></g>`+"\n",
			chartW-marginR+12, ly, chartW-marginR+32, ly, s.color, chartW-marginR+38, ly+4, esc(s.name))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func minMax(vs []float64) (float64, float64) {
	lo, hi := vs[0], vs[0]
	for _, v := range vs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}

// niceRange widens [lo, hi] to multiples of a 1-2-5 step giving about
// five ticks.
func niceRange(lo, hi float64) (float64, float64, float64) {
	if hi == lo {
		if hi == 0 {
			return 0, 1, 0.25
		}
		lo, hi = lo-math.Abs(lo)*0.1, hi+math.Abs(hi)*0.1
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag * 10
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	return math.Floor(lo/step) * step, math.Ceil(hi/step) * step, step
}

// radarChart draws the seven dimensions: each variant's score per axis,
// 100 + 30 log10(advantage over the baseline), the baseline being the
// circle at 100. Scores are drawn clamped to 0..200.
type radarChart struct {
	title  string
	axes   []string
	series []radarSeries
}

type radarSeries struct {
	name, color string
	scores      []float64 // NaN: no data on that axis
	baseline    bool
}

func (c *radarChart) svg() string {
	const w, h, cx, cy, R = 720, 520, 300.0, 280.0, 200.0
	var b strings.Builder
	svgOpen(&b, w, h, c.title)
	n := len(c.axes)
	ang := func(i int) float64 { return -math.Pi/2 + 2*math.Pi*float64(i)/float64(n) }
	at := func(i int, score float64) (float64, float64) {
		r := R * math.Max(0, math.Min(200, score)) / 200
		return cx + r*math.Cos(ang(i)), cy + r*math.Sin(ang(i))
	}
	b.WriteString(`<g class="rings" fill="none">` + "\n")
	for _, s := range []float64{50, 100, 150, 200} {
		stroke, width := "#ddd", "1"
		if s == 100 {
			stroke, width = "#555", "1.5"
		}
		fmt.Fprintf(&b, `<circle class="ring" data-score="%g" cx="%s" cy="%s" r="%s" stroke="%s" stroke-width="%s"/>`+"\n", s, f1(cx), f1(cy), f1(R*s/200), stroke, width)
		fmt.Fprintf(&b, `<text x="%s" y="%s" fill="#888" stroke="none" font-size="10">%g</text>`+"\n", f1(cx+3), f1(cy-R*s/200-2), s)
	}
	b.WriteString("</g>\n")
	for i, a := range c.axes {
		x, y := at(i, 200)
		lx, ly := cx+(R+18)*math.Cos(ang(i)), cy+(R+18)*math.Sin(ang(i))
		anchor := "middle"
		if math.Cos(ang(i)) > 0.2 {
			anchor = "start"
		} else if math.Cos(ang(i)) < -0.2 {
			anchor = "end"
		}
		fmt.Fprintf(&b, `<g class="axis" data-axis="%s"><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#bbb"/><text x="%s" y="%s" text-anchor="%s">%s</text></g>`+"\n",
			esc(a), f1(cx), f1(cy), f1(x), f1(y), f1(lx), f1(ly+4), anchor, esc(a))
	}
	for k, s := range c.series {
		dash := ""
		if s.baseline {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<g class="series" data-name="%s" stroke="%s" fill="%s">`+"\n", esc(s.name), s.color, s.color)
		var pts []string
		var circles []string
		for i, sc := range s.scores {
			if math.IsNaN(sc) {
				sc = 100 // no data on the axis: drawn on the baseline circle
			}
			x, y := at(i, sc)
			pts = append(pts, f1(x)+","+f1(y))
			circles = append(circles, fmt.Sprintf(`<circle class="point" data-axis="%s" data-score="%.1f" cx="%s" cy="%s" r="3"/>`, esc(c.axes[i]), sc, f1(x), f1(y)))
		}
		fmt.Fprintf(&b, `<polygon class="area" fill-opacity="0.12" stroke-width="2"%s points="%s"/>`+"\n", dash, strings.Join(pts, " "))
		b.WriteString(strings.Join(circles, "\n") + "\n</g>\n")
		ly := 60 + 20*k
		fmt.Fprintf(&b, `<g class="legend"><line x1="560" y1="%d" x2="580" y2="%d" stroke="%s" stroke-width="3"%s/><text x="586" y="%d">%s</text></g>`+"\n", ly, ly, s.color, dash, ly+4, esc(s.name))
	}
	b.WriteString(`<text x="12" y="510" fill="#555" font-size="11">score = 100 + 30 log10(advantage / baseline advantage); circle at 100 = baseline; outward is better</text>` + "\n")
	b.WriteString("</svg>\n")
	return b.String()
}
