package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"yardstick/datasets"
	"yardstick/internal/synthrun"
	"yardstick/stages/report/analysis"
)

// fixtureDir is the synthrun.Report run with its tables, written once for
// all tests.
var fixtureDir string

func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "report-fixture-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rd, _, err := synthrun.Report.Write(tmp, synthrun.Options{Tables: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixture:", err)
		os.Exit(1)
	}
	fixtureDir = rd.Root
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

func render(t *testing.T, o Options) Result {
	t.Helper()
	if o.Out == "" {
		o.Out = t.TempDir()
	}
	res, err := Run(fixtureDir, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGoldenMarkdown compares report.md of the fixture run with
// testdata/fixture.report.md; YARDSTICK_UPDATE=1 rewrites it.
func TestGoldenMarkdown(t *testing.T) {
	res := render(t, Options{})
	got := read(t, filepath.Join(res.Out, "report.md"))
	golden := filepath.Join("testdata", "fixture.report.md")
	if os.Getenv("YARDSTICK_UPDATE") == "1" {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := read(t, golden)
	if !bytes.Equal(got, want) {
		gp := filepath.Join(t.TempDir(), "got.report.md")
		_ = os.WriteFile(gp, got, 0o644)
		t.Fatalf("report.md differs from %s (got: %s); rerun with YARDSTICK_UPDATE=1 and review the diff", golden, gp)
	}
	md := string(got)
	// Order: the batches (verdicts, then charts, then tables), then
	// fairness failures, then the environment at the end.
	batch, fair, env := strings.Index(md, "## Batch"), strings.Index(md, "## Fairness failures"), strings.Index(md, "## Environment and preconditions")
	if !(batch >= 0 && batch < fair && fair < env) {
		t.Errorf("sections out of order: first batch %d, fairness %d, environment %d", batch, fair, env)
	}
	main := md[strings.Index(md, "## Batch main"):]
	verdict, radar := strings.Index(main, "- jvm-g1 vs go at c32-p128: throughput 1.20x [1.18, 1.21] better"), strings.Index(main, "![Batch main: scores")
	curve, table := strings.Index(main, "![Batch main: throughput"), strings.Index(main, "\n| ")
	if !(verdict >= 0 && verdict < radar && radar < curve && curve < table) {
		t.Errorf("batch main out of order: verdict %d, radar %d, first curve %d, first table %d", verdict, radar, curve, table)
	}
	if notSteady := strings.Index(main, "Notes on steadiness: "); !(notSteady >= 0 && notSteady < verdict) {
		t.Errorf("batch main: the notes on steadiness are not folded before the verdicts (%d, %d)", notSteady, verdict)
	}
	const oneStart = "One start per variant and point: the intervals cover only the noise within a start"
	if n := strings.Count(md, oneStart); n != 1 || strings.Index(md, oneStart) > strings.Index(md, "## Batch main") {
		t.Errorf("want the one-start note once, in batch heap (1 repeat), not in batch main (5): %d", n)
	}
	if strings.Contains(md, "tie") {
		t.Error("report.md says tie")
	}
	for _, want := range []string{
		"nagle_floor", "UNFAIR 1 (nagle_floor)", "failed 1", // unfair and failed cells marked
		"| 7% |", "CPU sets: target 0, load generator 1", // preconditions
		"had the highest throughput in", "1 of 4 were equivalent", "1 of 4 undecided", // wins
		"- jvm-g1 vs go at c32-p128: throughput 1.20x [1.18, 1.21] better; p99 1.71x [1.49, 1.95] worse",                                              // decisions
		"- at c32-p128: highest throughput undecided (jvm-512m ahead, one start a side: no noise between starts; 3 starts per side would measure it)", // no baseline: the best, undecided
		"No baseline declared for batch heap", // the heap batch has none
		"### Heap gradient", "### Peak throughput per payload", "### Steady state",
		// the cells still warming up in their kept window, noted (folded)
		// at the top of the batch, with the one never steady left out of
		// their comparison; a drift is noise within the start, not a
		// reason to call the cells unfair
		"- jvm-zgc at c8-p128 (5 of 5 repeats), repeat 1 for one, was still warming up inside its kept window (throughput drift x1.29 higher)",
		"; 1 never steady, left out of the decisions\n",
		"- jvm-zgc vs go at c8-p128: throughput 0.74x [0.58, 0.93] worse; p99 1.47x [1.39, 1.56] worse (left out: jvm-zgc at c8-p128 (repeat 5) never steady)",
		"| jvm-zgc (starts left out: never steady) |",
		"| main/jvm-zgc/c8-p128/r1 | NO | warmup | no_steady_state | never |", "| main/jvm-g1/c8-p128/r1 | yes | warmup | flat | 1.8 s |",
		"5 of 59 measured cells were not steady in their kept window",
		"| cold start | time to steady | CPU/req |", // time to steady state beside cold start
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

// Two renders of the same tables are byte-identical, charts included.
func TestDeterministic(t *testing.T) {
	a, b := render(t, Options{}), render(t, Options{})
	if len(a.Files) != len(b.Files) || len(a.Files) < 10 {
		t.Fatalf("files: %d and %d", len(a.Files), len(b.Files))
	}
	for i := range a.Files {
		if filepath.Base(a.Files[i]) != filepath.Base(b.Files[i]) || !bytes.Equal(read(t, a.Files[i]), read(t, b.Files[i])) {
			t.Errorf("%s differs between two renders", filepath.Base(a.Files[i]))
		}
	}
}

// svgStats parses an SVG and counts its structure.
type svgStats struct {
	title  string
	series map[string]int // name -> points
	order  []string
	axes   int
	rings  []string
	// vertices counts each series' line vertices (charts without dots),
	// changepoints its changepoint marks; kept counts the shaded kept
	// windows, legends are the legend texts.
	vertices     map[string]int
	changepoints map[string]int
	kept         int
	legends      []string
}

func parseSVG(t *testing.T, path string) svgStats {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(read(t, path)))
	s := svgStats{series: map[string]int{}, vertices: map[string]int{}, changepoints: map[string]int{}}
	var cur string
	var inTitle, inLegend bool
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v", path, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := func(n string) string {
				for _, a := range e.Attr {
					if a.Name.Local == n {
						return a.Value
					}
				}
				return ""
			}
			cls := attr("class")
			switch {
			case e.Name.Local == "g" && cls == "series":
				cur = attr("data-name")
				s.order = append(s.order, cur)
				s.series[cur] = 0
			case e.Name.Local == "circle" && cls == "point":
				s.series[cur]++
			case e.Name.Local == "polyline" && cls == "line":
				s.vertices[cur] = len(strings.Fields(attr("points")))
			case e.Name.Local == "line" && cls == "changepoint":
				s.changepoints[attr("data-series")]++
			case e.Name.Local == "g" && cls == "kept":
				s.kept++
			case e.Name.Local == "g" && cls == "legend":
				inLegend = true
			case e.Name.Local == "g" && strings.HasPrefix(cls, "axis"):
				s.axes++
			case e.Name.Local == "circle" && cls == "ring":
				s.rings = append(s.rings, attr("data-score"))
			case e.Name.Local == "text" && cls == "title":
				inTitle = true
			}
		case xml.CharData:
			if inTitle {
				s.title += string(e)
			}
			if inLegend {
				s.legends = append(s.legends, string(e))
			}
		case xml.EndElement:
			inTitle = false
			if e.Name.Local == "g" {
				inLegend = false // series groups hold no nested g
			}
		}
	}
	return s
}

func TestSVGStructure(t *testing.T) {
	res := render(t, Options{})
	svg := func(name string) svgStats { return parseSVG(t, filepath.Join(res.Out, name)) }

	r := svg("radar-main.svg")
	if r.axes != 7 || len(r.order) != 3 || r.order[0] != "go" {
		t.Errorf("radar: %d axes, series %v; want 7 axes, go first of 3", r.axes, r.order)
	}
	for n, pts := range r.series {
		if pts != 7 {
			t.Errorf("radar series %s has %d points, want 7", n, pts)
		}
	}
	if strings.Join(r.rings, ",") != "50,100,150,200" {
		t.Errorf("radar rings %v", r.rings)
	}
	for _, p := range []string{"128", "2048"} {
		for _, kind := range []string{"throughput", "p99"} {
			s := svg(kind + "-main-p" + p + ".svg")
			if len(s.order) != 3 || s.axes != 2 || !strings.Contains(s.title, "payload "+p+" B") {
				t.Errorf("%s-main-p%s: series %v axes %d title %q", kind, p, s.order, s.axes, s.title)
			}
			for n, pts := range s.series {
				if pts != 2 { // concurrency 8 and 32
					t.Errorf("%s-main-p%s %s: %d points, want 2", kind, p, n, pts)
				}
			}
		}
	}
	s := svg("spectrum-main-c8-p128.svg")
	if len(s.order) != 3 || s.series["go"] != 17 { // 18 percentiles less the max
		t.Errorf("spectrum: %v", s.series)
	}
	s = svg("spectrum-main-c32-p2048.svg")
	if s.series["jvm-zgc (unfair)"] != 0 && s.series["jvm-zgc UNFAIR"] != 17 {
		t.Errorf("spectrum with the unfair cell: %v", s.series)
	}
	// A ramp per variant: a line per measured cell (70 intervals of 100
	// ms), one legend entry per workload point, the kept window shaded
	// once (every cell has the same), and changepoints where the
	// timeseries' segment changes: jvm-g1's first cell of each start
	// steps up three times in its warm-up; jvm-zgc's also inside its kept
	// window; go is flat.
	for _, tc := range []struct {
		variant string
		cells   int
		unfair  string
		// cps says whether a series may have k changepoint marks.
		cps func(series string, k int) bool
	}{
		{"go", 19, "", func(_ string, k int) bool { return k == 0 }},
		{"jvm-g1", 20, "", func(n string, k int) bool {
			return k == 3 && strings.HasPrefix(n, "c8-p128 r") || k == 0 && !strings.HasPrefix(n, "c8-p128 r")
		}},
		{"jvm-zgc", 20, "c8-p128 ×5 unsteady", func(n string, k int) bool {
			return k >= 3 && strings.HasPrefix(n, "c8-p128 r") && strings.HasSuffix(n, " NOT STEADY") || k == 0 && !strings.HasPrefix(n, "c8-p128 r")
		}},
	} {
		s = svg("rampup-main-" + tc.variant + ".svg")
		if len(s.order) != tc.cells || len(s.legends) != 4 || s.kept != 1 || !strings.Contains(s.title, "ramp of "+tc.variant) {
			t.Errorf("ramp of %s: %d series, legends %q, %d kept windows, title %q", tc.variant, len(s.order), s.legends, s.kept, s.title)
		}
		for _, n := range s.order {
			if s.vertices[n] != 70 || s.series[n] != 0 {
				t.Errorf("ramp of %s, %s: %d vertices and %d dots, want 70 and none", tc.variant, n, s.vertices[n], s.series[n])
			}
			if k := s.changepoints[n]; !tc.cps(n, k) {
				t.Errorf("ramp of %s, %s: %d changepoints", tc.variant, n, k)
			}
		}
		if tc.unfair != "" && !slices.Contains(s.legends, tc.unfair) {
			t.Errorf("ramp of %s: no legend %q in %q", tc.variant, tc.unfair, s.legends)
		}
	}
	if _, err := os.Stat(filepath.Join(res.Out, "rampup-main.svg")); err == nil {
		t.Error("the old one-chart ramp is still written")
	}
	for _, k := range []string{"rss", "rps", "p99"} {
		s = svg("heap-heap-" + k + ".svg")
		if len(s.order) != 1 || s.series[s.order[0]] != 3 {
			t.Errorf("heap-heap-%s: %v", k, s.series)
		}
	}
	if _, err := os.Stat(filepath.Join(res.Out, "radar-heap.svg")); err == nil {
		t.Error("heap batch has no baseline, yet a radar was drawn")
	}
}

// A --baseline missing from a batch leaves that batch without ratios and
// says so; the other batch keeps them. Nothing ranks across batches.
func TestBaselineNotInBatch(t *testing.T) {
	res := render(t, Options{Baseline: "jvm-zgc"})
	md := string(read(t, filepath.Join(res.Out, "report.md")))
	if !strings.Contains(md, `Baseline "jvm-zgc" (--baseline) is not in batch heap`) {
		t.Errorf("no note for the heap batch:\n%s", md)
	}
	if !strings.Contains(md, "### Ratios to the baseline jvm-zgc") || strings.Count(md, "### Ratios") != 1 {
		t.Errorf("want ratios in batch main only")
	}
	if len(res.Notes) == 0 {
		t.Error("no notes returned")
	}
}

func TestFormats(t *testing.T) {
	res := render(t, Options{Formats: []string{"html"}})
	if _, err := os.Stat(filepath.Join(res.Out, "report.md")); err == nil {
		t.Error("report.md written with --format html")
	}
	if _, err := Run(fixtureDir, Options{Formats: []string{"pdf"}, Out: t.TempDir()}); err == nil {
		t.Error("format pdf accepted")
	}
}

// Only the Parquet tables are read: a copy of them alone, elsewhere (no
// plan.json, no experiment file), gives the same report; without the
// batches table it still reports, with a note.
func TestRunDirAloneWithoutPlan(t *testing.T) {
	copyTables := func(skip string) string {
		dir := filepath.Join(t.TempDir(), "old", "run=20261130T062300Z-r3p0")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		ents, _ := filepath.Glob(filepath.Join(fixtureDir, "*.parquet"))
		for _, e := range ents {
			if filepath.Base(e) == skip {
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(e)), read(t, e), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	res, err := Run(copyTables(""), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Run(fixtureDir, Options{Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	md := string(read(t, filepath.Join(res.Out, "report.md")))
	if wantMD := string(read(t, filepath.Join(want.Out, "report.md"))); md != wantMD {
		t.Errorf("the tables alone gave another report than the whole run directory")
	}
	if !strings.Contains(md, "margin 7%") || !strings.Contains(md, "CPU sets: target 0") {
		t.Errorf("margin or CPU sets missing from the report of the tables alone")
	}

	res, err = Run(copyTables("batches.parquet"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	md = string(read(t, filepath.Join(res.Out, "report.md")))
	if !strings.Contains(md, "without the batches table") || !strings.Contains(md, "margin unknown") {
		t.Errorf("a missing batches table not reported")
	}
}

// Bad input is an error, never a panic.
func TestBadInput(t *testing.T) {
	cells := read(t, filepath.Join(fixtureDir, "cells.parquet"))
	spectrum := read(t, filepath.Join(fixtureDir, "spectrum.parquet"))
	cases := map[string]map[string][]byte{
		"truncated":      {"cells.parquet": cells[:len(cells)/2]},
		"truncated tail": {"cells.parquet": cells[:len(cells)-9]},
		"foreign":        {"cells.parquet": []byte("PAR1 this is not a parquet file PAR1")},
		"empty":          {"cells.parquet": nil},
		"other table":    {"cells.parquet": spectrum},
		"corrupt middle": {"cells.parquet": corrupt(cells)},
		"no cells":       {"spectrum.parquet": spectrum},
		"bad timeseries": {"cells.parquet": cells, "timeseries.parquet": []byte("garbage")},
	}
	for name, files := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for f, b := range files {
				if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Run(dir, Options{Out: t.TempDir()})
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
		})
	}
}

func corrupt(b []byte) []byte {
	c := bytes.Clone(b)
	for i := len(c) / 3; i < len(c)/3+200 && i < len(c); i++ {
		c[i] ^= 0x5a
	}
	return c
}

// Adaptive warm-ups differ per cell: the preconditions say "warm-up
// auto" with the range once, not one window set per cell.
func TestWindowsOfAutoWarmup(t *testing.T) {
	us := func(v int64) *int64 { return &v }
	yes, no := true, false
	cells := []datasets.Cell{
		{Batch: "b", WarmupUS: us(1_200_000), MeasureUS: us(5_000_000), DiscardHeadUS: us(1_000_000), WarmupAuto: &yes},
		{Batch: "b", WarmupUS: us(3_400_000), MeasureUS: us(5_000_000), DiscardHeadUS: us(1_000_000), WarmupAuto: &yes},
		{Batch: "b", WarmupUS: us(2_000_000), MeasureUS: us(5_000_000), DiscardHeadUS: us(1_000_000), WarmupAuto: &yes},
		{Batch: "b", WarmupUS: us(2_000_000), MeasureUS: us(5_000_000), DiscardHeadUS: us(1_000_000), WarmupAuto: &no},
		{Batch: "other", WarmupUS: us(9_000_000), MeasureUS: us(5_000_000), DiscardHeadUS: us(1_000_000)},
	}
	got := fmtWindows(analysis.WindowsOf(cells, "b"))
	want := "warm-up 2s, measure 5s, discard head 1s; warm-up auto (1.2s to 3.4s), measure 5s, discard head 1s"
	if got != want {
		t.Errorf("windows: %q, want %q", got, want)
	}
}
