package changepoint

import (
	"math"
	"testing"
)

func TestDriftWords(t *testing.T) {
	for _, tc := range []struct {
		change float64
		want   string
	}{
		{0.3, "x1.30 higher"}, {-0.6, "x2.50 lower"}, {-0.3686, "x1.58 lower"}, {0.002, "x1.00"},
		{-1, "down to 0"}, {-1.5, "-150.0% (past 0)"}, {math.Inf(1), "+Inf%"},
	} {
		if got := DriftWords(tc.change); got != tc.want {
			t.Errorf("DriftWords(%v) = %q, want %q", tc.change, got, tc.want)
		}
	}
}
