package report

import (
	"testing"

	"yardstick/stages/report/analysis"
)

// crossings says where the throughput leader changes along concurrency,
// across points without a leader (equivalent, undecided) and unmeasured ones, and says so when it never changes.
func TestCrossings(t *testing.T) {
	pts := func(cs ...int64) []analysis.Point {
		var out []analysis.Point
		for _, c := range cs {
			out = append(out, analysis.Point{Payload: 7, Mode: "closed", Concurrency: c})
		}
		return out
	}
	for _, tc := range []struct {
		leaders []string
		want    string
	}{
		{[]string{"go", "go", "helidon-aot", "helidon-aot"},
			"go leads at c1 to c4; helidon-aot leads at c16 to c64; the curves cross between c4 and c16"},
		{[]string{"go", "equivalent", "helidon-jit", "helidon-jit"},
			"go leads at c1; equivalent at c4; helidon-jit leads at c16 to c64; the curves cross between c1 and c16"},
		{[]string{"go", "undecided", "go", "go"},
			"go leads at c1; undecided at c4; go leads at c16 to c64 (the curves do not cross in this range)"},
		{[]string{"equivalent", "equivalent", "equivalent", "equivalent"},
			"equivalent at c1 to c64 (the curves do not cross in this range)"},
		{[]string{"go", "", "helidon-jit", "go"},
			"go leads at c1; not measured at c4; helidon-jit leads at c16; the curves cross between c1 and c16; go leads at c64; the curves cross between c16 and c64"},
	} {
		if got := crossings(pts(1, 4, 16, 64), tc.leaders); got != tc.want {
			t.Errorf("crossings(%q)\n got %q\nwant %q", tc.leaders, got, tc.want)
		}
	}
}
