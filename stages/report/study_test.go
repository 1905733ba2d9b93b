package report

import "testing"

// crossings says where the throughput leader changes along concurrency,
// across ties and unmeasured points, and says so when it never changes.
func TestCrossings(t *testing.T) {
	pts := func(cs ...int64) []Point {
		var out []Point
		for _, c := range cs {
			out = append(out, Point{Payload: 7, Mode: "closed", Concurrency: c})
		}
		return out
	}
	for _, tc := range []struct {
		leaders []string
		want    string
	}{
		{[]string{"go", "go", "helidon-aot", "helidon-aot"},
			"go leads at c1 to c4; helidon-aot leads at c16 to c64; the curves cross between c4 and c16"},
		{[]string{"go", "tie", "helidon-jit", "helidon-jit"},
			"go leads at c1; tied at c4; helidon-jit leads at c16 to c64; the curves cross between c1 and c16"},
		{[]string{"go", "tie", "go", "go"},
			"go leads at c1; tied at c4; go leads at c16 to c64 (the curves do not cross in this range)"},
		{[]string{"tie", "tie", "tie", "tie"},
			"tied at c1 to c64 (the curves do not cross in this range)"},
		{[]string{"go", "", "helidon-jit", "go"},
			"go leads at c1; not measured at c4; helidon-jit leads at c16; the curves cross between c1 and c16; go leads at c64; the curves cross between c16 and c64"},
	} {
		if got := crossings(pts(1, 4, 16, 64), tc.leaders); got != tc.want {
			t.Errorf("crossings(%q)\n got %q\nwant %q", tc.leaders, got, tc.want)
		}
	}
}

// overall folds per-point winners: one winner everywhere, all ties, or
// split.
func TestOverall(t *testing.T) {
	for _, tc := range []struct {
		per  []string
		want string
	}{
		{[]string{"go", "go"}, "go"},
		{[]string{"tie", "tie"}, "tie"},
		{[]string{"go", "tie"}, "split"},
		{[]string{"go", "scg-g1"}, "split"},
		{[]string{"", ""}, "not measured"},
		{[]string{"", "go"}, "go"},
	} {
		if got := overall(tc.per); got != tc.want {
			t.Errorf("overall(%q) = %q, want %q", tc.per, got, tc.want)
		}
	}
}
