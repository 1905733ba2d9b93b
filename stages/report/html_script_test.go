package report

import (
	"path/filepath"
	"strings"
	"testing"

	"yardstick/datasets"
	"yardstick/pipeline"
)

// The HTML report of a run whose question and target names carry
// <script> (a run directory may come from anyone: its tables and its
// plan.json are not checked against a schema of names) holds no script of
// theirs: it has as many <script and <img tags as the report of the same
// run without them, every onerror= is escaped text, and the text is
// there.
func TestHTMLScriptInNamesAndQuestion(t *testing.T) {
	const evil = `</script><script>alert(1)</script><img src=x onerror=alert(2)>`
	clean := withQuestion(t, &pipeline.Question{Text: "Which wins?", Answer: pipeline.AnswerWinners})
	hostile := withQuestion(t, &pipeline.Question{Text: "Which wins? " + evil, Answer: pipeline.AnswerWinners})
	cells, meta, err := datasets.Cells.Read(datasets.Cells.Path(hostile))
	if err != nil {
		t.Fatal(err)
	}
	for i := range cells {
		cells[i].Target += evil
	}
	if err := write(datasets.Cells, hostile, meta, cells); err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{}
	for name, dir := range map[string]string{"clean": clean, "hostile": hostile} {
		out := t.TempDir()
		if _, err := Run(dir, Options{Out: out, Formats: []string{"html", "md"}}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pages[name] = string(read(t, filepath.Join(out, "report.html")))
		md := string(read(t, filepath.Join(out, "report.md")))
		if strings.Contains(md, "<script") || strings.Contains(md, "<img") {
			t.Errorf("%s report.md holds raw HTML", name)
		}
	}
	page := pages["hostile"]
	for _, tag := range []string{"<script", "<img"} {
		if got, want := strings.Count(page, tag), strings.Count(pages["clean"], tag); got != want {
			t.Errorf("report.html holds %d %q, the report without the names %d", got, tag, want)
		}
	}
	if n, text := strings.Count(page, "onerror="), strings.Count(page, "&lt;img src=x onerror="); n != text {
		t.Errorf("report.html holds %d onerror=, %d of them in escaped text", n, text)
	}
	if !strings.Contains(page, "alert(1)&lt;/script&gt;") && !strings.Contains(page, "alert(1)&lt;&#47;script&gt;") {
		t.Error("report.html lost the question's text")
	}
	if n := strings.Count(page, "alert(2)"); n < 2 {
		t.Errorf("report.html shows the hostile text %d time(s): the target names are not in it", n)
	}
}
