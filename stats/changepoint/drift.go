package changepoint

import (
	"fmt"
	"math"
)

// DriftWords says a relative change from a first level to a second
// (Window.Change: +0.3 is a 30% rise) as the ratio of the two, the way a
// reader compares levels: "x1.30 higher", "x2.50 lower" (a change of
// -0.6, the second level 0.4 of the first), "x1.00" within half a
// percent. A change of -1 or below (a second level at or past zero) is
// "down to 0" or said in percent, which a ratio cannot say; so is one
// that is not finite.
func DriftWords(change float64) string {
	ratio := 1 + change
	switch {
	case math.IsNaN(change) || math.IsInf(change, 0):
		return fmt.Sprintf("%+.0f%%", 100*change)
	case ratio == 0:
		return "down to 0"
	case ratio < 0:
		return fmt.Sprintf("%+.1f%% (past 0)", 100*change)
	case math.Abs(change) < 0.005:
		return "x1.00"
	case ratio >= 1:
		return fmt.Sprintf("x%.2f higher", ratio)
	}
	return fmt.Sprintf("x%.2f lower", 1/ratio)
}
