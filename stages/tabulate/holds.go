package tabulate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"yardstick/datasets"
	"yardstick/pipeline"
)

// holdRows are the holds table's rows of cell c: one per step of its
// checkpoint's hold part, none for a request cell.
func holdRows(c *pipeline.Cell, h *pipeline.HoldStats) []datasets.HoldStep {
	if h == nil {
		return nil
	}
	out := make([]datasets.HoldStep, 0, len(h.Steps))
	for i := range h.Steps {
		s := &h.Steps[i]
		r := datasets.HoldStep{
			CellID: c.ID, Batch: c.Batch, Variant: c.Variant, Repeat: int64(c.Repeat),
			Step: int64(s.Index), Connections: int64(s.Connections), StartS: s.StartS, OpenedS: s.OpenedS, EndS: s.EndS,
			Complete: s.Complete, Requested: s.Requested, Established: s.Established, Refused: s.Refused, Dropped: s.Dropped,
			Held: s.Held, Heartbeats: s.Heartbeats, Missed: s.Missed,
			DelayP50US: s.DelayP50US, DelayP99US: s.DelayP99US, DelayP999US: s.DelayP999US, DelayMaxUS: s.DelayMaxUS,
			LatencyP99US: s.LatencyP99US, DelayHist: s.DelayHist, ErrorsByKind: kindCounts(s.ErrorsByKind),
			Breaking: s.Index == h.BreakingStep, LoadgenRSSBytes: s.LoadgenRSSBytes, LoadgenCPUS: s.LoadgenCPUSeconds,
		}
		if s.Failure != "" {
			r.Failure = &s.Failure
		}
		if s.TargetRSSBytes >= 0 {
			r.TargetRSSBytes = &s.TargetRSSBytes
		}
		if s.TargetThreads >= 0 {
			n := int64(s.TargetThreads)
			r.TargetThreads = &n
		}
		if s.TargetCPUSeconds >= 0 {
			r.TargetCPUS = &s.TargetCPUSeconds
		}
		if v, ok := h.MemoryPerConnection(s); ok {
			v *= 1000
			r.RSSPer1kBytes = &v
		}
		if v, ok := s.CPUPerThousand(); ok {
			r.CPUPer1k = &v
		}
		out = append(out, r)
	}
	return out
}

// kindCounts writes counts by kind as sorted "kind=count" pairs, those
// of none left out.
func kindCounts(m map[string]int64) string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, ",")
}

// holdColumns fill a connection-holding cell's cells columns from its
// last step; such a cell sent no requests, so it has no CPU per request.
func holdColumns(r *datasets.Cell, h *pipeline.HoldStats) {
	r.CPUPerRequestUS = nil
	if h.BreakingStep >= 0 {
		r.HoldBreakingConnections = ptr(int64(h.BreakingConnections))
	}
	s := h.Last()
	if s == nil {
		return
	}
	r.HoldHeld = ptr(s.Held)
	if s.Heartbeats > 0 {
		r.HoldDelayP99US = ptr(s.DelayP99US)
	}
	if b, ok := h.MemoryPerConnection(s); ok {
		r.HoldMemoryPerConnection = ptr(b)
	}
}
