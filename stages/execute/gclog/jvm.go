package gclog

import (
	"bytes"
	"strconv"
	"time"
)

// ParseJVM reads JDK unified GC logging (-Xlog:gc*), JDK 17 and later, for
// all of HotSpot's collectors. Lines look like
//
//	[0.512s][info][gc] GC(3) Pause Young (Normal) (G1 Evacuation Pause) 25M->4M(256M) 2.345ms
//	[0.433s][info][gc,phases   ] GC(3) Pause Mark Start 0.007ms
//
// Count is the number of distinct GC(n) ids on any line. A pause is a line
// whose message is "GC(n) Pause ... <number>ms" and whose tag set is exactly
// "gc" (G1, Parallel, Serial, Shenandoah) or "gc,phases" (ZGC, which reports
// its three pauses there and none on its [gc] summary line). This leaves out
// the matching [gc,start] lines (no duration), G1's sub-phase lines such as
// "Pre Evacuate Collection Set: 0.1ms", and Shenandoah's end-of-run
// [gc,stats] table ("Pause Init Mark (G)   60 us"). A generational ZGC
// prefix ("Y: Pause Mark Start ...", JDK 21) is accepted. Decorators other
// than the default [uptime][level][tags] are fine as long as the tags come
// last, as HotSpot always prints them; with decorators turned off entirely
// the tag check is skipped.
func ParseJVM(b []byte) Stats {
	var s Stats
	ids := map[int64]struct{}{}
	lines(b, func(line []byte) {
		tags, msg, decorated := splitDecorations(line)
		id, rest, ok := gcID(msg)
		if !ok {
			return
		}
		ids[id] = struct{}{}
		if decorated && tags != "gc" && tags != "gc,phases" {
			return
		}
		if d, ok := pause(rest); ok {
			s.addPause(d)
		}
	})
	s.Count = len(ids)
	return s
}

// splitDecorations splits "[0.5s][info][gc,phases   ] msg" into the tag
// set of the last bracket ("gc,phases") and the message ("msg").
func splitDecorations(line []byte) (tags string, msg []byte, decorated bool) {
	var last []byte
	for len(line) > 0 && line[0] == '[' {
		i := bytes.IndexByte(line, ']')
		if i < 0 {
			break
		}
		last, line = line[1:i], line[i+1:]
		decorated = true
	}
	return string(bytes.TrimSpace(last)), bytes.TrimLeft(line, " "), decorated
}

// gcID reads "GC(12) rest" into 12 and "rest".
func gcID(msg []byte) (int64, []byte, bool) {
	rest, ok := bytes.CutPrefix(msg, []byte("GC("))
	if !ok {
		return 0, nil, false
	}
	num, rest, ok := bytes.Cut(rest, []byte(")"))
	if !ok || len(num) == 0 || len(num) > 18 {
		return 0, nil, false
	}
	id, err := strconv.ParseInt(string(num), 10, 64)
	if err != nil || id < 0 {
		return 0, nil, false
	}
	return id, bytes.TrimLeft(rest, " "), true
}

// pause reads "Pause Young (Normal) (G1 Evacuation Pause) 25M->4M(256M)
// 2.345ms" into its final duration.
func pause(rest []byte) (d time.Duration, ok bool) {
	// Generational ZGC: "Y: Pause Mark Start (Major) 0.011ms".
	if len(rest) > 3 && rest[1] == ':' && rest[2] == ' ' {
		rest = rest[3:]
	}
	if !bytes.HasPrefix(rest, []byte("Pause ")) {
		return 0, false
	}
	rest = bytes.TrimRight(rest, " ")
	i := bytes.LastIndexByte(rest, ' ')
	num, ok := bytes.CutSuffix(rest[i+1:], []byte("ms"))
	if !ok {
		return 0, false
	}
	return parseMillis(num)
}
