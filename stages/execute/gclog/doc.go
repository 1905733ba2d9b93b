// Package gclog reads garbage-collection statistics from the part of a GC log
// that was written during a measurement window.
//
// The executor records the byte size of a growing log file when the measure
// window opens and when it closes; [Window] (or [ReadWindow], which does the
// I/O) cuts that byte range on line boundaries, and [ParseGo] or [ParseJVM]
// turns the lines into [Stats]. Statistics therefore come from the window
// only, never from warm-up (docs/methodology.md#gc-window).
//
// Two log formats are understood:
//
//   - Go's GODEBUG=gctrace=1 lines on stderr ("gc 12 @3.456s 2%: ..."), mixed
//     with whatever else the program writes there, which is ignored. Each
//     line is one collection with two stop-the-world pauses: the first and the
//     third "clock" term (sweep termination and mark termination).
//   - JDK unified logging written with -Xlog:gc*:file=PATH (JDK 17 and later),
//     for G1, Parallel, Serial, Shenandoah and ZGC. A pause is a line tagged
//     [gc] (or [gc,phases], where ZGC reports its pauses) whose message is
//     "GC(n) Pause ... <duration>ms"; the collection count is the number of
//     distinct GC(n) ids in the window.
//
// [ViewJVM] and [ViewGo] read what the runtime saw of its resources, for
// the container_view check: the JVM's gc,init lines (processors, memory,
// maximum heap) and the P count of a gctrace line (GOMAXPROCS).
//
// The parsers never fail and never panic: lines they do not recognise are
// skipped, so a window that starts or ends in the middle of a collection
// still gives the pauses that lie inside it.
package gclog
