package gclog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sum(ds []time.Duration) time.Duration {
	var s time.Duration
	for _, d := range ds {
		s += d
	}
	return s
}

// The figures come from grep and awk over the fixtures, not from this
// package; the commands are in testdata/README.md. first and last are the
// first and last pause, read off the files with the same grep.
func TestParseFixtures(t *testing.T) {
	ms := func(f float64) time.Duration { return time.Duration(f * 1e6) }
	tests := []struct {
		file        string
		parse       func([]byte) Stats
		count, n    int
		total, max  time.Duration
		first, last time.Duration
	}{
		{"jdk17-g1.log", ParseJVM, 20, 24, 68515000, 11474000, ms(3.656), ms(1.733)},
		{"jdk17-parallel.log", ParseJVM, 6, 6, 60427000, 15156000, ms(15.156), ms(7.399)},
		{"jdk17-serial.log", ParseJVM, 7, 7, 67153000, 22082000, ms(22.082), ms(6.551)},
		{"jdk17-shenandoah.log", ParseJVM, 7, 25, 485000, 52000, 32000, 5000},
		{"jdk17-z.log", ParseJVM, 7, 21, 236000, 28000, 8000, 7000},
		// Go: first line 0.042+0.26+0.058, last 0.026+0.17+0.002.
		{"go1.26-gctrace.log", ParseGo, 29, 58, 3821000, 310000, 42000, 2000},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := tt.parse(readFixture(t, tt.file))
			if s.Count != tt.count || len(s.Pauses) != tt.n || s.PauseTotal != tt.total || s.PauseMax != tt.max {
				t.Errorf("got count %d, %d pauses, total %d, max %d; want %d, %d, %d, %d",
					s.Count, len(s.Pauses), s.PauseTotal, s.PauseMax, tt.count, tt.n, tt.total, tt.max)
			}
			if len(s.Pauses) > 0 && (s.Pauses[0] != tt.first || s.Pauses[len(s.Pauses)-1] != tt.last) {
				t.Errorf("first/last pause %v/%v, want %v/%v", s.Pauses[0], s.Pauses[len(s.Pauses)-1], tt.first, tt.last)
			}
			if sum(s.Pauses) != s.PauseTotal {
				t.Errorf("PauseTotal %v is not the sum of Pauses %v", s.PauseTotal, sum(s.Pauses))
			}
		})
	}
}

func TestParseGoLines(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		count  int
		pauses []time.Duration
	}{
		{"plain", "gc 12 @3.456s 2%: 0.018+1.2+0.021 ms clock, 0.036+0.5/1.1/0+0.042 ms cpu, 4->4->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\n",
			1, []time.Duration{18000, 21000}},
		{"forced", "gc 15 @0.487s 0%: 0.095+0.039+0.002 ms clock, 0.19+0/0.075/0.017+0.005 ms cpu, 0->0->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P (forced)\n",
			1, []time.Duration{95000, 2000}},
		// fmtNSAsMS prints whole milliseconds from 10 ms up, and "0" under 1 us.
		{"whole ms and zero", "gc 3 @10.000s 9%: 12+300+0 ms clock, 24+1/2/3+0 ms cpu, 400->410->200 MB, 420 MB goal, 1 MB stacks, 0 MB globals, 8 P\n",
			1, []time.Duration{12 * time.Millisecond, 0}},
		{"goroutine leak note", "gc 4 @1.000s 1% (checking for goroutine leaks): 0.5+1+0.25 ms clock, 1+0/1/0+0.5 ms cpu, 4->4->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\n",
			1, []time.Duration{500000, 250000}},
		{"interleaved with program output", "listening on :8080gc 7 @1.2s 3%: 0.010+0.5+0.020 ms clock, 0.02+0/0/0+0.04 ms cpu, 4->4->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\r\n",
			1, []time.Duration{10000, 20000}},
		{"foreign lines", "panic: nothing\ngc is fun\ngc 1 @0.1s: no\ngc 2 @0.1s 1%: a+b+c ms clock,\n", 0, nil},
		{"scavenger lines are not GCs", "scvg: 0 MB released\nscvg: inuse: 4, idle: 3, sys: 8, released: 0, consumed: 8 (MB)\n", 0, nil},
		{"no final newline", "gc 1 @0.013s 3%: 0.097+1.2+0.037 ms clock, 0.19+0.52/0.52/0+0.075 ms cpu, 3->3->1 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P",
			1, []time.Duration{97000, 37000}},
		{"empty", "", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ParseGo([]byte(tt.in))
			if s.Count != tt.count || !slices.Equal(s.Pauses, tt.pauses) {
				t.Errorf("got count %d pauses %v, want %d %v", s.Count, s.Pauses, tt.count, tt.pauses)
			}
		})
	}
}

func TestParseJVMLines(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		count  int
		pauses []time.Duration
	}{
		{"g1 young", "[0.512s][info][gc] GC(3) Pause Young (Normal) (G1 Evacuation Pause) 25M->4M(256M) 2.345ms\n",
			1, []time.Duration{2345000}},
		{"start line has no duration", "[0.465s][info][gc,start    ] GC(5) Pause Young (Concurrent Start) (G1 Evacuation Pause)\n",
			1, nil},
		{"g1 sub-phases are not pauses", "[0.472s][info][gc,phases   ] GC(5)   Pre Evacuate Collection Set: 0.0ms\n[0.472s][info][gc,phases   ] GC(5)   Evacuate Collection Set: 2.1ms\n",
			1, nil},
		{"zgc pauses are under gc,phases", "[0.433s][info][gc,phases   ] GC(3) Pause Mark Start 0.007ms\n[0.435s][info][gc,phases   ] GC(3) Concurrent Mark 1.959ms\n[0.435s][info][gc,phases   ] GC(3) Pause Mark End 0.008ms\n[0.436s][info][gc,phases   ] GC(3) Pause Relocate Start 0.005ms\n[0.436s][info][gc          ] GC(3) Garbage Collection (Allocation Rate) 42M(66%)->24M(38%)\n",
			1, []time.Duration{7000, 8000, 5000}},
		{"generational zgc prefix", "[1.0s][info][gc,phases] GC(4) Y: Pause Mark Start (Major) 0.011ms\n", 1, []time.Duration{11000}},
		{"shenandoah", "[0.1s][info][gc] GC(0) Pause Init Mark (unload classes) 0.123ms\n[0.2s][info][gc] GC(0) Concurrent marking 1M->1M(64M) 1.000ms\n[0.2s][info][gc] GC(1) Pause Degenerated GC (Mark) 61M->30M(64M) 12.500ms\n",
			2, []time.Duration{123000, 12500000}},
		{"shenandoah stats table", "[1.1s][info][gc,stats    ] Pause Init Mark (G)                  60 us\n[1.1s][info][gc,stats    ] Pause Init Mark (G)            =    0.002 s (a =      130 us) (n =    12)\n",
			0, nil},
		{"other tags with Pause are ignored", "[1.0s][info][gc,cpu] GC(9) Pause Fake 1.000ms\n", 1, nil},
		{"more decorators, tags last", "[2026-05-01T10:00:00.000+0000][0.512s][1234][5678][info][gc] GC(3) Pause Full (System.gc()) 25M->4M(256M) 1234.500ms\n",
			1, []time.Duration{1234500000}},
		{"no decorators", "GC(3) Pause Young (Allocation Failure) 25M->4M(256M) 2.000ms\r\n", 1, []time.Duration{2000000}},
		{"distinct ids", "[0.1s][info][gc,start] GC(1) Pause Young\n[0.1s][info][gc] GC(1) Pause Young 1M->1M(2M) 1.000ms\n[0.2s][info][gc,heap] GC(2) Eden\n[0.2s][info][gc,heap] GC(2) Old\n",
			2, []time.Duration{1000000}},
		{"garbage", "[[[\n]]]\n[0.1s][info][gc] GC(x) Pause 1ms\n[0.1s][info][gc] GC(-1) Pause Young 1ms\n[0.1s][info][gc] GC(1) Pause Young -1ms\n[0.1s][info][gc] GC(2) Pause Young 1.ms\n",
			2, nil},
		{"empty", "", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ParseJVM([]byte(tt.in))
			if s.Count != tt.count || !slices.Equal(s.Pauses, tt.pauses) {
				t.Errorf("got count %d pauses %v, want %d %v", s.Count, s.Pauses, tt.count, tt.pauses)
			}
		})
	}
}

func TestWindow(t *testing.T) {
	b := []byte("aaa\nbbb\nccc\nddd")
	tests := []struct {
		start, end int64
		want       string
	}{
		{0, 16, "aaa\nbbb\nccc\n"}, // partial last line (no newline yet) dropped
		{0, 4, "aaa\n"},
		{0, 3, ""},             // "aaa" not finished by end
		{4, 12, "bbb\nccc\n"},  // start at a line start
		{5, 12, "ccc\n"},       // start inside "bbb": dropped
		{3, 12, "bbb\nccc\n"},  // start on the newline of "aaa": "aaa" is cut, its newline alone is no line
		{5, 10, ""},            // only partial lines
		{-10, 8, "aaa\nbbb\n"}, // clamped
		{8, 1 << 40, "ccc\n"},  // clamped
		{12, 4, ""},            // end before start
		{100, 200, ""},         // past the end
		{16, 16, ""},
	}
	for _, tt := range tests {
		if got := string(Window(b, tt.start, tt.end)); got != tt.want {
			t.Errorf("Window(%d, %d) = %q, want %q", tt.start, tt.end, got, tt.want)
		}
	}
	if got := Window(nil, 0, 10); len(got) != 0 {
		t.Errorf("Window(nil) = %q", got)
	}
}

// lineOffset is the byte offset of the first line of b that contains s.
func lineOffset(t *testing.T, b []byte, s string) int64 {
	t.Helper()
	i := bytes.Index(b, []byte(s))
	if i < 0 {
		t.Fatalf("%q not in fixture", s)
	}
	return int64(bytes.LastIndexByte(b[:i], '\n') + 1)
}

// TestWindowOnlyCountsInside slices the G1 fixture with offsets that fall
// one byte into line 95 (the first GC(5) line) and one byte into line 216
// (the first GC(12) line), as an executor's offsets may, so the window holds
// lines 96-215. Expected figures from the README's grep and awk over
//
//	sed -n 96,215p jdk17-g1.log    window: GC(5) .. GC(11)
//	sed -n 1,94p jdk17-g1.log      before: GC(0) .. GC(4)
//	sed -n '217,$p' jdk17-g1.log   after:  GC(12) .. GC(19)
func TestWindowOnlyCountsInside(t *testing.T) {
	b := readFixture(t, "jdk17-g1.log")
	start := lineOffset(t, b, "GC(5)") + 1
	end := lineOffset(t, b, "GC(12)") + 1

	win := ParseJVM(Window(b, start, end))
	before := ParseJVM(Window(b, 0, start))
	after := ParseJVM(Window(b, end, int64(len(b))))
	all := ParseJVM(b)

	check := func(name string, s Stats, count, n int, total, max time.Duration) {
		t.Helper()
		if s.Count != count || len(s.Pauses) != n || s.PauseTotal != total || s.PauseMax != max {
			t.Errorf("%s: count %d, %d pauses, total %d, max %d; want %d, %d, %d, %d",
				name, s.Count, len(s.Pauses), s.PauseTotal, s.PauseMax, count, n, total, max)
		}
	}
	check("window", win, 7, 9, 14897000, 6253000)
	check("before", before, 5, 5, 36193000, 11474000)
	check("after", after, 8, 10, 17425000, 5099000)
	check("whole", all, 20, 24, 68515000, 11474000)
	// The two cut lines hold no pause and no id of their own, so the three
	// parts add up to the whole log: nothing counted twice, nothing lost.
	if before.Count+win.Count+after.Count != all.Count ||
		before.PauseTotal+win.PauseTotal+after.PauseTotal != all.PauseTotal {
		t.Errorf("parts do not add up to the whole log")
	}
}

// TestWindowGo slices the gctrace fixture one byte into the "gc 10" and
// "gc 20" lines: gc 11 .. gc 19 remain, with program output between them.
// Figures: sed -n 13,22p go1.26-gctrace.log, then the README's awk.
func TestWindowGo(t *testing.T) {
	b := readFixture(t, "go1.26-gctrace.log")
	w := Window(b, lineOffset(t, b, "gc 10 @")+1, lineOffset(t, b, "gc 20 @")+1)
	s := ParseGo(w)
	if s.Count != 9 || len(s.Pauses) != 18 || s.PauseTotal != 1068000 || s.PauseMax != 160000 {
		t.Errorf("got count %d, %d pauses, total %d, max %d; want 9, 18, 1068000, 160000",
			s.Count, len(s.Pauses), s.PauseTotal, s.PauseMax)
	}
	if !strings.HasPrefix(string(w), "gc 11 @") {
		t.Errorf("window starts with %.20q", w)
	}
}

func TestReadWindow(t *testing.T) {
	path := filepath.Join("testdata", "jdk17-g1.log")
	b := readFixture(t, path[len("testdata/"):])
	start := lineOffset(t, b, "GC(5)") + 1
	end := lineOffset(t, b, "GC(10)") + 1
	for _, r := range [][2]int64{{start, end}, {0, end}, {start, 1 << 40}, {-5, 3}, {int64(len(b)), int64(len(b)) + 10}} {
		got, err := ReadWindow(path, r[0], r[1])
		if err != nil {
			t.Fatal(err)
		}
		if want := Window(b, r[0], r[1]); !bytes.Equal(got, want) {
			t.Errorf("ReadWindow(%d, %d) differs from Window: %d vs %d bytes", r[0], r[1], len(got), len(want))
		}
	}
	if _, err := ReadWindow(filepath.Join(t.TempDir(), "missing.log"), 0, 10); err == nil {
		t.Error("ReadWindow of a missing file: no error")
	}
}

func TestStatsJSON(t *testing.T) {
	s := ParseGo([]byte("gc 1 @0.013s 3%: 0.097+1.2+0.037 ms clock, 0.19+0.52/0.52/0+0.075 ms cpu, 3->3->1 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P\n"))
	got, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"count":1,"pause_total_ns":134000,"pause_max_ns":97000,"pauses_ns":[97000,37000]}`
	if string(got) != want {
		t.Errorf("JSON %s, want %s", got, want)
	}
}

func FuzzParseGo(f *testing.F) {
	f.Add(readFixture(f, "go1.26-gctrace.log"))
	f.Add([]byte("gc 1 @0.1s 1% (x): 99999999999+1+0.0000000001 ms clock,\n"))
	f.Add([]byte("gc 1 @0.1s 1%: 1.+1+1 ms clock,"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := ParseGo(b)
		checkStats(t, s)
		if s.Count*2 != len(s.Pauses) {
			t.Errorf("%d collections but %d pauses", s.Count, len(s.Pauses))
		}
		w := Window(b, int64(len(b)/3), int64(len(b)*2/3))
		checkStats(t, ParseGo(w))
	})
}

func FuzzParseJVM(f *testing.F) {
	for _, name := range []string{"jdk17-z.log", "jdk17-serial.log"} {
		f.Add(readFixture(f, name))
	}
	f.Add([]byte("[0.1s][info][gc] GC(1) Pause Young 1M->1M(2M) 1.000ms\n[x"))
	f.Add([]byte("[gc,phases] GC(99999999999999999999) Y: Pause 1ms"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := ParseJVM(b)
		checkStats(t, s)
		w := Window(b, int64(len(b)/3), int64(len(b)*2/3))
		if len(w) > 0 && w[len(w)-1] != '\n' {
			t.Errorf("window %q does not end a line", w)
		}
		checkStats(t, ParseJVM(w))
	})
}

func checkStats(t *testing.T, s Stats) {
	t.Helper()
	if s.Count < 0 || s.PauseTotal < 0 || s.PauseMax < 0 {
		t.Errorf("negative figures: %+v", s)
	}
	if sum(s.Pauses) != s.PauseTotal || (len(s.Pauses) > 0 && slices.Max(s.Pauses) != s.PauseMax) {
		t.Errorf("inconsistent stats: %+v", s)
	}
}

func TestViews(t *testing.T) {
	jvm := []byte("[0.038s][info ][gc,init     ] CPUs: 2 total, 1 available\n" +
		"[0.038s][info ][gc,init     ] Memory: 512M\n" +
		"[0.039s][info][gc,init] Heap Max Capacity: 128M\n" +
		"Memory: 9G (not a gc,init line)\n")
	if got, want := ViewJVM(jvm), (View{Processors: 1, MemoryBytes: 512 << 20, HeapMaxBytes: 128 << 20}); got != want {
		t.Errorf("ViewJVM = %+v, want %+v", got, want)
	}
	if got := ViewJVM([]byte("[gc,init] Memory: 99999999999999999999G\n")); got.MemoryBytes != -1 || got.Processors != -1 {
		t.Errorf("ViewJVM of nothing usable = %+v, want -1s", got)
	}
	gor := []byte("gc 1 @0.010s 1%: 0.018+1.2+0.021 ms clock, 0.036+0.5/1.1/0+0.042 ms cpu, 4->4->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 4 P\n" +
		"serving\n" +
		"gc 2 @0.020s 1%: 0.018+1.2+0.021 ms clock, 0.036+0.5/1.1/0+0.042 ms cpu, 4->4->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P (forced)\n")
	if got := ViewGo(gor); got.Processors != 2 || got.MemoryBytes != -1 {
		t.Errorf("ViewGo = %+v, want 2 P", got)
	}
	if got := ViewGo([]byte("0 MB globals, 3 P\n")); got.Processors != -1 {
		t.Errorf("ViewGo took a line that is not a gctrace line: %+v", got)
	}
}
