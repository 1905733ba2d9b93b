package decide

import "strings"

// A ReasonKind says what kind of reason a decision has, as data: a
// reader of decisions switches on it, never on the reason's words.
type ReasonKind int

const (
	// ReasonOther is any other reason: a decided interval, no value on a
	// side, an impossible value, a zero mean.
	ReasonOther ReasonKind = iota
	// ReasonNotSteady: no start of a side had a steady kept window.
	ReasonNotSteady
	// ReasonFewStarts: too few starts on a side for an interval.
	ReasonFewStarts
	// ReasonStraddles: the interval straddles the margin (more starts may
	// decide it: Decision.MoreStarts).
	ReasonStraddles
	// ReasonImpossible: a side has a value that cannot be (NaN, infinite
	// or negative): no ratio either.
	ReasonImpossible
	// ReasonUnfair: a side has an unfair cell, so the comparison itself
	// is in doubt (set by Compare and Unfair, which know the cells).
	ReasonUnfair
	// ReasonOneStart: one start on a side, so the interval holds no noise
	// between starts and nothing is decided whatever it is.
	ReasonOneStart
)

// reasonLeads are the words each kind's reason begins with ("straddles"
// follows the interval): the reason column of the comparisons table is
// text, and ReasonKindOf reads its kind back from them.
var reasonLeads = []struct {
	kind  ReasonKind
	words string
}{
	{ReasonUnfair, "unfair"}, {ReasonOneStart, "one start on a side"}, {ReasonNotSteady, "not steady"}, {ReasonFewStarts, "fewer than"}, {ReasonImpossible, "the "},
}

// ReasonKindOf is the kind of a reason as Between (and Compare) write
// it: how a decision read back from the comparisons table, whose
// reason column is text, gets its kind again.
func ReasonKindOf(reason string) ReasonKind {
	for _, l := range reasonLeads {
		if strings.HasPrefix(reason, l.words) {
			return l.kind
		}
	}
	if strings.Contains(reason, " straddles the margin") {
		return ReasonStraddles
	}
	return ReasonOther
}
