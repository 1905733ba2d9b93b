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
	// legend, when set, is the legend text instead of name; noLegend
	// leaves the series out of the legend (a repeat drawn in the colour
	// of an entry above).
	legend   string
	noLegend bool
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
	// noDots draws the lines without a circle per point (long series).
	noDots bool
	// marks are short vertical marks on the lines (changepoints) and
	// spans shaded x ranges (kept windows), drawn by svgmarks.go.
	marks []mark
	spans []span
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

// maxTicks bounds an axis's ticks, whatever the data: a hostile table with
// huge or nearly equal values must not make a chart loop for ever.
const maxTicks = 12

// A frame maps data coordinates (after the log transform) to the plot
// area.
type frame struct {
	x0, x1, y0, y1 float64
	pw, ph         float64
}

func (f frame) px(v float64) float64 { return float64(marginL) + (v-f.x0)/(f.x1-f.x0)*f.pw }
func (f frame) py(v float64) float64 { return float64(marginT) + f.ph - (v-f.y0)/(f.y1-f.y0)*f.ph }

// svg draws the chart.
func (c *lineChart) svg() string {
	var b strings.Builder
	svgOpen(&b, chartW, chartH, c.title)
	f, yt, ok := c.frame()
	if !ok {
		b.WriteString(`<text x="20" y="60">no data</text>` + "\n</svg>\n")
		return b.String()
	}
	c.drawYAxis(&b, f, yt)
	c.drawXAxis(&b, f, c.xAxisTicks(f.x0, f.x1))
	if !math.IsNaN(c.vline) {
		v := c.tr(c.vline, c.xLog)
		fmt.Fprintf(&b, `<g class="marker"><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#555" stroke-dasharray="4 3"/><text x="%s" y="%s" fill="#555">%s</text></g>`+"\n",
			f1(f.px(v)), f1(f.py(f.y1)), f1(f.px(v)), f1(f.py(f.y0)), f1(f.px(v)+4), f1(f.py(f.y1)+12), esc(c.vlineLabel))
	}
	c.drawSpans(&b, f)
	entry := 0
	for _, s := range c.series {
		c.drawSeries(&b, f, entry, s)
		if !s.noLegend {
			entry++
		}
	}
	c.drawMarks(&b, f)
	b.WriteString("</svg>\n")
	return b.String()
}

// frame is the plot's extent over the finite points and the explicit x
// ticks, with the y ticks; ok is false when there is nothing to draw or
// the extent is not a finite range.
func (c *lineChart) frame() (frame, []tick, bool) {
	var xs, ys []float64
	for _, s := range c.series {
		for _, p := range s.pts {
			if x, y := c.tr(p.x, c.xLog), c.tr(p.y, c.yLog); finite(x) && finite(y) {
				xs, ys = append(xs, x), append(ys, y)
			}
		}
	}
	if len(xs) == 0 {
		return frame{}, nil, false
	}
	f := frame{pw: float64(chartW - marginL - marginR), ph: float64(chartH - marginT - marB)}
	f.x0, f.x1 = minMax(xs)
	f.y0, f.y1 = minMax(ys)
	for _, t := range c.xTicks {
		if v := c.tr(t.v, c.xLog); finite(v) {
			f.x0, f.x1 = math.Min(f.x0, v), math.Max(f.x1, v)
		}
	}
	var yt []tick
	f.y0, f.y1, yt = c.yAxis(f.y0, f.y1)
	if f.x1 == f.x0 {
		// One x: a range around it, wide enough to survive its precision.
		w := math.Max(1, math.Abs(f.x0)*1e-6)
		f.x0, f.x1 = f.x0-w, f.x1+w
	}
	if !finite(f.x1-f.x0) || !finite(f.y1-f.y0) || f.x1 <= f.x0 || f.y1 <= f.y0 {
		return frame{}, nil, false
	}
	return f, yt, true
}

// yAxis widens [y0, y1] to whole decades (log) or a 1-2-5 step (linear)
// and returns the ticks.
func (c *lineChart) yAxis(y0, y1 float64) (float64, float64, []tick) {
	var yt []tick
	if c.yLog {
		y0, y1 = math.Floor(y0), math.Ceil(y1)
		if y1 == y0 {
			y1++
		}
		f := c.yFormat
		if c.yTick != nil {
			f = c.yTick
		}
		for _, e := range decades(y0, y1) {
			yt = append(yt, tick{e, f(math.Pow(10, e))})
		}
		return y0, y1, yt
	}
	if c.zeroY {
		y0 = math.Min(0, y0)
	}
	y0, y1, step := niceRange(y0, y1)
	for _, v := range steps(y0, y1, step) {
		yt = append(yt, tick{v, c.yFormat(v)})
	}
	return y0, y1, yt
}

// xAxisTicks are the explicit x ticks, else decades (log) or a 1-2-5
// step (linear) inside [x0, x1].
func (c *lineChart) xAxisTicks(x0, x1 float64) []tick {
	if c.xTicks != nil {
		return thin(c.xTicks)
	}
	var xt []tick
	if c.xLog {
		for _, e := range decades(math.Floor(x0), math.Ceil(x1)) {
			xt = append(xt, tick{math.Pow(10, e), trimFloat(math.Pow(10, e))})
		}
		return xt
	}
	lo, hi, step := niceRange(x0, x1)
	for _, v := range steps(lo, hi, step) {
		if v >= x0-1e-9 && v <= x1+1e-9 {
			xt = append(xt, tick{v, trimFloat(math.Round(v*1000) / 1000)})
		}
	}
	return xt
}

func (c *lineChart) drawYAxis(b *strings.Builder, f frame, yt []tick) {
	fmt.Fprintf(b, `<g class="axis y" stroke="#999">`+"\n")
	for _, t := range yt {
		fmt.Fprintf(b, `<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e5e5e5"/>`+"\n", f1(f.px(f.x0)), f1(f.py(t.v)), f1(f.px(f.x1)), f1(f.py(t.v)))
		fmt.Fprintf(b, `<text class="tick" x="%s" y="%s" text-anchor="end" stroke="none" fill="#333">%s</text>`+"\n", f1(f.px(f.x0)-6), f1(f.py(t.v)+4), esc(t.label))
	}
	fmt.Fprintf(b, `<text class="label" transform="translate(14 %s) rotate(-90)" text-anchor="middle" stroke="none" fill="#333">%s</text>`+"\n", f1(float64(marginT)+f.ph/2), esc(c.yLabel))
	b.WriteString("</g>\n")
}

func (c *lineChart) drawXAxis(b *strings.Builder, f frame, xt []tick) {
	fmt.Fprintf(b, `<g class="axis x" stroke="#999">`+"\n")
	fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", f1(f.px(f.x0)), f1(f.py(f.y0)), f1(f.px(f.x1)), f1(f.py(f.y0)))
	for _, t := range xt {
		v := c.tr(t.v, c.xLog)
		if v < f.x0-1e-9 || v > f.x1+1e-9 {
			continue
		}
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", f1(f.px(v)), f1(f.py(f.y0)), f1(f.px(v)), f1(f.py(f.y0)+5))
		fmt.Fprintf(b, `<text class="tick" x="%s" y="%s" text-anchor="middle" stroke="none" fill="#333">%s</text>`+"\n", f1(f.px(v)), f1(f.py(f.y0)+18), esc(t.label))
	}
	fmt.Fprintf(b, `<text class="label" x="%s" y="%d" text-anchor="middle" stroke="none" fill="#333">%s</text>`+"\n", f1(float64(marginL)+f.pw/2), chartH-10, esc(c.xLabel))
	b.WriteString("</g>\n")
}

// drawSeries draws series s: its line, a circle per point (unless
// noDots) and, unless noLegend, its legend entry, the i-th.
func (c *lineChart) drawSeries(b *strings.Builder, f frame, i int, s series) {
	fmt.Fprintf(b, `<g class="series" data-name="%s" stroke="%s" fill="%s">`+"\n", esc(s.name), s.color, s.color)
	var pts []string
	for _, p := range s.pts {
		x, y := c.tr(p.x, c.xLog), c.tr(p.y, c.yLog)
		if !finite(x) || !finite(y) {
			continue
		}
		pts = append(pts, f1(f.px(x))+","+f1(f.py(y)))
	}
	width := "2"
	if c.noDots {
		width = "1.2" // long series, often many: thinner lines
	}
	fmt.Fprintf(b, `<polyline class="line" fill="none" stroke-width="%s" points="%s"/>`+"\n", width, strings.Join(pts, " "))
	for _, p := range pts {
		if c.noDots {
			break
		}
		xy := strings.SplitN(p, ",", 2)
		fmt.Fprintf(b, `<circle class="point" cx="%s" cy="%s" r="3"/>`+"\n", xy[0], xy[1])
	}
	b.WriteString("</g>\n")
	if s.noLegend {
		return
	}
	name := s.name
	if s.legend != "" {
		name = s.legend
	}
	ly := marginT + 8 + 20*i
	fmt.Fprintf(b, `<g class="legend"><line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/><text x="%d" y="%d">%s</text></g>`+"\n",
		chartW-marginR+12, ly, chartW-marginR+32, ly, s.color, chartW-marginR+38, ly+4, esc(name))
}

// thin keeps at most maxTicks+1 of the ticks, every k-th, so that labels
// from the data (one per point or heap size) stay readable.
func thin(ts []tick) []tick {
	if len(ts) <= maxTicks {
		return ts
	}
	k := (len(ts) + maxTicks - 1) / maxTicks
	var out []tick
	for i := 0; i < len(ts); i += k {
		out = append(out, ts[i])
	}
	return out
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// decades are the whole exponents from e0 to e1, every one when there
// are at most maxTicks, else every k-th.
func decades(e0, e1 float64) []float64 {
	if !finite(e0) || !finite(e1) || e1 < e0 {
		return nil
	}
	stride := math.Max(1, math.Ceil((e1-e0+1)/maxTicks))
	var out []float64
	for i := 0.0; i <= maxTicks && e0+i*stride <= e1+1e-9; i++ {
		out = append(out, e0+i*stride)
	}
	return out
}

// steps are lo, lo+step, ... up to hi; none when the step is not a
// usable one (not finite, lost in lo's precision, or more than maxTicks
// of them).
func steps(lo, hi, step float64) []float64 {
	if !finite(lo) || !finite(hi) || !finite(step) || step <= 0 || lo+step == lo || (hi-lo)/step > maxTicks {
		return nil
	}
	var out []float64
	for v := lo; v <= hi+step/1e6 && len(out) <= maxTicks; v += step {
		out = append(out, v)
	}
	return out
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
	// undecided marks the axes whose decisions were not all decided: their
	// points are drawn hollow, with a "?" beside them.
	undecided []bool
	baseline  bool
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
			if i < len(s.undecided) && s.undecided[i] {
				circles = append(circles, fmt.Sprintf(`<circle class="point" data-axis="%s" data-score="%.1f" data-verdict="undecided" cx="%s" cy="%s" r="4" fill="white" stroke-width="1.5"/><text x="%s" y="%s" font-size="11" stroke="none">?</text>`,
					esc(c.axes[i]), sc, f1(x), f1(y), f1(x+6), f1(y-5)))
				continue
			}
			circles = append(circles, fmt.Sprintf(`<circle class="point" data-axis="%s" data-score="%.1f" cx="%s" cy="%s" r="3"/>`, esc(c.axes[i]), sc, f1(x), f1(y)))
		}
		fmt.Fprintf(&b, `<polygon class="area" fill-opacity="0.12" stroke-width="2"%s points="%s"/>`+"\n", dash, strings.Join(pts, " "))
		b.WriteString(strings.Join(circles, "\n") + "\n</g>\n")
		ly := 60 + 20*k
		fmt.Fprintf(&b, `<g class="legend"><line x1="560" y1="%d" x2="580" y2="%d" stroke="%s" stroke-width="3"%s/><text x="586" y="%d">%s</text></g>`+"\n", ly, ly, s.color, dash, ly+4, esc(s.name))
	}
	b.WriteString(`<text x="12" y="510" fill="#555" font-size="11">score = 100 + 30 log10(advantage / baseline advantage); circle at 100 = baseline; outward is better; hollow ? = undecided</text>` + "\n")
	b.WriteString("</svg>\n")
	return b.String()
}
