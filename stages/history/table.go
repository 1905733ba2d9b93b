package history

import (
	"strings"

	"yardstick/datasets"
)

// Rows are the history as rows of the history table: per series, one
// row per run that has a figure, in series and run order.
func (h *History) Rows() []datasets.HistoryPoint {
	var out []datasets.HistoryPoint
	for si := range h.Series {
		s := &h.Series[si]
		at := map[int]*Change{}
		for i := range s.Changes {
			at[s.Changes[i].At] = &s.Changes[i]
		}
		for pi, p := range s.Points {
			r := h.Runs[p.Run]
			row := datasets.HistoryPoint{Batch: s.Batch, Variant: s.Variant, Point: s.Point, Metric: s.Metric,
				Index: int64(p.Run), Run: r.ID, Date: r.Date, PlanHash: r.PlanHash,
				Mean: opt(p.Mean), Low: opt(p.Low), High: opt(p.High), Starts: int64(p.Starts),
				Busy: r.Busy != "", Margin: s.Margin}
			if len(r.Marks) > 0 {
				m := strings.Join(r.Marks, ",")
				row.Marks = &m
			}
			if c := at[pi]; c != nil {
				d := c.Decision
				row.ChangeRatio, row.ChangeLow, row.ChangeHigh = opt(d.Ratio), opt(d.Low), opt(d.High)
				v := d.Verdict
				row.ChangeVerdict = &v
			}
			out = append(out, row)
		}
	}
	return out
}

// Meta is the history table's metadata: the experiment and the newest
// run (its id and plan hash).
func (h *History) Meta(version string) datasets.Meta {
	m := datasets.Meta{Version: version, Experiment: h.Experiment}
	if n := len(h.Runs); n > 0 {
		m.RunID, m.PlanHash = h.Runs[n-1].ID, h.Runs[n-1].PlanHash
	}
	return m
}

func opt(x float64) *float64 {
	if !finite(x) {
		return nil
	}
	return &x
}
