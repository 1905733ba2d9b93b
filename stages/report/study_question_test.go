package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"yardstick/pipeline"
)

// withQuestion copies the fixture run's tables and plan.json into a new
// run directory whose plan asks q (nil: none).
func withQuestion(t *testing.T, q *pipeline.Question) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run=20261130T062300Z-r3p0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() || !(strings.HasSuffix(e.Name(), ".parquet") || e.Name() == "plan.json") {
			continue
		}
		b := read(t, filepath.Join(fixtureDir, e.Name()))
		if e.Name() == "plan.json" {
			var p map[string]any
			if err := json.Unmarshal(b, &p); err != nil {
				t.Fatal(err)
			}
			if q != nil {
				p["question"] = q
			}
			if b, err = json.Marshal(p); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The question a plan declares is answered before the first batch, in the
// way its answer kind says; without a question there is no such section.
func TestQuestionAnswered(t *testing.T) {
	for _, tc := range []struct {
		answer string
		want   []string
	}{
		{pipeline.AnswerDimensions, []string{
			"## The question: Which wins?",
			"Batch heap has no baseline: it does not compete on the dimensions",
			"Batch main (3 variants, margin 7%): ",
			"- jvm-g1 against go: ",
			"| dimension | variant | outcome | per workload point (ratio to go, 95% interval, or why undecided) |",
			"| RSS under load | jvm-g1 | worse | c8-p128: ",
		}},
		{pipeline.AnswerCrossover, []string{
			"## The question: Which wins?",
			"Batch main, throughput leader along concurrency",
			"- payload 128 B: ",
			"- payload 2048 B: ",
			"| payload | throughput leader per concurrency |",
		}},
		{pipeline.AnswerWinners, []string{
			"## The question: Which wins?",
			"- main, payload 128 B, concurrency 8: throughput ",
			"| batch | workload point | rps | p99 | RSS load | CPU/req |",
			"| batch | variant | RSS start | RSS under load | RSS end (after idle) |",
		}},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			dir := withQuestion(t, &pipeline.Question{Text: "Which wins?", Answer: tc.answer})
			res, err := Run(dir, Options{Out: t.TempDir(), Formats: []string{"md"}})
			if err != nil {
				t.Fatal(err)
			}
			md := string(read(t, filepath.Join(res.Out, "report.md")))
			q := strings.Index(md, "## The question: ")
			first := strings.Index(md, "## Batch ")
			if q < 0 || first < 0 || q > first {
				t.Fatalf("the question is not answered before the first batch (at %d, first batch at %d):\n%s", q, first, md)
			}
			if os.Getenv("SHOW") != "" {
				t.Log(md[q:first])
			}
			for _, w := range tc.want {
				if !strings.Contains(md[q:first], w) {
					t.Errorf("answer lacks %q:\n%s", w, md[q:first])
				}
			}
		})
	}
	dir := withQuestion(t, nil)
	res, err := Run(dir, Options{Out: t.TempDir(), Formats: []string{"md"}})
	if err != nil {
		t.Fatal(err)
	}
	if md := string(read(t, filepath.Join(res.Out, "report.md"))); strings.Contains(md, "## The question") {
		t.Errorf("a plan without a question got an answer:\n%s", md)
	}
}
