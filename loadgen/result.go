package loadgen

import (
	"fmt"
	"io"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/pipeline"
	"yardstick/stats/hdrstat"
)

// LatencyUS summarises the latency distribution in microseconds.
type LatencyUS struct {
	P50   int64   `json:"p50"`
	P90   int64   `json:"p90"`
	P99   int64   `json:"p99"`
	P999  int64   `json:"p999"`
	Max   int64   `json:"max"`
	Min   int64   `json:"min"`
	Mean  float64 `json:"mean"`
	Stdev float64 `json:"stdev"`
}

// Result is what one run measured over its whole window. Latency is from
// the intended send time in an open loop and from the actual send time in a
// closed one; requests counts complete responses of any status.
type Result struct {
	Mode        string  `json:"mode"` // "closed" or "open"
	URL         string  `json:"url"`
	Method      string  `json:"method"`
	Connections int     `json:"connections"`
	Workers     int     `json:"workers"`
	DurationS   float64 `json:"duration_s"`
	// Stopped says what ended the run: "duration", "max_requests" or "stop"
	// (a signal or the driver).
	Stopped  string  `json:"stopped"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	RPS      float64 `json:"rps"`
	// CPUS is the CPU time (user + system) the load generator process used
	// during the run; compare it with DurationS times its CPUs to see
	// whether the client itself saturated.
	CPUS            float64          `json:"cpu_s"`
	CPUUserS        float64          `json:"cpu_user_s"`
	CPUSysS         float64          `json:"cpu_sys_s"`
	CPUPerRequestUS float64          `json:"cpu_us_per_request"`
	Latency         LatencyUS        `json:"latency_us"`
	RateTarget      float64          `json:"rate_target"`
	RateAchieved    float64          `json:"rate_achieved"` // requests sent per second
	Sends           int64            `json:"sends"`
	LateSends       int64            `json:"late_sends"`
	Unsent          int64            `json:"unsent"`     // open loop: slots that passed without a send
	Incomplete      int64            `json:"incomplete"` // requests still outstanding at the end
	Reconnects      int64            `json:"reconnects"`
	ErrorsByKind    map[string]int64 `json:"errors_by_kind"`
	StatusCounts    map[string]int64 `json:"status_counts"`
	ResponseBytes   int64            `json:"response_bytes"`
	BytesPerResp    float64          `json:"bytes_per_response"`
	Seed            uint64           `json:"seed"`
	Variants        int              `json:"variants"`
	// Hist is the whole-window latency histogram in microseconds (1 us to
	// 60 s, 3 significant digits) in the standard compressed encoding.
	Hist string `json:"hist"`
	// Affinity is the CPU masks of the load generator's own threads read
	// back at the end of a driven run (per mask, how many threads): the
	// driver's view when it cannot read the load generator's /proc.
	Affinity pipeline.ThreadMasks `json:"affinity,omitempty"`
	// Hold is what a connection-holding run (Spec.Hold, Mode "hold")
	// measured, per step; nil in a request run. In a hold run Latency and
	// Hist are the heartbeats' delay from their expected time, Errors the
	// connections refused and dropped, ErrorsByKind their reasons (the
	// HoldErrorKind names) and the request fields are zero.
	Hold *HoldResult `json:"hold,omitempty"`
}

// Histogram decodes r.Hist.
func (r *Result) Histogram() (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(r.Hist))
	if err != nil {
		return nil, fmt.Errorf("decode result histogram: %w", err)
	}
	return h, nil
}

func latencyOf(h *hdrhistogram.Histogram) LatencyUS {
	if h.TotalCount() == 0 {
		return LatencyUS{}
	}
	d := hdrstat.NewDist(h) // the published convention, not the library's rounding
	return LatencyUS{
		P50:   d.Percentile(50),
		P90:   d.Percentile(90),
		P99:   d.Percentile(99),
		P999:  d.Percentile(99.9),
		Max:   h.Max(),
		Min:   h.Min(),
		Mean:  h.Mean(),
		Stdev: h.StdDev(),
	}
}

func fmtUS(us float64) string {
	d := time.Duration(us * float64(time.Microsecond))
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fus", us)
	case d < time.Second:
		return fmt.Sprintf("%.2fms", us/1e3)
	default:
		return fmt.Sprintf("%.2fs", us/1e6)
	}
}

func fmtBytes(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2fGB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.2fMB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.2fKB", b/(1<<10))
	}
	return fmt.Sprintf("%.0fB", b)
}

// WriteText writes a wrk-like summary of r.
func (r *Result) WriteText(w io.Writer) error {
	l := r.Latency
	var err error
	p := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	p("Running %.2fs test @ %s\n", r.DurationS, r.URL)
	if r.Mode == "open" {
		p("  open loop at %.0f req/s, %d connections, %d workers\n", r.RateTarget, r.Connections, r.Workers)
	} else {
		p("  closed loop, %d connections, %d workers\n", r.Connections, r.Workers)
	}
	p("  Latency   mean %s  stdev %s  max %s\n", fmtUS(l.Mean), fmtUS(l.Stdev), fmtUS(float64(l.Max)))
	p("  Latency Distribution\n")
	for _, q := range []struct {
		name string
		v    int64
	}{{"50%", l.P50}, {"90%", l.P90}, {"99%", l.P99}, {"99.9%", l.P999}} {
		p("  %6s  %s\n", q.name, fmtUS(float64(q.v)))
	}
	p("  %d requests in %.2fs, %s read\n", r.Requests, r.DurationS, fmtBytes(float64(r.ResponseBytes)))
	if r.Errors > 0 {
		p("  Errors:")
		for _, k := range errorKindNames {
			if n := r.ErrorsByKind[k]; n > 0 {
				p(" %s %d", k, n)
			}
		}
		p("\n")
	}
	if r.Mode == "open" {
		p("  Sent %.2f req/s; %d late sends (> %s after their slot), %d slots unsent\n",
			r.RateAchieved, r.LateSends, LateThreshold, r.Unsent)
	}
	p("Requests/sec: %10.2f\n", r.RPS)
	p("Transfer/sec: %10s\n", fmtBytes(float64(r.ResponseBytes)/max(r.DurationS, 1e-9)))
	p("CPU:          %.2fs (%.2f us/request)\n", r.CPUS, r.CPUPerRequestUS)
	return err
}
