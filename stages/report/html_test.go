package report

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHTMLFirstScreen: report.html opens with its answer: the
// decisions' forest plot, then their table (comparison, metric, ratio,
// interval, outcome), then the problems one line each; the verdicts in
// words follow per batch; the environment tables come last, folded
// inside <details>.
func TestHTMLFirstScreen(t *testing.T) {
	res := render(t, Options{})
	h := string(read(t, filepath.Join(res.Out, "report.html")))
	head := strings.Index(h, ">Decisions</h2>")
	table, figure := strings.Index(h, "<table"), strings.Index(h, "<figure")
	unfair := strings.Index(h, "Unfair: 1 fairness check(s) failed")
	if !(head >= 0 && head < figure && figure < table && table < unfair) {
		t.Errorf("want the decisions heading, forest plot, table, then the problems: %d, %d, %d, %d", head, figure, table, unfair)
	}
	for _, want := range []string{"<th>comparison</th><th>metric</th><th>ratio</th><th>interval</th><th>outcome</th>", `<figure id="decisions">`} {
		if i := strings.Index(h, want); i < 0 || i > unfair {
			t.Errorf("the first screen lacks %q", want)
		}
	}
	if !strings.Contains(h, "<li>jvm-g1 vs go at c32-p128: throughput 1.20x [1.18, 1.21] better; p99 1.71x [1.49, 1.95] worse</li>") {
		t.Error("report.html lacks the verdict of jvm-g1 against go in words")
	}
	// The failed checks' details are folded under their one-line summary.
	if first := strings.Index(h[unfair:], "<details>"); first < 0 || !strings.Contains(h[unfair+first:], "Details of the failed checks") {
		t.Error("the failed checks' details are not folded under their summary")
	}
	open, env := strings.LastIndex(h, "<details>"), strings.Index(h, "environment table")
	closed := strings.LastIndex(h, "</details>")
	if !(open >= 0 && open < env && env < closed) || env < strings.LastIndex(h, "<figure") {
		t.Errorf("the environment table is not the last folded part, after every chart: <details> %d, table %d, </details> %d", open, env, closed)
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
