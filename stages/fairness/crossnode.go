package fairness

import (
	"fmt"
	"slices"
	"strings"

	"yardstick/pipeline"
)

// cross_node: numbers are compared only between cells that ran on one
// kind of machine. A run whose batches ran as separate tasks on a
// cluster's nodes (nodes/<batch>.json) sets those batches side by side in
// one report, and `compare` sets a batch of one run beside the same batch
// of another; each pair must have run on nodes with one fingerprint (CPU
// model, cores, kernel, governor, memory, toolchain versions). A batch
// resubmitted onto a second node must match its first node too. A run
// that ran whole on one machine has no node records and no cross_node
// rows: environment.json is its one machine.

// A BatchNode is one node a batch ran on, with its fingerprint.
type BatchNode struct {
	Batch, Node string
	Fingerprint pipeline.Fingerprint
}

// NodesOf lists the nodes the batches of p ran on, in plan order, from
// the run's node records (by batch name).
func NodesOf(p *pipeline.Plan, nodes map[string]*pipeline.BatchNodes) []BatchNode {
	var out []BatchNode
	for _, b := range p.Batches {
		n := nodes[b.Name]
		if n == nil {
			continue
		}
		for _, r := range n.Runs {
			bn := BatchNode{Batch: b.Name, Node: r.Node, Fingerprint: r.Environment.Fingerprint}
			if !slices.Contains(out, bn) {
				out = append(out, bn)
			}
		}
	}
	return out
}

// crossNode checks, for every batch with node records, that its nodes and
// every other batch's nodes have one fingerprint: one batch row each.
func crossNode(p *pipeline.Plan, nodes map[string]*pipeline.BatchNodes) []pipeline.FairnessRow {
	all := NodesOf(p, nodes)
	var rows []pipeline.FairnessRow
	for _, b := range p.Batches {
		var mine []BatchNode
		for _, n := range all {
			if n.Batch == b.Name {
				mine = append(mine, n)
			}
		}
		if len(mine) == 0 {
			continue
		}
		var diffs []string
		for _, m := range mine {
			for _, o := range all {
				if d := fingerprintDiff(m.Fingerprint, o.Fingerprint); d != "" {
					diffs = appendOnce(diffs, fmt.Sprintf("node %s (batch %s) and node %s (batch %s) differ: %s", m.Node, m.Batch, o.Node, o.Batch, d))
				}
			}
		}
		rows = append(rows, crossNodeRow(b.Name, mine, diffs, "the run's batches"))
	}
	return rows
}

// CompareNodes checks every batch that both runs a and b ran on nodes
// (compare sets them side by side): all its nodes, in both runs, must
// have one fingerprint. One batch row per such batch, in a's order.
func CompareNodes(a, b []BatchNode) []pipeline.FairnessRow {
	var rows []pipeline.FairnessRow
	var seen []string
	for _, x := range a {
		if slices.Contains(seen, x.Batch) {
			continue
		}
		seen = append(seen, x.Batch)
		var mine []BatchNode
		var diffs []string
		for _, na := range a {
			if na.Batch != x.Batch {
				continue
			}
			mine = append(mine, na)
			for _, nb := range b {
				if nb.Batch != x.Batch {
					continue
				}
				if d := fingerprintDiff(na.Fingerprint, nb.Fingerprint); d != "" {
					diffs = appendOnce(diffs, fmt.Sprintf("node %s (run A) and node %s (run B) differ: %s", na.Node, nb.Node, d))
				}
			}
		}
		inB := false
		for _, nb := range b {
			if nb.Batch == x.Batch {
				inB = true
				mine = append(mine, nb)
			}
		}
		if inB {
			rows = append(rows, crossNodeRow(x.Batch, mine, diffs, "both runs"))
		}
	}
	return rows
}

func crossNodeRow(batch string, nodes []BatchNode, diffs []string, across string) pipeline.FairnessRow {
	var names []string
	for _, n := range nodes {
		names = appendOnce(names, n.Node)
	}
	r := pipeline.FairnessRow{Check: "cross_node", Scope: "batch", Batch: batch, Pass: len(diffs) == 0}
	if r.Pass {
		r.Detail = str(fmt.Sprintf("ran on %s; one fingerprint across %s", strings.Join(names, ", "), across))
	} else {
		r.Detail = str(strings.Join(diffs, "; "))
	}
	return r
}

// fingerprintDiff lists the fields in which a and b differ, "" if none.
func fingerprintDiff(a, b pipeline.Fingerprint) string {
	var parts []string
	for _, d := range (&pipeline.Lock{Fingerprint: a}).Diff(&pipeline.Lock{Fingerprint: b}) {
		parts = append(parts, fmt.Sprintf("%s %q vs %q", d.Item, d.Was, d.Now))
	}
	return strings.Join(parts, ", ")
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
