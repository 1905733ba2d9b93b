package execute

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"yardstick/pipeline"
)

// Plain output (not a terminal): one line per event, done/total, elapsed
// and ETA; a terminal gets the status redrawn in place.
func TestProgressLines(t *testing.T) {
	var b strings.Builder
	p := newProgress(&b, false, 2, 10*time.Second)
	c := pipeline.Cell{Name: "main/go/c8/r1"}
	p.cellStart(&c)
	p.cellDone(&pipeline.Checkpoint{CellName: c.Name, Status: pipeline.StatusOK, Load: &pipeline.Load{RPS: 1234, Latency: pipeline.LatencyUS{P99: 1500}}})
	p.cellDone(&pipeline.Checkpoint{CellName: "main/go/c32/r1", Status: pipeline.StatusFailed, Error: "target exited\nstderr: boom"})
	p.close()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	for i, want := range []string{
		`^\[0/2\] elapsed 0s, eta 10s main/go/c8/r1 \.\.\.$`,
		`^\[1/2\] elapsed 0s, eta 0s main/go/c8/r1 ok 1234 rps, p99 1\.5ms$`,
		`^\[2/2\] elapsed 0s, eta 0s main/go/c32/r1 FAILED: target exited$`,
	} {
		if !regexpMatch(want, lines[i]) {
			t.Errorf("line %d: %q, want %s", i, lines[i], want)
		}
	}
	if strings.Contains(b.String(), "\r") {
		t.Error("carriage return in plain output")
	}

	b.Reset()
	p = newProgress(&b, true, 1, time.Second)
	p.note("start go")
	p.close()
	if !strings.HasPrefix(b.String(), "\r\x1b[K[0/1]") || !strings.HasSuffix(b.String(), "\n") {
		t.Errorf("terminal output %q: want a redrawn line ended by a newline", b.String())
	}
}

func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }
