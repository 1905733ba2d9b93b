package datasets

// A Histogram is one row of the histograms table: a cell's kept-window
// latency histogram in the standard compressed HdrHistogram encoding
// (base64, "HISTFAAA..."), which the Java, JavaScript, Python and Go
// HdrHistogram libraries decode, with a few figures that need no decoder.
type Histogram struct {
	CellID string
	// Unit is the unit of the recorded values: "us".
	Unit                string
	TotalCount          int64
	MinUS               int64
	MaxUS               int64
	LowestDiscernibleUS int64
	HighestTrackableUS  int64
	SignificantDigits   int64
	Hist                string
}

// Histograms is the histograms table: one row per cell with a histogram,
// in plan order.
var Histograms = newTable("histograms",
	textCol("cell_id", func(r *Histogram) *string { return &r.CellID }),
	dictCol("unit", func(r *Histogram) *string { return &r.Unit }),
	int64Col("total_count", func(r *Histogram) *int64 { return &r.TotalCount }),
	int64Col("min_us", func(r *Histogram) *int64 { return &r.MinUS }),
	int64Col("max_us", func(r *Histogram) *int64 { return &r.MaxUS }),
	int64Col("lowest_discernible_us", func(r *Histogram) *int64 { return &r.LowestDiscernibleUS }),
	int64Col("highest_trackable_us", func(r *Histogram) *int64 { return &r.HighestTrackableUS }),
	int64Col("significant_digits", func(r *Histogram) *int64 { return &r.SignificantDigits }),
	textCol("hist", func(r *Histogram) *string { return &r.Hist }),
)

// SpectrumPercentiles are the percentiles of the spectrum table's rows
// for every cell with a histogram.
var SpectrumPercentiles = []float64{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100}

// A SpectrumPoint is one row of the spectrum table: the latency at one
// percentile of one cell's kept-window histogram.
type SpectrumPoint struct {
	CellID     string
	Percentile float64
	LatencyUS  int64
}

// Spectrum is the spectrum table: cell x percentile (SpectrumPercentiles),
// cells in plan order, for plotting a percentile spectrum without an
// HdrHistogram decoder.
var Spectrum = newTable("spectrum",
	dictCol("cell_id", func(r *SpectrumPoint) *string { return &r.CellID }),
	float64Col("percentile", func(r *SpectrumPoint) *float64 { return &r.Percentile }),
	int64Col("latency_us", func(r *SpectrumPoint) *int64 { return &r.LatencyUS }),
)
