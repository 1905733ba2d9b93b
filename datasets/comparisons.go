package datasets

import (
	"fmt"

	"yardstick/pipeline"
)

// A Comparison is one row of the comparisons table: a candidate variant
// against its batch's baseline at one workload point, on one metric, as
// a ratio with an interval and a verdict (better, worse, equivalent,
// undecided): one decision, as package decide takes it.
type Comparison struct {
	Batch     string
	Point     string
	Candidate string
	Baseline  string
	Metric    string
	Ratio     *float64
	CILow     *float64
	CIHigh    *float64
	Band      float64
	Verdict   string
	Reason    string
	// Repeats is the smaller of the two sides' process starts;
	// RepeatsBaseline and RepeatsCandidate are each side's.
	Repeats          int64
	RepeatsBaseline  int64
	RepeatsCandidate int64
	// WithinOnly: a side had one start, so the interval covers only the
	// noise within a start.
	WithinOnly bool
	// MoreRepeats estimates how many more starts per side would decide
	// an undecided comparison whose interval was too wide
	// (decide.MoreStartsWords says it in words); null otherwise.
	MoreRepeats *int64
	// Confidence is the level of the interval: 0.95, or more at a look
	// of adaptive repeats (decide.Sequential).
	Confidence float64
}

// Comparisons is the comparisons table: one row per batch, workload
// point, candidate variant and metric, in batch, point, candidate and
// metric order.
var Comparisons = newTable("comparisons",
	dictCol("batch", func(r *Comparison) *string { return &r.Batch }),
	dictCol("point", func(r *Comparison) *string { return &r.Point }),
	dictCol("candidate", func(r *Comparison) *string { return &r.Candidate }),
	dictCol("baseline", func(r *Comparison) *string { return &r.Baseline }),
	dictCol("metric", func(r *Comparison) *string { return &r.Metric }),
	optFloat64Col("ratio", func(r *Comparison) **float64 { return &r.Ratio }),
	optFloat64Col("ci_low", func(r *Comparison) **float64 { return &r.CILow }),
	optFloat64Col("ci_high", func(r *Comparison) **float64 { return &r.CIHigh }),
	float64Col("band", func(r *Comparison) *float64 { return &r.Band }),
	dictCol("verdict", func(r *Comparison) *string { return &r.Verdict }),
	textCol("reason", func(r *Comparison) *string { return &r.Reason }),
	int64Col("repeats", func(r *Comparison) *int64 { return &r.Repeats }),
	int64Col("repeats_baseline", func(r *Comparison) *int64 { return &r.RepeatsBaseline }),
	int64Col("repeats_candidate", func(r *Comparison) *int64 { return &r.RepeatsCandidate }),
	boolCol("within_only", func(r *Comparison) *bool { return &r.WithinOnly }),
	optInt64Col("more_repeats", func(r *Comparison) **int64 { return &r.MoreRepeats }),
	float64Col("confidence", func(r *Comparison) *float64 { return &r.Confidence }),
)

// CellPoint is the workload point of a cell, as planned: an open-loop cell
// at a fraction of peak is that fraction, not the rate it reached.
func CellPoint(c *Cell) pipeline.Point {
	pt := pipeline.Point{Mode: c.Mode}
	if c.Mode == "hold" && c.Connections != nil {
		pt.Connections = int(*c.Connections)
	}
	if c.Payload != nil {
		n := int(*c.Payload)
		pt.Payload = &n
	}
	if c.Concurrency != nil {
		pt.Concurrency = int(*c.Concurrency)
	}
	if c.PeakFraction != nil {
		pt.PeakFraction = *c.PeakFraction
	} else if c.RateTarget != nil && c.Mode == "open" {
		pt.Rate = *c.RateTarget
	}
	return pt
}

// Measured says whether a cell has numbers: ok, or measured but unfair.
func Measured(c *Cell) bool {
	return c.Status == pipeline.StatusOK || c.Status == pipeline.StatusUnfair
}

// String is the row in words, for logs and tests.
func (c Comparison) String() string {
	return fmt.Sprintf("%s %s %s vs %s %s: %s (%s)", c.Batch, c.Point, c.Candidate, c.Baseline, c.Metric, c.Verdict, c.Reason)
}
