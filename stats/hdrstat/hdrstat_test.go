package hdrstat_test

import (
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"yardstick/stats/hdrstat"
)

func TestRank(t *testing.T) {
	for _, c := range []struct {
		p     float64
		total int64
		want  int64
	}{
		{99, 1000, 990},  // exact: no rounding either way
		{99, 1060, 1050}, // 1049.4 rounds up (Go's int(x+.5) gives 1049)
		{99, 1050, 1040}, // 1039.5
		{50, 1, 1},
		{0, 1000, 1},
		{100, 1000, 1000},
		{99.9, 20_000, 19_980},
		{99.99, 7, 7},
	} {
		if got := hdrstat.Rank(c.p, c.total); got != c.want {
			t.Errorf("Rank(%v, %d) = %d, want %d", c.p, c.total, got, c.want)
		}
	}
}

// TestPercentileConvention shows where hdrhistogram-go's ValueAtPercentile
// and the reference (Java/JavaScript) convention part: 1060 values 1..1060,
// one per bucket; p99 is rank ceil(1049.4) = 1050, Go takes rank 1049.
func TestPercentileConvention(t *testing.T) {
	h := hdrhistogram.New(1, 60_000_000, 3)
	for v := int64(1); v <= 1060; v++ {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	d := hdrstat.NewDist(h)
	if got := d.Percentile(99); got != 1050 {
		t.Errorf("p99 = %d, want 1050", got)
	}
	if got := h.ValueAtPercentile(99); got != 1049 {
		t.Errorf("hdrhistogram-go p99 = %d; if it now gives 1050 it follows the reference convention, update the package doc", got)
	}
	// Where the rank is not fractional below .5 the two agree.
	for _, p := range []float64{0, 10, 50, 90, 99.5, 100} {
		if a, b := d.Percentile(p), h.ValueAtPercentile(p); a != b {
			t.Errorf("p%v: %d, hdrhistogram-go %d", p, a, b)
		}
	}
	if d.Min() != h.Min() || d.Max() != h.Max() {
		t.Errorf("min/max %d/%d, hdrhistogram-go %d/%d", d.Min(), d.Max(), h.Min(), h.Max())
	}
}

func TestOverAndBuckets(t *testing.T) {
	h := hdrhistogram.New(1, 60_000_000, 3)
	for _, v := range []int64{500, 999, 1000, 1001, 1002, 24_990, 25_000, 25_010, 100_001, 150_000} {
		_ = h.RecordValue(v)
	}
	d := hdrstat.NewDist(h)
	for _, c := range []struct{ threshold, want int64 }{
		{1_000, 7},   // 1001 and up: below 2048 buckets are 1 us wide
		{25_000, 3},  // 25,000 is in the threshold's bucket [24992, 25007]; 25,010 and up count
		{24_000, 5},  // 24,990 is in [24976, 24991], above 24,000
		{100_000, 1}, // 100,001 is in [99968, 100031], the threshold's own bucket: not counted
	} {
		if got := d.Over(c.threshold); got != c.want {
			t.Errorf("Over(%d) = %d, want %d", c.threshold, got, c.want)
		}
	}
	if d.TotalCount() != 10 {
		t.Errorf("total %d", d.TotalCount())
	}
	empty := hdrstat.NewDist(hdrhistogram.New(1, 60_000_000, 3))
	if empty.Percentile(99) != 0 || empty.Max() != 0 || empty.Over(1) != 0 {
		t.Error("empty histogram")
	}
}

func TestEncodeDecode(t *testing.T) {
	h := hdrhistogram.New(1, 60_000_000, 3)
	for v := int64(1); v < 100_000; v += 37 {
		_ = h.RecordValue(v)
	}
	s, err := hdrstat.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) < 8 || s[:8] != "HISTFAAA" {
		t.Errorf("encoding starts %q, want HISTFAAA", s[:min(8, len(s))])
	}
	g, err := hdrstat.Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Equals(g) {
		t.Error("decoded histogram differs")
	}
	if _, err := hdrstat.Decode("HISTFAAAnot-base64"); err == nil {
		t.Error("decoding garbage succeeded")
	}
}
