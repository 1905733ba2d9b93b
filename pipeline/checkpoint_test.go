package pipeline

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A version 1 checkpoint (per-second rows, before 100 ms intervals) reads
// back as intervals of a second, without a steady-state analysis, so the
// datasets and reports of old runs can be rebuilt.
func TestReadCheckpointV1(t *testing.T) {
	d := &RunDir{Root: t.TempDir()}
	const id = "0123456789ab"
	v1 := `{"version":1,"cell_id":"0123456789ab","cell_name":"main/go/c8/r1","status":"ok",
"started":"2026-11-01T10:00:00Z","ended":"2026-11-01T10:00:09Z",
"window":{"warmup_ns":2000000000,"measure_ns":5000000000,"discard_head_ns":1000000000,"load_start":"2026-11-01T10:00:01Z","kept_start":"2026-11-01T10:00:04Z","kept_end":"2026-11-01T10:00:08Z"},
"seconds":[{"second":0,"in_window":false,"requests":900,"errors":0,"p50_us":800,"p99_us":4000,"max_us":9000,"rss_bytes":0,"cpu_s":0},
{"second":3,"in_window":true,"requests":1200,"errors":1,"p50_us":700,"p99_us":3000,"max_us":5000,"rss_bytes":13000000,"cpu_s":0.9}]}`
	if err := os.MkdirAll(d.CellDir(id), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.CellDir(id), "checkpoint.json"), []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	cp, err := d.ReadCheckpoint(id)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Version != CheckpointVersion || cp.Steady != nil || cp.Window.Interval != time.Second || cp.Window.Warmup != 2*time.Second {
		t.Errorf("migrated checkpoint: version %d, steady %v, window %+v", cp.Version, cp.Steady, cp.Window)
	}
	want := []Interval{
		{Index: 0, StartUS: 0, DurationUS: 1e6, Requests: 900, P50US: 800, P99US: 4000, MaxUS: 9000},
		{Index: 3, StartUS: 3e6, DurationUS: 1e6, InWindow: true, Requests: 1200, Errors: 1, P50US: 700, P99US: 3000, MaxUS: 5000,
			Sampled: true, RSSBytes: 13000000, CPUSeconds: 0.9},
	}
	if len(cp.Intervals) != len(want) {
		t.Fatalf("intervals: %+v", cp.Intervals)
	}
	for i := range want {
		if cp.Intervals[i] != want[i] {
			t.Errorf("interval %d: %+v, want %+v", i, cp.Intervals[i], want[i])
		}
	}
	// Any other old version is refused.
	v0 := []byte(`{"version":0,"cell_id":"0123456789ab","status":"ok"}`)
	if err := os.WriteFile(filepath.Join(d.CellDir(id), "checkpoint.json"), v0, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadCheckpoint(id); err == nil {
		t.Error("a version 0 checkpoint was read")
	}
}
