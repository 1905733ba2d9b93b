// Package hdrstat derives the latency figures that yardstick publishes
// from an HdrHistogram: percentiles, tail counts, the percentile spectrum.
//
// Percentiles follow the reference convention of HdrHistogram's Java and
// JavaScript implementations, so that a notebook that decodes the
// histograms table gets the numbers of the cells table exactly: the value
// at percentile p is the highest value equivalent (same bucket) to the
// value of rank ceil(p/100 × count) (at least 1), and at p = 0 the lowest
// value equivalent to the smallest one. hdrhistogram-go's
// ValueAtPercentile rounds the rank to nearest instead (int(x + 0.5)),
// which for fractional ranks below .5 picks the rank below, so its p99
// can be one bucket lower than Java's and JavaScript's; do not use it for
// published figures.
//
// The package depends on hdrhistogram-go only, so the executor can use it
// without Arrow.
package hdrstat

import (
	"fmt"
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Decode decodes the standard compressed base64 form ("HISTFAAA...").
func Decode(s string) (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return h, nil
}

// Encode gives the standard compressed base64 form of h.
func Encode(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return string(b), nil
}

// A Dist is a histogram's non-empty buckets in value order, for repeated
// queries.
type Dist struct {
	bars  []hdrhistogram.Bar
	total int64
}

// NewDist reads the non-empty buckets of h.
func NewDist(h *hdrhistogram.Histogram) *Dist {
	d := &Dist{total: h.TotalCount()}
	for _, b := range h.Distribution() {
		if b.Count != 0 {
			d.bars = append(d.bars, b)
		}
	}
	return d
}

// TotalCount is the number of recorded values.
func (d *Dist) TotalCount() int64 { return d.total }

// Rank is the 1-based rank of the value at percentile p (0..100) among
// total values, as HdrHistogram's Java and JavaScript implementations
// compute it: ceil(p/100 × total) with a one-ulp guard against
// floating-point error, at least 1.
func Rank(p float64, total int64) int64 {
	p = min(p, 100)
	x := p / 100 * float64(total)
	r := int64(math.Ceil(x - ulp(x)))
	return max(r, 1)
}

// ulp is the distance from x to the next larger float64, as JavaScript
// HdrHistogram computes it.
func ulp(x float64) float64 {
	return math.Nextafter(x, math.Inf(1)) - x
}

// Percentile is the value at percentile p (0..100): the highest value
// equivalent to the value of Rank(p), or for p = 0 the lowest value
// equivalent to the smallest. It is 0 for an empty histogram.
func (d *Dist) Percentile(p float64) int64 {
	if d.total == 0 {
		return 0
	}
	rank := Rank(p, d.total)
	var cum int64
	for _, b := range d.bars {
		cum += b.Count
		if cum >= rank {
			if p == 0 {
				return b.From
			}
			return b.To
		}
	}
	return d.bars[len(d.bars)-1].To
}

// Over counts the values that lie above threshold: those in buckets whose
// lowest equivalent value is greater than threshold. Values in the bucket
// that holds threshold itself are not counted, so at 3 significant digits
// the count may miss values up to 0.1% above the threshold.
func (d *Dist) Over(threshold int64) int64 {
	var n int64
	for _, b := range d.bars {
		if b.From > threshold {
			n += b.Count
		}
	}
	return n
}

// Min is the lowest value equivalent to the smallest recorded value (0
// when empty).
func (d *Dist) Min() int64 {
	if len(d.bars) == 0 {
		return 0
	}
	return d.bars[0].From
}

// Max is the highest value equivalent to the largest recorded value (0
// when empty).
func (d *Dist) Max() int64 {
	if len(d.bars) == 0 {
		return 0
	}
	return d.bars[len(d.bars)-1].To
}
