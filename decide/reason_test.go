package decide

import (
	"math"
	"testing"
)

// TestReasonKinds: every kind of reason Decide gives is set as data, and
// reads back from its words alone (a comparisons row's reason column)
// as the same kind.
func TestReasonKinds(t *testing.T) {
	st := func(hw float64, vs ...float64) []Start {
		var out []Start
		for _, v := range vs {
			out = append(out, Start{Value: v, HalfWidth: hw})
		}
		return out
	}
	never := func(s []Start) []Start {
		for i := range s {
			s[i].NeverSteady = true
		}
		return s
	}
	for _, tc := range []struct {
		name       string
		base, cand []Start
		o          Options
		want       ReasonKind
	}{
		{"no value", nil, st(0.01, 100, 101, 99), Options{Margin: 0.05}, ReasonOther},
		{"impossible", st(0.01, 100, -1, 99), st(0.01, 100, 101, 99), Options{Margin: 0.05}, ReasonImpossible},
		{"few starts, no within", st(math.NaN(), 100, 101), st(math.NaN(), 100, 101), Options{Margin: 0.05}, ReasonFewStarts},
		{"few starts, resolution only", st(0.01, 100, 101), st(0.01, 100, 101), Options{Margin: 0.05, MinStarts: 3}, ReasonFewStarts},
		{"not steady", never(st(0.01, 100, 101, 99)), st(0.01, 100, 101, 99), Options{Margin: 0.05}, ReasonNotSteady},
		{"straddles", st(0.2, 100, 130, 80), st(0.2, 105, 140, 85), Options{Margin: 0.05}, ReasonStraddles},
		{"straddles, a start left out", append(st(0.2, 100, 130, 80), Start{Value: 1, HalfWidth: 0.01, NeverSteady: true}), st(0.2, 105, 140, 85), Options{Margin: 0.05}, ReasonStraddles},
		{"one start, beyond the margin", st(0.01, 100), st(0.01, 130), Options{Margin: 0.05}, ReasonOneStart},
		{"one start, straddles", st(0.2, 100), st(0.2, 103), Options{Margin: 0.05}, ReasonOneStart},
		{"better", st(0.01, 100, 101, 99), st(0.01, 200, 201, 199), Options{Margin: 0.05}, ReasonOther},
		{"zero", st(0.01, 0, 0, 0), st(0.01, 0, 0, 0), Options{Margin: 0.05}, ReasonOther},
	} {
		d := Between(tc.base, tc.cand, tc.o)
		if d.Kind != tc.want {
			t.Errorf("%s: kind %d, want %d (%s: %s)", tc.name, d.Kind, tc.want, d.Verdict, d.Reason)
		}
		if got := ReasonKindOf(d.Reason); got != d.Kind {
			t.Errorf("%s: %q reads back as kind %d, not %d", tc.name, d.Reason, got, d.Kind)
		}
	}
	if ReasonKindOf("unfair (cpu_set): 1.000x [0.9, 1.1] straddles the margin ±5.0%") != ReasonUnfair {
		t.Error("an unfair row's reason does not read back as unfair")
	}
}
