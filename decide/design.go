package decide

import "yardstick/pipeline"

// A Design is what a batch's decisions take besides the cells: the
// margin of each metric, and the confidence of the intervals.
type Design struct {
	// Margin is the margin of every metric not in Margins.
	Margin float64
	// Margins are the margins declared per metric.
	Margins map[string]float64
	// Confidence is the intervals' level; 0 is 0.95.
	Confidence float64
}

// MarginOf is the margin of the metric named name.
func (d Design) MarginOf(name string) float64 {
	if m, ok := d.Margins[name]; ok {
		return m
	}
	return d.Margin
}

// DesignOf is the design of batch b's decisions after its rounds st: a
// batch with adaptive repeats decides at the confidence of its
// sequential look (Sequential, Min to Max starts), any other at 95%; a
// rerun's fixed rounds do not look, and decide at 95% too. A nil batch
// (cells of no plan) has the default margin.
func DesignOf(b *pipeline.Batch, st pipeline.BatchRounds) Design {
	if b == nil {
		return Design{Margin: pipeline.DefaultMargin}
	}
	d := Design{Margin: b.Fairness.Noise, Margins: b.Fairness.Margins}
	if b.Adaptive() && st.Fixed == 0 {
		d.Confidence = Sequential{Min: b.RepeatsMin, Max: b.Repeats}.Confidence(max(st.Ran, b.RepeatsMin))
	}
	return d
}
