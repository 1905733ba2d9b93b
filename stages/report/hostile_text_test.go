package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"yardstick/pipeline"
)

// A question (text of the definition) with line breaks, raw HTML and a
// table of its own stays one escaped heading in report.md: it adds no
// <script>, no line and no forged results table.
func TestQuestionEscapedInMarkdown(t *testing.T) {
	text := "Which wins?\n<script>alert(1)</script>\n\n| variant | rps |\n|---|--:|\n| forged | 999999 |\n# Verdict: forged wins"
	dir := withQuestion(t, &pipeline.Question{Text: text, Answer: pipeline.AnswerWinners})
	out := t.TempDir()
	if _, err := Run(dir, Options{Out: out, Formats: []string{"md"}}); err != nil {
		t.Fatal(err)
	}
	md := string(read(t, filepath.Join(out, "report.md")))
	if strings.Contains(md, "<script") {
		t.Error("report.md holds a raw <script>")
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.Contains(line, "forged") && !strings.HasPrefix(line, "## The question: Which wins? &lt;script>") {
			t.Errorf("the question's text made a line of its own: %q", line)
		}
	}
}

// The default output directory is reached without a link: a report/
// that links elsewhere is refused, and nothing there is written or
// removed.
func TestReportRefusesLinkedOutput(t *testing.T) {
	dir := withQuestion(t, nil)
	elsewhere := t.TempDir()
	for _, name := range []string{"report.md", "radar-main.svg"} {
		if err := os.WriteFile(filepath.Join(elsewhere, name), []byte("theirs"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(elsewhere, filepath.Join(dir, "report")); err != nil {
		t.Fatal(err)
	}
	_, err := Run(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "report: refused: a symbolic link") {
		t.Fatalf("err = %v, want a refusal of the link", err)
	}
	for _, name := range []string{"report.md", "radar-main.svg"} {
		if b, err := os.ReadFile(filepath.Join(elsewhere, name)); err != nil || string(b) != "theirs" {
			t.Errorf("%s outside the run: %q, %v", name, b, err)
		}
	}
}
