package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"yardstick/datasets"
	"yardstick/stages/report/analysis"
)

// Number formats are fixed so that the same tables always give the same
// text.

func fmtRPS(v float64) string { return commas(int64(math.Round(v))) }

// fmtLatency formats microseconds as milliseconds with three significant
// digits or more.
func fmtLatency(us float64) string {
	ms := us / 1000
	switch {
	case ms < 10:
		return fmt.Sprintf("%.3f ms", ms)
	case ms < 100:
		return fmt.Sprintf("%.2f ms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

func fmtShare(v float64) string { return fmt.Sprintf("%.3f%%", 100*v) }

func fmtBytes(v float64) string { return fmt.Sprintf("%.1f MiB", v/(1<<20)) }

func fmtKiB(v float64) string { return fmt.Sprintf("%.1f KiB", v/1024) }

func fmtConnections(v float64) string { return commas(int64(math.Round(v))) }

func fmtColdStart(us float64) string { return fmt.Sprintf("%.1f ms", us/1000) }

func fmtCPU(us float64) string { return fmt.Sprintf("%.1f us", us) }

func fmtPct(f float64) string { return trimFloat(math.Round(100*f*1000)/1000) + "%" }

func fmtDurUS(us int64) string {
	return strconv.FormatFloat(float64(us)/1e6, 'f', -1, 64) + "s"
}

func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// fmtRepeats is a repeat set's median, and with more than one value "±" half
// its range relative to the median.
func fmtRepeats(sum analysis.Summary, f func(float64) string) string {
	if sum.N == 0 {
		return "-"
	}
	s := f(sum.Median)
	if sum.N > 1 {
		s += fmt.Sprintf(" ±%.1f%%", 50*sum.Spread)
	}
	return s
}

// fmtRatio is a ratio with two decimals ("1.19x"); one a million or more
// away from 1 (a table edited by hand) in three significant digits, so
// that it never prints hundreds of digits.
func fmtRatio(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) || math.Abs(r) >= 1e6 {
		return fmt.Sprintf("%.3gx", r)
	}
	return fmt.Sprintf("%.2fx", r)
}

// fmtComparison renders a decision cell: the ratio, its 95% interval
// and the outcome: "0.47x [0.44, 0.50] worse", "1.01x [0.98, 1.04]
// equivalent", "1.03x undecided"; "undecided" without a ratio.
func fmtComparison(c datasets.Comparison) string {
	if c.Ratio == nil {
		return c.Verdict
	}
	s := fmtRatio(*c.Ratio) + " "
	if c.CILow != nil && c.CIHigh != nil {
		s += fmt.Sprintf("[%s, %s] ", strings.TrimSuffix(fmtRatio(*c.CILow), "x"), strings.TrimSuffix(fmtRatio(*c.CIHigh), "x"))
	}
	return s + c.Verdict
}
