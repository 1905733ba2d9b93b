package history

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// The charts are hand-written SVG, as the report's are: no script, fixed
// sizes, colours and number formats, so that the same history gives the
// same bytes. Structure the tests rely on: each chart has a
// <text class="title">; each cell is a <g class="panel" data-cell="...">
// holding a <polygon class="band"> (the runs' intervals), a
// <polyline class="line"> (the means), a <circle class="point"> per run
// (class "point busy", hollow, for a run on a busy machine), a
// <line class="mark"> at each run whose environment, binaries or plan
// changed and a <line class="change"> with its outcome at each
// changepoint.

const (
	svgW             = 900
	panelH           = 150
	padL, padR, padT = 80, 20, 24
	padB             = 34
)

// SVG is the chart of one metric: one panel per cell.
func (h *History) SVG(metric string) []byte {
	var panels []*Series
	for i := range h.Series {
		if h.Series[i].Metric == metric {
			panels = append(panels, &h.Series[i])
		}
	}
	height := 40 + len(panels)*panelH
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="system-ui,sans-serif" font-size="11">`+"\n", svgW, height, svgW, height)
	fmt.Fprintf(&b, `<text class="title" x="%d" y="20" font-size="14" font-weight="600">%s across %d runs of %s</text>`+"\n", padL, html.EscapeString(metric), len(h.Runs), html.EscapeString(h.Experiment))
	for i, s := range panels {
		h.panel(&b, s, 30+i*panelH)
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// panel draws one series at vertical offset top.
func (h *History) panel(b *strings.Builder, s *Series, top int) {
	x0, x1 := float64(padL), float64(svgW-padR)
	y0, y1 := float64(top+panelH-padB), float64(top+padT)
	lo, hi := s.yRange()
	n := max(len(h.Runs)-1, 1)
	xOf := func(run int) float64 { return x0 + (x1-x0)*float64(run)/float64(n) }
	yOf := func(v float64) float64 { return y0 - (y0-y1)*(v-lo)/(hi-lo) }
	fmt.Fprintf(b, `<g class="panel" data-cell="%s">`+"\n", html.EscapeString(s.Cell()))
	fmt.Fprintf(b, `<text x="%g" y="%g" font-weight="600">%s</text>`+"\n", x0, y1-6, html.EscapeString(s.Cell()))
	fmt.Fprintf(b, `<g class="axis"><line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#999"/><line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#999"/>`, x0, y0, x1, y0, x0, y0, x0, y1)
	for _, v := range []float64{lo, (lo + hi) / 2, hi} {
		fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="end">%s</text>`, x0-4, yOf(v)+4, num(v))
	}
	for _, run := range ticks(len(h.Runs)) {
		r, anchor := h.Runs[run], "middle"
		if run == len(h.Runs)-1 && run > 0 {
			anchor = "end"
		}
		fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="%s">%s %s</text>`, xOf(run), y0+14, anchor, r.Date.Format("01-02"), html.EscapeString(shortID(r.ID)))
	}
	b.WriteString("</g>\n")
	var upper, lower, line []string
	for _, p := range s.Points {
		if finite(p.Low) && finite(p.High) {
			upper = append(upper, fmt.Sprintf("%.1f,%.1f", xOf(p.Run), yOf(p.High)))
			lower = append([]string{fmt.Sprintf("%.1f,%.1f", xOf(p.Run), yOf(p.Low))}, lower...)
		}
		line = append(line, fmt.Sprintf("%.1f,%.1f", xOf(p.Run), yOf(p.Mean)))
	}
	if len(upper) > 0 {
		fmt.Fprintf(b, `<polygon class="band" points="%s" fill="#1f77b4" fill-opacity="0.18" stroke="none"/>`+"\n", strings.Join(append(upper, lower...), " "))
	}
	fmt.Fprintf(b, `<polyline class="line" points="%s" fill="none" stroke="#1f77b4" stroke-width="1.5"/>`+"\n", strings.Join(line, " "))
	for _, p := range s.Points {
		r := h.Runs[p.Run]
		cls, fill := "point", "#1f77b4"
		if r.Busy != "" {
			cls, fill = "point busy", "#fff"
		}
		fmt.Fprintf(b, `<circle class="%s" cx="%.1f" cy="%.1f" r="3" fill="%s" stroke="#1f77b4"><title>%s: %s</title></circle>`+"\n",
			cls, xOf(p.Run), yOf(p.Mean), fill, html.EscapeString(r.ID), num(p.Mean))
		if len(r.Marks) > 0 {
			fmt.Fprintf(b, `<line class="mark" x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#888" stroke-dasharray="2,2"><title>%s changed</title></line>`+"\n",
				xOf(p.Run), y0, xOf(p.Run), y1, html.EscapeString(strings.Join(r.Marks, ", ")))
		}
	}
	for _, c := range s.Changes {
		x := xOf(s.Points[c.At].Run) - (x1-x0)/float64(n)/2
		fmt.Fprintf(b, `<line class="change" x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="%s" stroke-width="2" stroke-dasharray="6,3"/>`, x, y0, x, y1, verdictColor(c.Decision.Verdict))
		fmt.Fprintf(b, `<text class="change-label" x="%.1f" y="%g" fill="%s">%s %.2fx</text>`+"\n", x+4, y1+10, verdictColor(c.Decision.Verdict), c.Decision.Verdict, c.Decision.Ratio)
	}
	b.WriteString("</g>\n")
}

// yRange is the series' y range, intervals included, padded.
func (s *Series) yRange() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range s.Points {
		for _, v := range []float64{p.Mean, p.Low, p.High} {
			if finite(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if !(hi > lo) {
		lo, hi = lo-1, hi+1
	}
	pad := (hi - lo) * 0.08
	return lo - pad, hi + pad
}

// ticks are the runs labelled on the x axis: at most eight, the first
// and the last among them.
func ticks(n int) []int {
	if n == 0 {
		return nil
	}
	step := max(1, (n+6)/7)
	var out []int
	for i := 0; i < n-1; i += step {
		if n-1-i >= step || i == 0 { // no label crowding the last
			out = append(out, i)
		}
	}
	return append(out, n-1)
}

// shortID is a run id's random part.
func shortID(id string) string {
	if i := strings.LastIndexByte(id, '-'); i >= 0 {
		return id[i+1:]
	}
	return id
}

func verdictColor(v string) string {
	switch v {
	case "worse":
		return "#c0392b"
	case "better":
		return "#2e7d32"
	}
	return "#777"
}

// num formats a figure with three significant digits, whole numbers
// from 100 to a million as they are.
func num(v float64) string {
	switch {
	case !finite(v):
		return "–"
	case math.Abs(v) >= 100 && math.Abs(v) < 1e6:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
