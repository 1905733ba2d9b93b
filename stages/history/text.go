package history

import (
	"fmt"
	"io"
	"math"
	"strings"

	"yardstick/decide"
	"yardstick/pipeline/safetext"
)

// WriteText writes the history in words: the runs with their marks,
// then per series its last figure and its changes. markdown escapes for
// Markdown (history.md, a pull-request comment).
func (h *History) WriteText(w io.Writer, markdown bool) error {
	esc := safetext.Line
	bullet := ""
	if markdown {
		esc, bullet = safetext.MarkdownInline, "- "
	}
	var b strings.Builder
	if markdown {
		fmt.Fprintf(&b, "# History of %s\n\n", esc(h.Experiment))
	}
	first, last := "", ""
	if len(h.Runs) > 0 {
		first, last = h.Runs[0].ID, h.Runs[len(h.Runs)-1].ID
	}
	fmt.Fprintf(&b, "%d runs of %s, %s to %s; %d series (cell x metric)\n", len(h.Runs), esc(h.Experiment), esc(first), esc(last), len(h.Series))
	for i, r := range h.Runs {
		if len(r.Marks) == 0 && r.Busy == "" {
			continue
		}
		var notes []string
		if len(r.Marks) > 0 {
			notes = append(notes, "changed: "+strings.Join(r.Marks, ", "))
		}
		if r.Busy != "" {
			notes = append(notes, "busy machine")
		}
		fmt.Fprintf(&b, "%srun %d %s: %s\n", bullet, i+1, esc(r.ID), strings.Join(notes, "; "))
	}
	if markdown {
		b.WriteString("\n")
	}
	changes := 0
	for _, s := range h.Series {
		for _, c := range s.Changes {
			changes++
			fmt.Fprintf(&b, "%s%s %s: %s\n", bullet, esc(s.Cell()), s.Metric, esc(changeWords(h, &s, c)))
		}
	}
	if changes == 0 {
		fmt.Fprintf(&b, "%sno change across the runs in any series\n", bullet)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// changeWords says one change: where, how large, and its outcome.
func changeWords(h *History, s *Series, c Change) string {
	d := c.Decision
	run := s.Points[c.At].Run
	words := fmt.Sprintf("change at run %d (%s), %d runs before and %d after: %s %s",
		run+1, c.Run, c.Before, c.After, d.Verdict, ratioWords(d))
	if len(c.Marks) > 0 {
		words += fmt.Sprintf("; at a run whose %s changed", strings.Join(c.Marks, " and "))
	}
	if h.Runs[run].Busy != "" {
		words += "; that run was on a busy machine"
	}
	if d.Verdict == decide.Undecided && d.Reason != "" {
		words += " (" + d.Reason + ")"
	}
	return words
}

// ratioWords is a decision's ratio and interval.
func ratioWords(d decide.Decision) string {
	if math.IsNaN(d.Low) {
		if math.IsNaN(d.Ratio) {
			return "(no ratio)"
		}
		return fmt.Sprintf("%.3fx", d.Ratio)
	}
	return fmt.Sprintf("%.3fx [%.3f, %.3f] against ±%.1f%%", d.Ratio, d.Low, d.High, 100*d.Margin)
}
