package execute

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"yardstick/pipeline"
)

// WriteSummary prints one line per planned cell from its checkpoint: the
// short table `run` ends with. Cells without a checkpoint show as pending.
func WriteSummary(w io.Writer, rd *pipeline.RunDir, p *pipeline.Plan, only pipeline.Only) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	rounds, err := rd.ReadRounds(p)
	if err != nil {
		return err
	}
	fmt.Fprintln(tw, "cell\tstatus\trps\tp50\tp99\tp99.9\tmax\terrors\tRSS\tCPU/req\tcold start\tsteady\t")
	var holds []*pipeline.Checkpoint
	for _, c := range p.Cells {
		if !only.Selects(&c) {
			continue
		}
		cp, err := rd.ReadCheckpoint(c.ID)
		if err != nil && rounds.NotNeeded(&c) {
			fmt.Fprintf(tw, "%s\tnot needed\t\t\t\t\t\t\t\t\t\t\t\n", c.Name)
			continue
		}
		if err != nil {
			fmt.Fprintf(tw, "%s\tpending\t\t\t\t\t\t\t\t\t\t\t\n", c.Name)
			continue
		}
		if cp.Status == pipeline.StatusOK && cp.Hold != nil {
			fmt.Fprintf(tw, "%s\t%s\t\t\t\t\t\t\t\t\t\t\t\n", c.Name, "ok (hold)")
			holds = append(holds, cp)
			continue
		}
		if cp.Status != pipeline.StatusOK || cp.Load == nil {
			fmt.Fprintf(tw, "%s\t%s\t\t\t\t\t\t\t\t\t\t\t\n", c.Name, cp.Status)
			continue
		}
		l := cp.Load
		var rss, cpu, cold string
		if cp.Target != nil {
			rss = fmt.Sprintf("%.1f MiB", float64(cp.Target.RSSSteadyBytes)/(1<<20))
			cpu = fmt.Sprintf("%.0f us", cp.Target.CPUPerRequestUS)
		}
		if cp.ColdStart != nil {
			cold = fmt.Sprintf("%.0f ms", cp.ColdStart.MedianMS)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t\n", c.Name, cp.Status, l.RPS,
			us(l.Latency.P50), us(l.Latency.P99), us(l.Latency.P999), us(l.Latency.Max), l.Errors, rss, cpu, cold, steadyText(cp))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeHoldSummary(w, holds)
}

// writeHoldSummary prints one line per step of the connection-holding
// cells: what was held, refused, dropped and missed, the heartbeats'
// delay, the target's memory per connection and threads, and where it
// broke.
func writeHoldSummary(w io.Writer, cps []*pipeline.Checkpoint) error {
	if len(cps) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "hold cell\tstep\theld\trefused\tdropped\tmissed\tdelay p50\tdelay p99\tKiB/conn\tthreads\tfailed\t")
	for _, cp := range cps {
		h := cp.Hold
		for i := range h.Steps {
			s := &h.Steps[i]
			mem, threads := "", ""
			if b, ok := h.MemoryPerConnection(s); ok {
				mem = fmt.Sprintf("%.1f", b/1024)
			}
			if s.TargetThreads >= 0 {
				threads = fmt.Sprint(s.TargetThreads)
			}
			failed := s.Failure
			if i == h.BreakingStep {
				failed += " (breaking point)"
			}
			fmt.Fprintf(tw, "%s\t%d\t%d of %d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", cp.CellName, s.Index, s.Held, s.Connections,
				s.Refused, s.Dropped, s.Missed, us(s.DelayP50US), us(s.DelayP99US), mem, threads, failed)
		}
	}
	return tw.Flush()
}

// steadyText is the cell's time to steady state; "drifted" when its kept
// window drifted in throughput (it counts, with a wider interval of its
// own); "never" when its load never became steady (left out of the
// decisions, decide.NeverSteady: no steady segment, and no adaptive
// warm-up that saw one); "?" without an analysis.
func steadyText(cp *pipeline.Checkpoint) string {
	st := cp.Steady
	sawSteady := cp.Window != nil && cp.Window.Auto && !cp.Window.WarmupCapped
	switch {
	case st == nil || st.Error != "":
		return "?"
	case st.Throughput.Class == pipeline.SteadyNone && !sawSteady:
		return "never"
	case st.Throughput.Class == pipeline.SteadyNone:
		return "drifted"
	case !st.Throughput.KeptSteady:
		return "drifted"
	case st.StartUS < 0:
		return "?"
	}
	return fmt.Sprintf("from %.1f s", float64(st.StartUS)/1e6)
}

func us(v int64) string {
	return (time.Duration(v) * time.Microsecond).Round(10 * time.Microsecond).String()
}
