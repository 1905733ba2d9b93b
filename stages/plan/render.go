package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"yardstick/pipeline"
	"yardstick/pipeline/safetext"
)

// WriteText writes the plan as the deterministic, diffable text a reviewer
// reads: the experiment, then per batch its preconditions, the exact argv
// and environment of every variant and service, and the ordered cells.
func WriteText(w io.Writer, p *pipeline.Plan) error {
	var b strings.Builder
	fmt.Fprintf(&b, "experiment %s: %s\n", p.Experiment, safetext.Line(p.Description))
	fmt.Fprintf(&b, "cells: %d in %d batch(es); estimated wall time at least %s\n", len(p.Cells), len(p.Batches), FormatSeconds(p.EstimatedSeconds))
	fmt.Fprintf(&b, "plan hash: %s\n", p.Hash[:16])
	if p.Question != nil {
		fmt.Fprintf(&b, "question (%s): %s\n", p.Question.Answer, safetext.Line(p.Question.Text))
	}
	if len(p.Tags) > 0 {
		fmt.Fprintf(&b, "tags: %s\n", quoteArgs(p.Tags))
	}
	for bi := range p.Batches {
		bt := &p.Batches[bi]
		var cells []pipeline.Cell
		for _, c := range p.Cells {
			if c.Batch == bt.Name {
				cells = append(cells, c)
			}
		}
		batchHeader(&b, bt, len(cells))
		if bt.Description != "" {
			fmt.Fprintf(&b, "  %s\n", safetext.Line(bt.Description))
		}
		w := bt.Windows
		fmt.Fprintf(&b, "  processors %d; cpus: target %s, loadgen %s", bt.Processors, bt.Placement.Target, bt.Placement.Loadgen)
		if len(bt.Placement.Services) > 0 {
			fmt.Fprintf(&b, ", services %s", bt.Placement.Services)
		}
		if bt.Placement.TwoHost() {
			b.WriteString("; hosts: separate (the load generator on another host, given to run)")
		}
		b.WriteString("\n")
		for _, sh := range bt.Placement.Share {
			fmt.Fprintf(&b, "  SHARED CPUS: %s\n", safetext.Line(bt.Placement.ShareText(sh)))
		}
		hold := len(cells) > 0 && cells[0].Point.Hold != nil
		fmt.Fprintf(&b, "  windows: %s\n", windowsText(w, hold))
		r := bt.Request
		fmt.Fprintf(&b, "  request: %s %s", r.Method, safetext.Line(r.Path))
		if r.Vary != nil {
			fmt.Fprintf(&b, " ({vary} in %d..%d)", r.Vary.Min, r.Vary.Max)
		}
		fmt.Fprintf(&b, ", timeout %s\n", bt.Timeout)
		if hold {
			fmt.Fprintf(&b, "  hold: %s\n", holdText(cells[0].Point.Hold))
		}
		fmt.Fprintf(&b, "  fairness: %s\n", fairnessText(bt))
		if bt.Baseline != "" {
			fmt.Fprintf(&b, "  baseline: %s\n", bt.Baseline)
		}
		fmt.Fprintf(&b, "  sampling every %s", bt.Sampling.Interval)
		if bt.Sampling.LoadInterval > 0 {
			fmt.Fprintf(&b, ", load every %s", bt.Sampling.LoadInterval)
		}
		fmt.Fprintf(&b, "; RSS after %s idle; %d extra cold start(s)\n", bt.Sampling.IdleAfter, bt.ColdStarts)
		for _, s := range bt.Services {
			fmt.Fprintf(&b, "  service %s (%s)\n", s.Name, s.Kind)
			writeProcess(&b, &s, "    ")
		}
		for _, v := range bt.Variants {
			fmt.Fprintf(&b, "  variant %s (%s", v.Label, v.Kind)
			for _, k := range v.Knobs {
				fmt.Fprintf(&b, ", %s %s", k.Name, k.Value)
			}
			if v.Kind != "go" && v.Kind != "jvm" {
				fmt.Fprintf(&b, "; sees %d CPU(s)", v.Processors)
			}
			b.WriteString(")\n")
			writeProcess(&b, &v.Process, "    ")
			writeLimits(&b, &v, "    ")
		}
		b.WriteString("  cells:\n")
		for _, c := range cells {
			fmt.Fprintf(&b, "    %4d  %s  %s\n", c.Seq+1, c.ID, c.Name)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeLimits says what control group a variant's starts run in and the
// processor count its runtime is expected to pick under the quota.
func writeLimits(b *strings.Builder, v *pipeline.Variant, indent string) {
	l := v.Limits
	if l == nil {
		return
	}
	var parts []string
	if l.CPUs > 0 {
		parts = append(parts, fmt.Sprintf("CPU quota %s per %s period", strconv.FormatFloat(l.CPUs, 'f', -1, 64), time.Duration(l.PeriodUS)*time.Microsecond))
	}
	if l.MemoryBytes > 0 {
		parts = append(parts, fmt.Sprintf("memory %s (%d bytes)", l.Memory, l.MemoryBytes))
	}
	fmt.Fprintf(b, "%slimits: %s, in a control group per start; runs with %d processor(s)\n", indent, strings.Join(parts, ", "), v.Processors)
}

func writeProcess(b *strings.Builder, p *pipeline.Process, indent string) {
	if len(p.Build) > 0 {
		fmt.Fprintf(b, "%sbuild: %s\n", indent, quoteArgs(p.Build))
	}
	fmt.Fprintf(b, "%sargv:  %s\n", indent, quoteArgs(p.Argv))
	if len(p.Env) > 0 {
		fmt.Fprintf(b, "%senv:   %s\n", indent, quoteArgs(p.Env))
	}
	if p.Dir != "" {
		fmt.Fprintf(b, "%sdir:   %s\n", indent, safetext.Line(p.Dir))
	}
	fmt.Fprintf(b, "%sready: %s (port %d)\n", indent, safetext.Line(p.Ready), p.Port)
	if p.EventLoopThreads != "" {
		fmt.Fprintf(b, "%sevent-loop threads: /%s/\n", indent, safetext.Line(p.EventLoopThreads))
	}
	if p.AccessLog != "" {
		fmt.Fprintf(b, "%saccess log: %s\n", indent, safetext.Line(p.AccessLog))
	}
}

func fairnessText(b *pipeline.Batch) string {
	f := b.Fairness
	margin := fmt.Sprintf("margin ±%s", pct(f.Noise))
	if len(f.Margins) > 0 {
		names := slices.Sorted(maps.Keys(f.Margins))
		own := make([]string, len(names))
		for i, n := range names {
			own[i] = fmt.Sprintf("%s ±%s", n, pct(f.Margins[n]))
		}
		margin = "margins " + strings.Join(own, ", ") + fmt.Sprintf(", every other metric ±%s", pct(f.Noise))
	}
	if f.Rule == pipeline.RuleBeyondMargin {
		margin += " (a difference claimed only when its whole interval lies beyond the margin)"
	}
	parts := []string{margin}
	if f.EventLoops > 0 {
		parts = append(parts, fmt.Sprintf("event loops %d", f.EventLoops))
	}
	if f.LogBytesPerRequest != nil {
		parts = append(parts, "log bytes/request within "+pct(f.LogBytesPerRequest.Tolerance))
	}
	if f.ResponseBytesPerRequest != nil {
		parts = append(parts, "response bytes/request within "+pct(f.ResponseBytesPerRequest.Tolerance))
	}
	return strings.Join(parts, ", ")
}

func pct(f float64) string { return strconv.FormatFloat(f*100, 'g', 6, 64) + "%" }

// quoteArgs joins arguments for display, quoting those a shell would
// split, escaped for one line (safetext.Line).
func quoteArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`*?[]{}()<>|&;#") {
			out[i] = strconv.Quote(a)
		} else {
			out[i] = a
		}
	}
	return safetext.Line(strings.Join(out, " "))
}

// FormatSeconds formats a duration in seconds as "1h2m3s", rounded up to
// the second.
func FormatSeconds(s float64) string {
	return (time.Duration(s+0.999) * time.Second).String()
}

// WriteJSON writes the plan as one indented JSON object, its strings
// escaped by safetext.JSON (they decode to the same values).
func WriteJSON(w io.Writer, p *pipeline.Plan) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return fmt.Errorf("plan as JSON: %w", err)
	}
	_, err = w.Write(append(safetext.JSON(b), '\n'))
	return err
}

// repeatsText is a batch's repeats in words: "3", or for adaptive ones
// "3 to 10 rounds until throughput and p99 are decided (budget 5m)".
func repeatsText(b *pipeline.Batch) string {
	if !b.Adaptive() {
		return fmt.Sprint(b.Repeats)
	}
	verb := " are"
	if len(b.Until()) == 1 {
		verb = " is"
	}
	s := fmt.Sprintf("%d to %d rounds until %s%s decided", b.RepeatsMin, b.Repeats, b.UntilWords(), verb)
	if b.RepeatsBudget > 0 {
		s += fmt.Sprintf(" (budget %s)", b.RepeatsBudget.D())
	}
	return s
}

// batchHeader is a batch's first line: its cells, repeats and order.
func batchHeader(b *strings.Builder, bt *pipeline.Batch, cells int) {
	if bt.Adaptive() {
		fmt.Fprintf(b, "\nbatch %s: at most %d cells, repeats %s, order %s", bt.Name, cells, repeatsText(bt), bt.Order)
	} else {
		fmt.Fprintf(b, "\nbatch %s: %d cells, %d repeat(s), order %s", bt.Name, cells, bt.Repeats, bt.Order)
	}
	if bt.Order == "random" || bt.Order == "rounds" {
		fmt.Fprintf(b, " (seed %d)", bt.Seed)
	}
	b.WriteString("\n")
}

// windowsText is a batch's windows in words; a hold batch has no warm-up
// or measure window: its whole load is kept.
func windowsText(w pipeline.Windows, hold bool) string {
	if hold {
		return fmt.Sprintf("service warm-up %s, ready timeout %s; the whole hold is measured", w.ServiceWarmup, w.ReadyTimeout)
	}
	return w.String()
}

// holdText describes a connection-holding workload in a line.
func holdText(h *pipeline.Hold) string {
	steps := make([]string, len(h.Steps))
	for i, n := range h.Steps {
		steps[i] = strconv.Itoa(n)
	}
	miss := h.MissBound
	if miss == 0 {
		miss = h.Heartbeat
	}
	src := "source addresses chosen by the load generator"
	if h.SourceAddrs > 0 {
		src = fmt.Sprintf("%d source address(es)", h.SourceAddrs)
	}
	return fmt.Sprintf("%s connections in steps %s, opened at %s/s, each step held %s (%s in all); heartbeat every %s, missed beyond %s; %s",
		h.Protocol, strings.Join(steps, ", "), strconv.FormatFloat(h.OpenRate, 'f', -1, 64), h.StepHold, h.Length().Round(time.Second), h.Heartbeat, miss, src)
}
