package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"yardstick/datasets"
	"yardstick/stages/report/analysis"
)

func curves(d *doc, b *analysis.Batch) {
	byPayload := map[int64][]analysis.Point{}
	for _, p := range b.Points {
		if p.Mode == "closed" && p.Concurrency >= 0 {
			byPayload[p.Payload] = append(byPayload[p.Payload], p)
		}
	}
	if len(byPayload) == 0 {
		return
	}
	d.h(3, "Throughput and p99 against concurrency")
	for _, pl := range slices.Sorted(maps.Keys(byPayload)) {
		pts := byPayload[pl]
		var ticks []tick
		for _, p := range pts {
			ticks = append(ticks, tick{float64(p.Concurrency), fmt.Sprint(p.Concurrency)})
		}
		plLabel, slug := "", "all"
		if pl >= 0 {
			plLabel, slug = fmt.Sprintf(", payload %d B", pl), fmt.Sprintf("p%d", pl)
		}
		for _, k := range []string{"throughput", "latency_p99"} {
			m := columnByKey(k)
			ch := &lineChart{xLabel: "concurrency (connections)", xLog: true, xTicks: ticks, vline: math.NaN()}
			if k == "throughput" {
				ch.title, ch.yLabel, ch.yFormat, ch.zeroY = "Batch "+b.Name+": throughput"+plLabel, "requests/s (median)", fmtRPS, true
			} else {
				ch.title, ch.yLabel, ch.yFormat, ch.yTick, ch.yLog = "Batch "+b.Name+": p99"+plLabel, "p99 latency (median)", fmtLatency, msTick, true
			}
			for _, v := range b.Variants {
				s := series{name: v.Label, color: color(b, v)}
				for _, p := range pts {
					if g := b.RepeatSet(v, p); g != nil {
						if med, ok := g.Median(m); ok {
							s.pts = append(s.pts, xy{float64(p.Concurrency), med})
						}
					}
				}
				if len(s.pts) > 0 {
					ch.series = append(ch.series, s)
				}
			}
			name := "throughput-"
			if k == "latency_p99" {
				name = "p99-"
			}
			d.chart(&chartFile{File: name + b.Name + "-" + slug + ".svg", Title: ch.title, SVG: ch.svg()})
		}
	}
}

var spectrumTicks = []tick{{1, "0"}, {10, "90"}, {100, "99"}, {1000, "99.9"}, {1e4, "99.99"}, {1e5, "99.999"}}

func spectrumCharts(d *doc, t *analysis.Tables, b *analysis.Batch) {
	if len(t.Spectrum) == 0 {
		return
	}
	byCell := map[string][]datasets.SpectrumPoint{}
	for _, s := range t.Spectrum {
		byCell[s.CellID] = append(byCell[s.CellID], s)
	}
	first := true
	for _, p := range b.Points {
		ch := &lineChart{title: "Batch " + b.Name + ": latency spectrum, " + caption(p), xLabel: "percentile (log scale of 1/(1-p))",
			yLabel: "latency (median of repeats)", xLog: true, yLog: true, xTicks: spectrumTicks, yFormat: fmtLatency, yTick: msTick, vline: math.NaN()}
		for _, v := range b.Variants {
			g := b.RepeatSet(v, p)
			if g == nil {
				continue
			}
			s := series{name: label(g), color: color(b, v)}
			for _, sp := range g.Spectrum(byCell) {
				s.pts = append(s.pts, xy{1 / (1 - sp.Percentile/100), sp.LatencyUS})
			}
			if len(s.pts) > 0 {
				ch.series = append(ch.series, s)
			}
		}
		if len(ch.series) == 0 {
			continue
		}
		if first {
			d.h(3, "Latency percentile spectrum")
			d.p("From the spectrum table (the kept window's HdrHistogram at fixed percentiles), median over the repeats.")
			first = false
		}
		d.chart(&chartFile{File: "spectrum-" + b.Name + "-" + p.Label() + ".svg", Title: ch.title, SVG: ch.svg()})
	}
}

// msTick labels a power of ten of microseconds in milliseconds.
func msTick(us float64) string { return trimFloat(us/1000) + " ms" }

// A heapPanel is one chart of the heap gradient.
type heapPanel struct {
	// key is the metric's (analysis.Metrics), file the chart's name part.
	key, file, title, ylabel string
	format                   func(float64) string
}

var heapPanels = []heapPanel{
	{"rss", "rss", "RSS under load", "RSS (median)", fmtBytes},
	{"throughput", "rps", "throughput", "requests/s (median)", fmtRPS},
	{"latency_p99", "p99", "p99", "p99 (median)", fmtLatency},
}

// heapGradient shows the targets whose variants differ only in heap size:
// a table and one chart per panel, a series per target and point.
func heapGradient(d *doc, b *analysis.Batch) {
	axis, heaps := heapAxes(b)
	if len(axis) == 0 {
		return
	}
	d.h(3, "Heap gradient")
	d.p("Same service, only the heap (or GOMEMLIMIT) changed: RSS under load, throughput and p99 per heap size.")
	charts := make([]*lineChart, len(heapPanels))
	for i, pn := range heapPanels {
		charts[i] = &lineChart{title: "Batch " + b.Name + ": heap gradient, " + pn.title, xLabel: "heap (MiB, log scale)", yLabel: pn.ylabel,
			xLog: true, yFormat: pn.format, zeroY: true, vline: math.NaN()}
	}
	var rows [][]string
	ci := 0
	for _, tg := range axis {
		for _, p := range b.Points {
			rows = append(rows, heapPoint(b, tg, heaps[tg], p, palette[ci%len(palette)], charts)...)
			ci++
		}
	}
	for i, pn := range heapPanels {
		charts[i].xTicks = dataTicks(charts[i].series)
		d.chart(&chartFile{File: "heap-" + b.Name + "-" + pn.file + ".svg", Title: charts[i].title, SVG: charts[i].svg()})
	}
	d.table(preconditions(b), []string{"variant", "heap", "workload point", "RSS load", "rps", "p99"}, rows)
}

// heapAxes are the batch's targets, in plan order, with more than one
// heap size among their variants, and per target its variants ordered by
// heap.
func heapAxes(b *analysis.Batch) ([]string, map[string][]*analysis.Variant) {
	heaps := map[string][]*analysis.Variant{}
	var targets []string
	for _, v := range b.Variants {
		if v.HeapBytes < 0 {
			continue
		}
		if _, ok := heaps[v.Target]; !ok {
			targets = append(targets, v.Target)
		}
		heaps[v.Target] = append(heaps[v.Target], v)
	}
	var axis []string
	for _, tg := range targets {
		distinct := map[int64]bool{}
		for _, v := range heaps[tg] {
			distinct[v.HeapBytes] = true
		}
		if len(distinct) > 1 {
			axis = append(axis, tg)
			slices.SortStableFunc(heaps[tg], func(x, y *analysis.Variant) int { return cmp.Compare(x.HeapBytes, y.HeapBytes) })
		}
	}
	return axis, heaps
}

// heapPoint returns the table rows of target tg's variants vs at point p
// and adds their medians to the panels' charts as one series each.
func heapPoint(b *analysis.Batch, tg string, vs []*analysis.Variant, p analysis.Point, color string, charts []*lineChart) [][]string {
	ss := make([]series, len(heapPanels))
	for i := range ss {
		ss[i] = series{name: tg + ", " + caption(p), color: color}
	}
	var rows [][]string
	for _, v := range vs {
		s := b.RepeatSet(v, p)
		if s == nil {
			continue
		}
		r := []string{label(s), heapLabel(v), caption(p)}
		for i, pn := range heapPanels {
			sum := s.Summary(columnByKey(pn.key))
			r = append(r, fmtRepeats(sum, pn.format))
			if sum.N > 0 && v.HeapBytes != math.MaxInt64 {
				ss[i].pts = append(ss[i].pts, xy{float64(v.HeapBytes) / (1 << 20), sum.Median})
			}
		}
		rows = append(rows, r)
	}
	for i := range ss {
		if len(ss[i].pts) > 0 {
			charts[i].series = append(charts[i].series, ss[i])
		}
	}
	return rows
}

// dataTicks are the distinct x values of the series, in order, labelled
// as numbers.
func dataTicks(ss []series) []tick {
	var ticks []tick
	seen := map[float64]bool{}
	for _, s := range ss {
		for _, p := range s.pts {
			if !seen[p.x] {
				seen[p.x] = true
				ticks = append(ticks, tick{p.x, trimFloat(p.x)})
			}
		}
	}
	slices.SortFunc(ticks, func(a, b tick) int { return cmp.Compare(a.v, b.v) })
	return ticks
}
