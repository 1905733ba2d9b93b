package gclog

import "regexp"

// goLine matches the head of a gctrace line as printed by gcMarkTermination
// in Go 1.26's runtime/mgc.go:
//
//	gc 12 @3.456s 2%: 0.018+1.2+0.021 ms clock, 0.036+0.5/1.1/0+0.042 ms cpu, 4->4->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P (forced)
//
// The three clock terms are sweep termination (stop-the-world), concurrent
// mark and mark termination (stop-the-world); each is printed by fmtNSAsMS
// as whole milliseconds from 10 ms up, else with at most three decimals.
// Parenthesised notes after the percentage, such as "(checking for goroutine
// leaks)", are allowed; "(forced)" comes at the end and needs no match. The
// match is not anchored: when the program's own unterminated output shares
// the line, the trace still counts.
var goLine = regexp.MustCompile(`gc \d+ @\d+(?:\.\d+)?s \d+%(?: \([^()\n]*\))*: (\d+(?:\.\d+)?)\+\d+(?:\.\d+)?\+(\d+(?:\.\d+)?) ms clock,`)

// ParseGo reads GODEBUG=gctrace=1 output. Every trace line counts as one
// collection and contributes its two stop-the-world pauses to Pauses, in
// that order; any other line is ignored.
func ParseGo(b []byte) Stats {
	var s Stats
	lines(b, func(line []byte) {
		m := goLine.FindSubmatch(line)
		if m == nil {
			return
		}
		sweepTerm, ok1 := parseMillis(m[1])
		markTerm, ok2 := parseMillis(m[2])
		if !ok1 || !ok2 {
			return
		}
		s.Count++
		s.addPause(sweepTerm)
		s.addPause(markTerm)
	})
	return s
}
