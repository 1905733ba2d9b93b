package tabulate

import (
	"strings"

	"yardstick/datasets"
	"yardstick/pipeline"
)

// environmentRows are the environment table's rows: environment.json's
// one row for a run on one machine; for a run whose batches ran as
// separate tasks (node records in nodes/), one row per node and
// fingerprint, with the batches that ran there, in the plan order of each
// node's first batch, and environment.json's row only for the batches
// that have no node record (if any ran there at all: a batch without a
// record may also be one that never started).
func environmentRows(in *inputs) []datasets.Environment {
	if len(in.nodes) == 0 {
		if in.env == nil {
			return nil
		}
		return []datasets.Environment{environmentRow(in.env, in.plan)}
	}
	type key struct {
		node string
		fp   pipeline.Fingerprint
	}
	var order []key
	rows := map[key]*datasets.Environment{}
	batches := map[key][]string{}
	var unrecorded []string
	for _, b := range in.plan.Batches {
		n := in.nodes[b.Name]
		if n == nil {
			unrecorded = append(unrecorded, b.Name)
			continue
		}
		for i := range n.Runs {
			r := &n.Runs[i]
			k := key{r.Node, r.Environment.Fingerprint}
			if rows[k] == nil {
				row := environmentRow(&r.Environment, in.plan)
				row.Node = nonEmpty(r.Node)
				rows[k] = &row
				order = append(order, k)
			}
			if bs := batches[k]; len(bs) == 0 || bs[len(bs)-1] != b.Name {
				batches[k] = append(bs, b.Name)
			}
		}
	}
	var out []datasets.Environment
	for _, k := range order {
		row := *rows[k]
		row.Batches = nonEmpty(strings.Join(batches[k], ","))
		out = append(out, row)
	}
	if len(unrecorded) > 0 && in.env != nil {
		row := environmentRow(in.env, in.plan)
		row.Batches = nonEmpty(strings.Join(unrecorded, ","))
		out = append(out, row)
	}
	return out
}
