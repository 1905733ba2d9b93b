package gclog

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"
)

// Stats are the garbage-collection statistics of one window. Durations
// marshal to JSON as integer nanoseconds, hence the _ns suffixes.
type Stats struct {
	// Count is the number of collections in the window: gctrace lines for
	// Go, distinct GC(n) ids for the JVM.
	Count int `json:"count"`
	// PauseTotal is the sum of Pauses.
	PauseTotal time.Duration `json:"pause_total_ns"`
	// PauseMax is the longest of Pauses, 0 when there are none.
	PauseMax time.Duration `json:"pause_max_ns"`
	// Pauses holds every stop-the-world pause in log order. A collection may
	// contribute several (Go: two; ZGC: three; G1 concurrent cycles: remark
	// and cleanup).
	Pauses []time.Duration `json:"pauses_ns"`
}

func (s *Stats) addPause(d time.Duration) {
	s.Pauses = append(s.Pauses, d)
	s.PauseTotal += d
	if d > s.PauseMax {
		s.PauseMax = d
	}
}

// Window returns the complete lines of b that lie in the byte range
// [start, end). A line cut by start (one that began before it) is dropped
// unless start is 0 or falls right after a newline; a line cut by end (one
// still being written when the window closed) is dropped too. Offsets out of
// range are clamped to b; end <= start gives an empty window. The result
// aliases b.
func Window(b []byte, start, end int64) []byte {
	n := int64(len(b))
	start = min(max(start, 0), n)
	end = min(max(end, start), n)
	w := b[start:end]
	if start > 0 && b[start-1] != '\n' {
		i := bytes.IndexByte(w, '\n')
		if i < 0 {
			return w[:0]
		}
		w = w[i+1:]
	}
	i := bytes.LastIndexByte(w, '\n')
	return w[:i+1]
}

// ReadWindow reads the byte range [start, end) of the file at path and
// returns its complete lines, as [Window] does on the whole file. It reads
// one byte before start to know whether start is at a line start.
func ReadWindow(path string, start, end int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gclog: read window: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("gclog: read window: %w", err)
	}
	size := fi.Size()
	start = min(max(start, 0), size)
	end = min(max(end, start), size)
	from := max(start-1, 0)
	buf := make([]byte, end-from)
	if _, err := f.ReadAt(buf, from); err != nil && err != io.EOF {
		return nil, fmt.Errorf("gclog: read window of %s [%d, %d): %w", path, start, end, err)
	}
	return Window(buf, start-from, end-from), nil
}

// lines calls fn for every line of b, without its newline or a trailing
// carriage return.
func lines(b []byte, fn func(line []byte)) {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		fn(bytes.TrimSuffix(line, []byte("\r")))
	}
}

// parseMillis reads a non-negative decimal number of milliseconds ("0",
// "0.018", "12", "2.345") exactly, without going through float64. Digits
// past the nanosecond are truncated. It rejects numbers that would not fit
// comfortably in a Duration.
func parseMillis(s []byte) (time.Duration, bool) {
	intPart, frac, hasDot := bytes.Cut(s, []byte("."))
	if len(intPart) == 0 || len(intPart) > 9 || (hasDot && len(frac) == 0) {
		return 0, false
	}
	var ns int64
	for _, c := range intPart {
		if c < '0' || c > '9' {
			return 0, false
		}
		ns = ns*10 + int64(c-'0')
	}
	ns *= 1e6
	scale := int64(1e5)
	for _, c := range frac {
		if c < '0' || c > '9' {
			return 0, false
		}
		ns += int64(c-'0') * scale
		scale /= 10
	}
	return time.Duration(ns), true
}
