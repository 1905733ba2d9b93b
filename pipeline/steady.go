package pipeline

// The classes of a cell's load series, after Barrett et al.'s
// classification of benchmark executions (see stats/changepoint).
const (
	SteadyFlat     = "flat"            // steady from the start
	SteadyWarmup   = "warmup"          // changes, then a final steady segment at its best level
	SteadySlowdown = "slowdown"        // an earlier segment was better than the final one
	SteadyNone     = "no_steady_state" // still changing at the end
)

// Steady is the changepoint analysis of a cell's load series (one value
// per reporting interval, warm-up included): whether and where its
// throughput and its p99 reached a steady state, whether the kept window
// lies inside it, and the measured noise of the kept window's figures.
type Steady struct {
	// Error says why the analysis could not run (a series or a kept
	// window too short); the other fields are then empty.
	Error      string       `json:"error,omitempty"`
	Throughput SeriesSteady `json:"throughput"`
	P99        SeriesSteady `json:"p99"`
	// StartUS is where the later of the two steady segments starts, from
	// the load's start: the cell's time to steady state; -1 when either
	// series has none.
	StartUS int64 `json:"start_us" check:"min=-1"`
	// Noise is the kept window's measured noise.
	Noise Noise `json:"noise"`
}

// SeriesSteady is the analysis of one series (throughput, or p99).
type SeriesSteady struct {
	// Class is SteadyFlat, SteadyWarmup, SteadySlowdown or SteadyNone.
	Class string `json:"class"`
	// Changepoints are the interval indexes where a new level starts.
	Changepoints []int `json:"changepoints"`
	// SteadyStart is the interval index where the final steady segment
	// starts (0 when flat), -1 without a steady state.
	SteadyStart int `json:"steady_start" check:"min=-1"`
	// KeptChange is the relative change inside the kept window, from the
	// mean of its first third to the mean of its last third, relative to
	// the first (+0.3 is a 30% rise, 1.3 times the first third; -0.6 is
	// 0.4 times, x2.50 lower); KeptBand is the largest |KeptChange| that counts as no
	// drift: the batch's noise band or three standard errors of the
	// series' own noise, whichever is larger.
	KeptChange float64 `json:"kept_change" check:"signed"`
	KeptBand   float64 `json:"kept_band"`
	// KeptChangepoint says a changepoint falls inside the kept window.
	KeptChangepoint bool `json:"kept_changepoint"`
	// KeptSteady says the kept window lies in the series' final steady
	// segment, with no changepoint in it and |KeptChange| <= KeptBand.
	KeptSteady bool `json:"kept_steady"`
	// Outliers are the interval indexes of isolated outliers (spikes and
	// dips of a few intervals, a collector's pause), which the analysis
	// leaves out of the segmentation; for a p99 series of groups of
	// intervals, each group's first interval.
	Outliers []int `json:"outliers,omitempty"`
}

// Noise is the kept window's measured noise: the relative half-width of a
// 95% moving-block-bootstrap interval of its throughput and of its p99
// (0.05 is ±5%). Either is -1 when the window is too short to tell.
type Noise struct {
	RPS        float64 `json:"rps" check:"min=-1"`
	P99        float64 `json:"p99" check:"min=-1"`
	Block      int     `json:"block"`      // intervals per bootstrap block
	Replicates int     `json:"replicates"` // bootstrap replicates
}
