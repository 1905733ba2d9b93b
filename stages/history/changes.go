package history

import (
	"math"
	"slices"

	"yardstick/decide"
	"yardstick/stats/changepoint"
)

// DefaultMinSize is the fewest runs between two changepoints of a
// series, and before the first and after the last: three runs a side is
// what a decision needs of starts without their own uncertainty
// (decide.MinStarts).
const DefaultMinSize = decide.MinStarts

// MaxSide is the most runs on each side of a change that its decision
// compares: the nearest ones. A level held for hundreds of runs is known
// well enough from its last 30.
const MaxSide = 30

// A Change is a changepoint of a series: the level of the runs from At
// on differs from the level of the runs before it.
type Change struct {
	// At indexes the series' Points: the first point of the new level.
	At int
	// Run is that point's run id, and Marks its marks (what changed at
	// that run): a change at a marked run may be the environment's.
	Run   string
	Marks []string
	// Before and After are the runs on each side of the change that its
	// decision compares: the segment before and the segment after, at
	// most MaxSide runs of each, the nearest the change.
	Before, After int
	// Decision compares the runs after the change with the runs before,
	// each run a start weighted by its own interval: its ratio (after /
	// before), interval and outcome against the margin.
	Decision decide.Decision
}

// findChanges runs the changepoint search on the log of the series'
// means (a change in ratio is a change in level of the logs) and decides
// each change: the runs of the segment after against the runs of the
// segment before, each run one start whose within-start half-width is
// its own interval (decide.Between's two levels: between runs,
// and within each run as well as its interval knows it).
func (s *Series) findChanges(runs []*Run, minSize int) error {
	s.Changes = nil
	if minSize <= 0 {
		minSize = DefaultMinSize
	}
	pts := slices.DeleteFunc(slices.Clone(s.Points), func(p Point) bool { return !(p.Mean > 0) })
	x := make([]float64, len(pts))
	for i, p := range pts {
		x[i] = math.Log(p.Mean)
	}
	cps, err := changepoint.Detect(x, changepoint.Config{MinSize: minSize})
	if err != nil {
		return err
	}
	bounds := append(append([]int{0}, cps...), len(pts))
	for i, c := range cps {
		// the runs nearest the change, at most MaxSide a side
		before, after := pts[max(bounds[i], c-MaxSide):c], pts[c:min(bounds[i+2], c+MaxSide)]
		at := slices.IndexFunc(s.Points, func(p Point) bool { return p.Run == pts[c].Run })
		r := runs[pts[c].Run]
		ch := Change{At: at, Run: r.ID, Marks: r.Marks, Before: len(before), After: len(after)}
		// The search put the change where the runs differ most, so an
		// interval around it is optimistic: a change is claimed only
		// where its whole interval lies beyond the margin.
		ch.Decision = decide.Between(startsOf(before), startsOf(after), decide.Options{
			Margin: s.Margin, LowerIsBetter: s.LowerIsBetter, BeyondMargin: true})
		s.Changes = append(s.Changes, ch)
	}
	return nil
}

// startsOf makes each run's figure one start of a decision.
func startsOf(pts []Point) []decide.Start {
	out := make([]decide.Start, len(pts))
	for i, p := range pts {
		out[i] = decide.Start{Value: p.Mean, HalfWidth: p.HalfWidth}
	}
	return out
}
