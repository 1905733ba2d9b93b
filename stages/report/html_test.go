package report

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHTMLFirstScreen: in report.html the verdicts in words come first,
// then the first chart, then the first table; the environment tables come
// last, folded inside <details>.
func TestHTMLFirstScreen(t *testing.T) {
	res := render(t, Options{})
	h := string(read(t, filepath.Join(res.Out, "report.html")))
	verdict := strings.Index(h, "<li>at c32-p128: highest throughput undecided (jvm-512m ahead")
	figure, table := strings.Index(h, "<figure"), strings.Index(h, "<table")
	if !(verdict >= 0 && verdict < figure && figure < table) {
		t.Errorf("want verdicts, then the first chart, then the first table: verdict %d, figure %d, table %d", verdict, figure, table)
	}
	if !strings.Contains(h, "<li>jvm-g1 vs go at c32-p128: throughput 1.20x [1.18, 1.21] better; p99 1.71x [1.54, 1.90] worse</li>") {
		t.Error("report.html lacks the verdict of jvm-g1 against go in words")
	}
	// Two folded parts: the failed checks' details under their one-line
	// summary, before any chart, and the environment, after every chart.
	first := strings.Index(h, "<details>")
	if figure := strings.Index(h, "<figure"); !(first >= 0 && strings.Contains(h[first:], "Details of the failed checks") && first < figure) {
		t.Errorf("the failed checks' details are not folded before the first chart: <details> %d, figure %d", first, figure)
	}
	open, env := strings.LastIndex(h, "<details>"), strings.Index(h, "environment table")
	closed := strings.LastIndex(h, "</details>")
	if !(open >= 0 && open < env && env < closed) {
		t.Errorf("the environment table is not folded in <details>: <details> %d, table %d, </details> %d", open, env, closed)
	}
	if strings.Count(h, "<details>") != 2 || env < strings.LastIndex(h, "<figure") {
		t.Error("the environment is not the last folded part, after every chart")
	}
}

// The page is self-contained: no script, no external reference.
func TestHTMLSelfContained(t *testing.T) {
	res := render(t, Options{})
	h := string(read(t, filepath.Join(res.Out, "report.html")))
	for _, bad := range []string{"<script", "src=\"http", "href=\"http", "<img", "@import", "url("} {
		if strings.Contains(h, bad) {
			t.Errorf("report.html contains %q", bad)
		}
	}
	if n := strings.Count(h, "<svg "); n < 10 {
		t.Errorf("report.html inlines %d charts", n)
	}
}
