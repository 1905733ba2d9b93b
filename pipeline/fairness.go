package pipeline

import "slices"

// A FairnessRow is one measured fairness check of one cell or one batch
// (fairness.json, and the fairness table). Expected and Measured are in
// Unit; Tolerance is a fraction of Expected.
type FairnessRow struct {
	Check     string   `json:"check"`
	Scope     string   `json:"scope"` // "cell" or "batch"
	Batch     string   `json:"batch"`
	CellID    *string  `json:"cell_id,omitempty"`
	Expected  *float64 `json:"expected,omitempty"`
	Measured  *float64 `json:"measured,omitempty"`
	Tolerance *float64 `json:"tolerance,omitempty"`
	Unit      *string  `json:"unit,omitempty"`
	Pass      bool     `json:"pass"`
	Detail    *string  `json:"detail,omitempty"`
}

// UnfairCells returns, per cell id, the names of the fairness checks that
// failed for the cell itself or for its whole batch, sorted.
func UnfairCells(p *Plan, rows []FairnessRow) map[string][]string {
	out := map[string][]string{}
	add := func(id, check string) {
		if !slices.Contains(out[id], check) {
			out[id] = append(out[id], check)
		}
	}
	for _, r := range rows {
		if r.Pass {
			continue
		}
		switch {
		case r.CellID != nil:
			add(*r.CellID, r.Check)
		case r.Scope == "batch":
			for _, c := range p.Cells {
				if c.Batch == r.Batch {
					add(c.ID, r.Check)
				}
			}
		}
	}
	for id := range out {
		slices.Sort(out[id])
	}
	return out
}
