package loadgen

import (
	"math/rand/v2"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The encoder writes what hdrhistogram-go's Encode writes, byte for byte,
// call after call on the same encoder: empty, one value, the bounds, long
// runs of zeros, counts that take nine bytes, and random latencies.
func TestHistEncoderMatchesEncode(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cases := map[string]func(h *hdrhistogram.Histogram){
		"empty":      func(*hdrhistogram.Histogram) {},
		"one":        func(h *hdrhistogram.Histogram) { _ = h.RecordValue(250) },
		"bounds":     func(h *hdrhistogram.Histogram) { _ = h.RecordValue(histMin); _ = h.RecordValue(histMax) },
		"huge count": func(h *hdrhistogram.Histogram) { _ = h.RecordValues(1000, 1<<62) },
		"latencies": func(h *hdrhistogram.Histogram) {
			for range 5000 {
				_ = h.RecordValue(int64(100 + r.ExpFloat64()*400))
			}
			_ = h.RecordValue(3_000_000)
		},
	}
	var e histEncoder
	for round := range 2 {
		for name, fill := range cases {
			h := newHist()
			fill(h)
			want, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.encode(h)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("round %d, %s: encoded\n%s\nwant\n%s", round, name, got, want)
			}
		}
	}
}

// BenchmarkIntervalEncode is the encoding of one interval's histogram, as
// the aggregator does it ten times a second, against hdrhistogram-go's
// Encode.
func BenchmarkIntervalEncode(b *testing.B) {
	h := newHist()
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		_ = h.RecordValue(int64(200 + r.ExpFloat64()*300))
	}
	b.Run("histEncoder", func(b *testing.B) {
		var e histEncoder
		b.ReportAllocs()
		for b.Loop() {
			if _, err := e.encode(h); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hdrhistogram.Encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err != nil {
				b.Fatal(err)
			}
		}
	})
}
