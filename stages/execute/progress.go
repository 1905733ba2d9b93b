package execute

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"yardstick/pipeline"
)

// progress reports cells done / total, the current cell, elapsed time and
// an ETA: redrawn in place on a terminal, one line per event otherwise.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	total    int
	done     int
	failed   int
	start    time.Time
	estimate time.Duration
	current  string
	drawn    bool
	stage    string // heads the counter: "round 2 of 3 to 4"
}

func newProgress(w io.Writer, terminal bool, total int, estimate time.Duration) *progress {
	if w == nil {
		w = io.Discard
	}
	return &progress{w: w, terminal: terminal, total: total, start: time.Now(), estimate: estimate}
}

// eta scales the planned time by how far the run has got; before the
// first cell ends it is the plan's estimate.
func (p *progress) eta() time.Duration {
	el := time.Since(p.start)
	if p.done+p.failed == 0 {
		return max(p.estimate-el, 0)
	}
	per := el / time.Duration(p.done+p.failed)
	return per * time.Duration(p.total-p.done-p.failed)
}

func (p *progress) status() string {
	stage := ""
	if p.stage != "" {
		stage = p.stage + " "
	}
	return fmt.Sprintf("[%s%d/%d] elapsed %s, eta %s", stage, p.done+p.failed, p.total,
		time.Since(p.start).Round(time.Second), p.eta().Round(time.Second))
}

func (p *progress) line(s string) {
	if p.terminal {
		fmt.Fprintf(p.w, "\r\x1b[K%s", s)
		p.drawn = true
		return
	}
	fmt.Fprintln(p.w, s)
}

// note reports a step inside a cell or a group (a start, a warm-up).
func (p *progress) note(s string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal {
		p.line(p.status() + " " + s)
		return
	}
	p.line("  " + s)
}

func (p *progress) cellStart(c *pipeline.Cell) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.current = c.Name
	p.line(p.status() + " " + c.Name + " ...")
}

func (p *progress) cellDone(cp *pipeline.Checkpoint) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if cp.Status == pipeline.StatusOK {
		p.done++
	} else {
		p.failed++
	}
	var what string
	switch {
	case cp.Status == pipeline.StatusOK && cp.Hold != nil:
		what = "ok " + cp.Hold.Words()
	case cp.Status == pipeline.StatusOK && cp.Load != nil:
		what = fmt.Sprintf("ok %.0f rps, p99 %s", cp.Load.RPS, time.Duration(cp.Load.Latency.P99)*time.Microsecond)
	default:
		what = "FAILED: " + firstLine(cp.Error)
	}
	if p.terminal {
		// A finished cell keeps its line; the next status redraws below.
		fmt.Fprintf(p.w, "\r\x1b[K%s %s %s\n", p.status(), cp.CellName, what)
		p.drawn = false
		return
	}
	p.line(fmt.Sprintf("%s %s %s", p.status(), cp.CellName, what))
}

func (p *progress) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal && p.drawn {
		fmt.Fprintln(p.w)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
