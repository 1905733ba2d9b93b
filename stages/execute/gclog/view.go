package gclog

import (
	"regexp"
	"strconv"
)

// A View is what a runtime's GC log says of the resources it sized itself
// for: its processor count, the memory it saw and its maximum heap; -1
// where the log says nothing.
type View struct {
	Processors   int
	MemoryBytes  int64
	HeapMaxBytes int64
}

// JVM -Xlog:gc+init lines (JDK 17 and later), as printed by
// GCInitLogger: "CPUs: 2 total, 1 available", "Memory: 512M", "Heap Max
// Capacity: 128M"; sizes in the unit HotSpot picks (B, K, M, G).
var (
	jvmCPUs    = regexp.MustCompile(`^CPUs: \d+ total, (\d+) available`)
	jvmMemory  = regexp.MustCompile(`^Memory: (\d+)([BKMG])\b`)
	jvmHeapMax = regexp.MustCompile(`^Heap Max Capacity: (\d+)([BKMG])\b`)
)

// goProcs is the P count that ends a gctrace line: "..., 0 MB globals, 2 P".
var goProcs = regexp.MustCompile(`MB globals, (\d+) P\b`)

// ViewJVM reads the JVM's view from its gc,init lines; the last of each
// counts.
func ViewJVM(b []byte) View {
	v := View{Processors: -1, MemoryBytes: -1, HeapMaxBytes: -1}
	lines(b, func(line []byte) {
		tags, line, _ := splitDecorations(line)
		if tags != "gc,init" {
			return
		}
		if m := jvmCPUs.FindSubmatch(line); m != nil {
			if n, err := strconv.Atoi(string(m[1])); err == nil {
				v.Processors = n
			}
		}
		if m := jvmMemory.FindSubmatch(line); m != nil {
			v.MemoryBytes = hotspotSize(m[1], m[2])
		}
		if m := jvmHeapMax.FindSubmatch(line); m != nil {
			v.HeapMaxBytes = hotspotSize(m[1], m[2])
		}
	})
	return v
}

// ViewGo reads GOMAXPROCS from the last gctrace line of b (Go does not
// log the memory it saw: MemoryBytes and HeapMaxBytes are -1).
func ViewGo(b []byte) View {
	v := View{Processors: -1, MemoryBytes: -1, HeapMaxBytes: -1}
	lines(b, func(line []byte) {
		if !goLine.Match(line) {
			return
		}
		if m := goProcs.FindSubmatch(line); m != nil {
			if n, err := strconv.Atoi(string(m[1])); err == nil {
				v.Processors = n
			}
		}
	})
	return v
}

// hotspotSize is n units in bytes; -1 when it does not fit an int64.
func hotspotSize(n, unit []byte) int64 {
	v, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return -1
	}
	shift := map[byte]uint{'B': 0, 'K': 10, 'M': 20, 'G': 30}[unit[0]]
	if v > (1<<62)>>shift {
		return -1
	}
	return v << shift
}
