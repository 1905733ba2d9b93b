package analysis

import (
	"slices"
	"strings"

	"yardstick/datasets"
	"yardstick/stats"
)

// FailedGroups are the failed fairness rows grouped by check, scope and
// batch, in the order of their first row.
func FailedGroups(rows []datasets.FairnessCheck) [][]datasets.FairnessCheck {
	var out [][]datasets.FairnessCheck
	at := map[string]int{}
	for _, f := range rows {
		if f.Pass {
			continue
		}
		k := f.Check + "\x00" + f.Scope + "\x00" + f.Batch
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], f)
	}
	return out
}

// A Share is one declared CPU share (fairness rows of check placement):
// its detail, whether it passed, and every batch that made it.
type Share struct {
	Pass    bool
	Detail  string
	Batches []string
}

// Shares are the distinct placement shares, in the order of their first
// row.
func Shares(rows []datasets.FairnessCheck) []*Share {
	var shares []*Share
	for _, f := range rows {
		if f.Check != "placement" {
			continue
		}
		detail := ""
		if f.Detail != nil {
			detail = strings.TrimPrefix(*f.Detail, "warning: ")
		}
		i := slices.IndexFunc(shares, func(s *Share) bool { return s.Pass == f.Pass && s.Detail == detail })
		if i < 0 {
			shares = append(shares, &Share{Pass: f.Pass, Detail: detail})
			i = len(shares) - 1
		}
		shares[i].Batches = append(shares[i].Batches, f.Batch)
	}
	return shares
}

// Duties are the batch's matched-duty rows: event loops per variant and
// access-log and response bytes per request.
func Duties(rows []datasets.FairnessCheck, batch string) []datasets.FairnessCheck {
	var out []datasets.FairnessCheck
	for _, f := range rows {
		if f.Batch != batch || f.Scope != "batch" {
			continue
		}
		switch f.Check {
		case "event_loops", "log_bytes", "response_bytes":
			out = append(out, f)
		}
	}
	return out
}

// Varied counts the response_varies rows that passed, and lists the
// failed ones: a static or cached answer fails.
func Varied(rows []datasets.FairnessCheck) (pass int, failed []datasets.FairnessCheck) {
	for _, f := range rows {
		switch {
		case f.Check != "response_varies":
		case f.Pass:
			pass++
		default:
			failed = append(failed, f)
		}
	}
	return pass, failed
}

// An RSSRow is one variant's RSS medians over its measured cells: at the
// first sampled interval of each cell's load, under load (steady) and
// after the idle that follows; NaN without a value.
type RSSRow struct {
	Batch, Variant     string
	Start, Load, After float64
}

// RSSStartEnd are the RSS medians of every variant of every batch.
func RSSStartEnd(series []datasets.Interval, batches []*Batch) []RSSRow {
	first := map[string]int64{}
	seen := map[string]int64{}
	for _, s := range series {
		if s.RSSBytes == nil {
			continue
		}
		if at, ok := seen[s.CellID]; !ok || s.Interval < at {
			seen[s.CellID], first[s.CellID] = s.Interval, *s.RSSBytes
		}
	}
	med := func(vs []float64) float64 {
		if len(vs) == 0 {
			return nan
		}
		return stats.Median(vs)
	}
	var rows []RSSRow
	for _, b := range batches {
		for _, v := range b.Variants {
			var start, load, after []float64
			for _, p := range b.Points {
				g := b.RepeatSet(v, p)
				if g == nil {
					continue
				}
				for _, c := range g.Measured {
					if r, ok := first[c.CellID]; ok && r > 0 {
						start = append(start, float64(r))
					}
					if x, ok := i64(c.RSSSteadyBytes); ok {
						load = append(load, x)
					}
					if x, ok := i64(c.RSSAfterBytes); ok {
						after = append(after, x)
					}
				}
			}
			rows = append(rows, RSSRow{Batch: b.Name, Variant: v.Label, Start: med(start), Load: med(load), After: med(after)})
		}
	}
	return rows
}
