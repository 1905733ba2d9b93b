package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"yardstick/pipeline"
	"yardstick/pipeline/safetext"
)

// A Diff is what changed between two plans of one experiment, as a
// reviewer needs it: batch-level settings, then cells added, removed and
// changed (matched by name; a changed cell keeps its name but gets a new
// id).
type Diff struct {
	Old, New  *pipeline.Plan
	Batches   []BatchDiff
	Added     []pipeline.Cell
	Removed   []pipeline.Cell
	Changed   []CellChange
	Unchanged int
}

// A BatchDiff lists the batch-level fields that changed, or a batch that
// was added or removed.
type BatchDiff struct {
	Name    string
	Status  string // "added", "removed" or "changed"
	Changes []FieldChange
}

// A FieldChange is one field's old and new value, formatted for reading.
type FieldChange struct {
	Field    string
	Old, New string
}

// A CellChange is a cell whose name stayed and whose id changed.
type CellChange struct {
	Name         string
	OldID, NewID string
	Changes      []FieldChange
}

// Compare diffs two plans.
func Compare(old, new *pipeline.Plan) *Diff {
	d := &Diff{Old: old, New: new}
	ob, nb := batchMap(old), batchMap(new)
	for _, name := range unionKeys(old.Batches, new.Batches) {
		o, n := ob[name], nb[name]
		switch {
		case o == nil:
			d.Batches = append(d.Batches, BatchDiff{Name: name, Status: "added"})
		case n == nil:
			d.Batches = append(d.Batches, BatchDiff{Name: name, Status: "removed"})
		default:
			if ch := batchChanges(o, n, old, new); len(ch) > 0 {
				d.Batches = append(d.Batches, BatchDiff{Name: name, Status: "changed", Changes: ch})
			}
		}
	}
	oc, nc := cellMap(old), cellMap(new)
	for _, c := range new.Cells {
		o, ok := oc[c.Name]
		switch {
		case !ok:
			d.Added = append(d.Added, c)
		case o.ID != c.ID:
			d.Changed = append(d.Changed, CellChange{Name: c.Name, OldID: o.ID, NewID: c.ID, Changes: cellChanges(old, new, &o, &c)})
		default:
			d.Unchanged++
		}
	}
	for _, c := range old.Cells {
		if _, ok := nc[c.Name]; !ok {
			d.Removed = append(d.Removed, c)
		}
	}
	return d
}

// Empty reports whether the plans run the same cells with the same
// settings.
func (d *Diff) Empty() bool {
	return len(d.Batches) == 0 && len(d.Added) == 0 && len(d.Removed) == 0 && len(d.Changed) == 0
}

func batchMap(p *pipeline.Plan) map[string]*pipeline.Batch {
	m := map[string]*pipeline.Batch{}
	for i := range p.Batches {
		m[p.Batches[i].Name] = &p.Batches[i]
	}
	return m
}

func cellMap(p *pipeline.Plan) map[string]pipeline.Cell {
	m := map[string]pipeline.Cell{}
	for _, c := range p.Cells {
		m[c.Name] = c
	}
	return m
}

func unionKeys(a, b []pipeline.Batch) []string {
	var out []string
	for _, x := range append(slices.Clone(a), b...) {
		if !slices.Contains(out, x.Name) {
			out = append(out, x.Name)
		}
	}
	slices.Sort(out)
	return out
}

// show formats any value compactly for a change line.
func show(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []string:
		return quoteArgs(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func change(field string, o, n any) []FieldChange {
	so, sn := show(o), show(n)
	if so == sn {
		return nil
	}
	return []FieldChange{{Field: field, Old: so, New: sn}}
}

func batchChanges(o, n *pipeline.Batch, op, np *pipeline.Plan) []FieldChange {
	var ch []FieldChange
	ow, nw := o.Windows, n.Windows
	ch = append(ch, change("windows.serviceWarmup", ow.ServiceWarmup.String(), nw.ServiceWarmup.String())...)
	ch = append(ch, change("windows.warmup", ow.Warmup.String(), nw.Warmup.String())...)
	ch = append(ch, change("windows.measure", ow.Measure.String(), nw.Measure.String())...)
	ch = append(ch, change("windows.discardHead", ow.DiscardHead.String(), nw.DiscardHead.String())...)
	ch = append(ch, change("windows.readyTimeout", ow.ReadyTimeout.String(), nw.ReadyTimeout.String())...)
	ch = append(ch, change("placement.target", o.Placement.Target.String(), n.Placement.Target.String())...)
	ch = append(ch, change("placement.services", o.Placement.Services.String(), n.Placement.Services.String())...)
	ch = append(ch, change("placement.loadgen", o.Placement.Loadgen.String(), n.Placement.Loadgen.String())...)
	ch = append(ch, change("placement.hosts", hostsText(o.Placement), hostsText(n.Placement))...)
	ch = append(ch, change("placement.share", shareText(o.Placement), shareText(n.Placement))...)
	ch = append(ch, change("processors", o.Processors, n.Processors)...)
	ch = append(ch, change("fairness", fairnessText(o), fairnessText(n))...)
	ch = append(ch, change("baseline", o.Baseline, n.Baseline)...)
	ch = append(ch, change("repeats", repeatsText(o), repeatsText(n))...)
	ch = append(ch, change("request", o.Request, n.Request)...)
	ch = append(ch, change("timeout", o.Timeout.String(), n.Timeout.String())...)
	ch = append(ch, change("sampling", o.Sampling, n.Sampling)...)
	ch = append(ch, change("cold starts", o.ColdStarts, n.ColdStarts)...)
	ch = append(ch, change("order", orderLine(o), orderLine(n))...)
	ch = append(ch, change("services", o.Services, n.Services)...)
	if seqOf(op, np, o.Name) != seqOf(np, op, n.Name) {
		ch = append(ch, FieldChange{Field: "run order", Old: "(as before)", New: "cells run in a different order"})
	}
	return ch
}

// seqOf lists the names of a batch's cells that other also has, in p's
// run order, for comparing orders.
func seqOf(p, other *pipeline.Plan, batch string) string {
	in := cellMap(other)
	var names []string
	for _, c := range p.Cells {
		if _, ok := in[c.Name]; ok && c.Batch == batch {
			names = append(names, c.Name)
		}
	}
	return strings.Join(names, "\n")
}

func orderLine(b *pipeline.Batch) string {
	if b.Order == "random" {
		return fmt.Sprintf("random (seed %d)", b.Seed)
	}
	return b.Order
}

func variantOf(p *pipeline.Plan, c *pipeline.Cell) *pipeline.Variant {
	if b := p.Batch(c.Batch); b != nil {
		if v := b.Variant(c.Variant); v != nil {
			return v
		}
	}
	return &pipeline.Variant{}
}

// cellChanges says which parts of a cell's resolved form changed. Batch
// settings that changed are named once per cell ("batch windows") and
// detailed in the batch section.
func cellChanges(op, np *pipeline.Plan, o, n *pipeline.Cell) []FieldChange {
	var ch []FieldChange
	ch = append(ch, argvChanges(o.Argv, n.Argv)...)
	ch = append(ch, envChanges(o.Env, n.Env)...)
	ov, nv := variantOf(op, o), variantOf(np, n)
	ch = append(ch, knobChanges(ov.Knobs, nv.Knobs)...)
	ch = append(ch, change("dir", ov.Dir, nv.Dir)...)
	ch = append(ch, change("port", ov.Port, nv.Port)...)
	ch = append(ch, change("ready", ov.Ready, nv.Ready)...)
	ch = append(ch, change("build", ov.Build, nv.Build)...)
	ch = append(ch, change("point", o.Point, n.Point)...)
	if op.Experiment != np.Experiment {
		ch = append(ch, FieldChange{Field: "experiment", Old: op.Experiment, New: np.Experiment})
	}
	ob, nb := batchMap(op)[o.Batch], batchMap(np)[n.Batch]
	if ob != nil && nb != nil {
		for _, bc := range batchChanges(ob, nb, op, np) {
			switch bc.Field {
			case "run order", "fairness", "baseline", "order", "repeats", "cold starts":
				continue // these do not enter a cell's id
			}
			ch = append(ch, FieldChange{Field: "batch " + bc.Field, Old: "", New: "changed"})
		}
	}
	return ch
}

// argvChanges names the arguments that changed when the command kept its
// length, else shows both command lines.
func argvChanges(o, n []string) []FieldChange {
	if slices.Equal(o, n) {
		return nil
	}
	if len(o) != len(n) {
		return change("argv", o, n)
	}
	var ch []FieldChange
	for i := range o {
		if o[i] != n[i] {
			ch = append(ch, FieldChange{Field: fmt.Sprintf("argv[%d]", i), Old: o[i], New: n[i]})
		}
	}
	return ch
}

// knobChanges lists knobs added, removed or changed.
func knobChanges(o, n []pipeline.Knob) []FieldChange {
	return keyedChanges("knob ", knobMap(o), knobMap(n))
}

func knobMap(ks []pipeline.Knob) map[string]string {
	m := map[string]string{}
	for _, k := range ks {
		m[k.Name] = k.Value
	}
	return m
}

// envChanges lists variables added, removed or changed.
func envChanges(o, n []string) []FieldChange {
	split := func(env []string) map[string]string {
		m := map[string]string{}
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		return m
	}
	return keyedChanges("env ", split(o), split(n))
}

// keyedChanges lists the keys added, removed or changed between two maps,
// sorted by key.
func keyedChanges(prefix string, om, nm map[string]string) []FieldChange {
	var keys []string
	for k := range om {
		keys = append(keys, k)
	}
	for k := range nm {
		if _, ok := om[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var ch []FieldChange
	for _, k := range keys {
		ov, inO := om[k]
		nv, inN := nm[k]
		switch {
		case !inO:
			ch = append(ch, FieldChange{Field: prefix + k, Old: "(unset)", New: nv})
		case !inN:
			ch = append(ch, FieldChange{Field: prefix + k, Old: ov, New: "(unset)"})
		case ov != nv:
			ch = append(ch, FieldChange{Field: prefix + k, Old: ov, New: nv})
		}
	}
	return ch
}

// WriteDiffText writes d as plain text; what it quotes of the definitions
// is escaped for one line (safetext.Line).
func WriteDiffText(w io.Writer, d *Diff) error {
	var b strings.Builder
	name := d.New.Experiment
	if d.Old.Experiment != d.New.Experiment {
		name = d.Old.Experiment + " -> " + d.New.Experiment
	}
	name = line(name)
	fmt.Fprintf(&b, "experiment %s: %d cell(s) added, %d removed, %d changed, %d unchanged\n", name, len(d.Added), len(d.Removed), len(d.Changed), d.Unchanged)
	for _, bd := range d.Batches {
		fmt.Fprintf(&b, "batch %s: %s\n", line(bd.Name), bd.Status)
		for _, c := range bd.Changes {
			fmt.Fprintf(&b, "  %s: %s -> %s\n", line(c.Field), line(c.Old), line(c.New))
		}
	}
	for _, c := range d.Added {
		fmt.Fprintf(&b, "+ %s  %s\n", c.ID, line(c.Name))
	}
	for _, c := range d.Removed {
		fmt.Fprintf(&b, "- %s  %s\n", c.ID, line(c.Name))
	}
	for _, c := range d.Changed {
		fmt.Fprintf(&b, "~ %s -> %s  %s\n", c.OldID, c.NewID, line(c.Name))
		for _, f := range c.Changes {
			if f.Old == "" {
				fmt.Fprintf(&b, "    %s %s\n", line(f.Field), line(f.New))
				continue
			}
			fmt.Fprintf(&b, "    %s: %s -> %s\n", line(f.Field), line(f.Old), line(f.New))
		}
	}
	if d.Empty() {
		b.WriteString("no changes\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteDiffMarkdown writes d as Markdown for a pull-request comment: what
// it quotes of the definitions and their file names is a code span
// (mdCode) or escaped text (mdCell), so that no Markdown, HTML or
// @-mention of theirs takes effect.
func WriteDiffMarkdown(w io.Writer, d *Diff, oldArg, newArg string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### yardstick diff: %s → %s\n\n", mdCode(oldArg), mdCode(newArg))
	name := mdCode(d.New.Experiment)
	if d.Old.Experiment != d.New.Experiment {
		name = mdCode(d.Old.Experiment) + " → " + mdCode(d.New.Experiment)
	}
	fmt.Fprintf(&b, "Experiment %s: **%d** cell(s) added, **%d** removed, **%d** changed, %d unchanged.\n", name, len(d.Added), len(d.Removed), len(d.Changed), d.Unchanged)
	if d.Empty() {
		b.WriteString("\nNo changes.\n")
	}
	if len(d.Batches) > 0 {
		b.WriteString("\n| batch | field | old | new |\n|---|---|---|---|\n")
		for _, bd := range d.Batches {
			if bd.Status != "changed" {
				fmt.Fprintf(&b, "| %s | *(batch %s)* | | |\n", mdCell(bd.Name), bd.Status)
				continue
			}
			for _, c := range bd.Changes {
				fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdCell(bd.Name), mdCell(c.Field), mdCode(c.Old), mdCode(c.New))
			}
		}
	}
	if len(d.Added)+len(d.Removed)+len(d.Changed) > 0 {
		b.WriteString("\n| | cell | id | what changed |\n|---|---|---|---|\n")
		for _, c := range d.Added {
			fmt.Fprintf(&b, "| + | %s | `%s` | added |\n", mdCode(c.Name), c.ID)
		}
		for _, c := range d.Removed {
			fmt.Fprintf(&b, "| − | %s | `%s` | removed |\n", mdCode(c.Name), c.ID)
		}
		for _, c := range d.Changed {
			var parts []string
			for _, f := range c.Changes {
				if f.Old == "" {
					parts = append(parts, mdCell(f.Field)+" changed")
					continue
				}
				parts = append(parts, fmt.Sprintf("%s: %s → %s", mdCell(f.Field), mdCode(f.Old), mdCode(f.New)))
			}
			fmt.Fprintf(&b, "| ~ | %s | `%s` → `%s` | %s |\n", mdCode(c.Name), c.OldID, c.NewID, strings.Join(parts, "<br>"))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell and mdCode escape definition text (untrusted: it comes from
// pull requests) for the Markdown diff.
func mdCell(s string) string { return safetext.MarkdownCell(s) }

func mdCode(s string) string { return safetext.MarkdownCode(s) }

// line escapes definition text for a line of the text diff.
func line(s string) string { return safetext.Line(s) }

func hostsText(p pipeline.Placement) string {
	if p.TwoHost() {
		return p.Hosts
	}
	return "same"
}

// shareText is a placement's declared shares in words, "" when none.
func shareText(p pipeline.Placement) string {
	var parts []string
	for _, s := range p.Share {
		parts = append(parts, p.ShareText(s))
	}
	return strings.Join(parts, "; ")
}
