package decide

import (
	"fmt"
	"math"
	"slices"

	"yardstick/datasets"
	"yardstick/pipeline"
)

// A Metric is one compared metric: one entry of the registry [Metrics].
// Adding a metric to the comparisons is one entry here, the cells column
// it reads (package datasets) and its line in datasets/SCHEMA.md's
// compared metrics; tabulate, the runner, compare and the report take
// every metric from the registry.
type Metric struct {
	// Name is the metric's name in the comparisons table's metric
	// column, in reports and in a definition's per-metric margins.
	Name string
	// Title is the report's short column heading ("rps", "p99").
	Title string
	// Unit is the unit of each start's figure, as SCHEMA.md writes it.
	Unit string
	// Column is the cells column each start's figure is read from.
	Column string
	// LowerIsBetter is the metric's direction.
	LowerIsBetter bool
	// For is which cells the metric is taken of: those that send
	// requests (the zero value), connection-holding ones
	// (workload.hold), or both.
	For CellKind
	// Load says the figure is of the load in the kept window: a start
	// whose load never reached a steady state estimates nothing stable
	// and is left out (NeverSteady).
	Load bool
	// HalfWidth is the kept window's own relative 95% half-width of the
	// figure; nil for a figure with no uncertainty within a start (the
	// starts alone give the interval, from MinStarts starts a side).
	HalfWidth func(*datasets.Cell) float64
	// Floor is the resolution of a figure measured without a window of
	// its own, in its unit: a value below it is the floor, and each value
	// is known to within ±Floor (a relative half-width Floor / value).
	// Time to steady state is placed by the changepoint search no better
	// than a second; cold start is polled every millisecond.
	Floor float64
	// Within says in words how a start's uncertainty is taken, for
	// SCHEMA.md.
	Within string
	// value reads the figure from Column (datasets.Cells.Number).
	value func(*datasets.Cell) (float64, bool)
}

// CellKind says which cells a metric is taken of.
type CellKind uint8

// The kinds of cells a metric applies to.
const (
	ForRequests CellKind = iota // cells that send requests (closed or open loop)
	ForHolds                    // connection-holding cells (workload.hold)
	ForAll                      // both
)

// Applies says whether the metric is taken of cells of the workload
// mode (pipeline.Point.Mode: "closed", "open", "hold").
func (m Metric) Applies(mode string) bool {
	hold := mode == "hold"
	return m.For == ForAll || (m.For == ForHolds) == hold
}

// Metrics are the compared metrics, in the comparisons table's order
// and the report's.
var Metrics = register(
	Metric{Name: "throughput", Title: "rps", Unit: "requests/s", Column: "rps", Load: true,
		HalfWidth: func(c *datasets.Cell) float64 { return windowHalfWidth(c.NoiseRPS, c.KeptChange) },
		Within:    "the larger of the kept window's block-bootstrap noise (`noise_rps`) and its drift (`kept_change`)"},
	Metric{Name: "latency_p50", Title: "p50", Unit: "us", Column: "latency_p50_us", LowerIsBetter: true, Load: true,
		Within: "none: the starts alone"},
	// p99 is the kept window's merged histogram's, its within-start
	// uncertainty the block bootstrap's alone: the p99 series' drift is
	// that of the worst stalls of groups of intervals, no drift of the
	// window's p99, and the spread between starts is what measures it.
	Metric{Name: "latency_p99", Title: "p99", Unit: "us", Column: "latency_p99_us", LowerIsBetter: true, Load: true,
		HalfWidth: func(c *datasets.Cell) float64 { return windowHalfWidth(c.NoiseP99, nil) },
		Within:    "the kept window's block-bootstrap noise (`noise_p99`)"},
	Metric{Name: "latency_p999", Title: "p99.9", Unit: "us", Column: "latency_p999_us", LowerIsBetter: true, Load: true,
		Within: "none: the starts alone"},
	Metric{Name: "rss", Title: "RSS load", Unit: "bytes", Column: "rss_steady_bytes", LowerIsBetter: true, For: ForAll,
		Within: "none: the starts alone"},
	Metric{Name: "cold_start", Title: "cold start", Unit: "us", Column: "cold_start_us", LowerIsBetter: true, Floor: 1000, For: ForAll,
		Within: "its resolution: ±1 ms (polled every millisecond)"},
	Metric{Name: "time_to_steady", Title: "time to steady", Unit: "us", Column: "steady_start_us", LowerIsBetter: true, Floor: 1e6,
		Within: "its resolution: ±1 s (the changepoint search's)"},
	Metric{Name: "cpu_per_request", Title: "CPU/req", Unit: "us/request", Column: "cpu_per_request_us", LowerIsBetter: true, Load: true,
		Within: "none: the starts alone"},
	// A connection-holding cell's figures at its last step: a target that
	// broke holds fewer (its breaking point decides against it), and its
	// memory per connection and heartbeat delay are what holding costs.
	Metric{Name: "connections_held", Title: "held", Unit: "connections", Column: "hold_held", For: ForHolds,
		Within: "none: the starts alone"},
	Metric{Name: "memory_per_connection", Title: "memory/conn", Unit: "bytes", Column: "hold_memory_per_connection_bytes", LowerIsBetter: true, For: ForHolds,
		Within: "none: the starts alone"},
	Metric{Name: "heartbeat_delay_p99", Title: "heartbeat p99", Unit: "us", Column: "hold_delay_p99_us", LowerIsBetter: true, For: ForHolds,
		Within: "none: the starts alone"},
)

// register resolves each metric's cells column; a column that is not a
// numeric cells column is a programming error, caught by the tests.
func register(ms ...Metric) []Metric {
	for i := range ms {
		if err := ms[i].resolve(); err != nil {
			panic(err)
		}
	}
	return ms
}

// resolve binds the metric's figure to its cells column.
func (m *Metric) resolve() error {
	get, ok := datasets.Cells.Number(m.Column)
	if !ok {
		return fmt.Errorf("decide: metric %s reads %q, which is no numeric column of the cells table", m.Name, m.Column)
	}
	m.value = get
	return nil
}

// Value is the cell's figure of the metric; false when the cell has none
// (or when Column is no numeric cells column, which the registry's
// entries are not: register refuses them).
func (m Metric) Value(c *datasets.Cell) (float64, bool) {
	if m.value == nil {
		get, ok := datasets.Cells.Number(m.Column)
		if !ok {
			return 0, false
		}
		return get(c)
	}
	return m.value(c)
}

// Headline are the metrics whose decisions lead a batch's answer (the
// run's summary, the report's first screen) and, unless the batch names
// others (repeats.until), stop its adaptive repeats: a request point's
// throughput and p99 (pipeline.DefaultUntil), a connection-holding
// point's connections held, memory per connection and heartbeat delay.
func Headline(mode string) []string {
	if mode == "hold" {
		return []string{"connections_held", "memory_per_connection", "heartbeat_delay_p99"}
	}
	return slices.Clone(pipeline.DefaultUntil)
}

// MetricNamed is the compared metric called name.
func MetricNamed(name string) (Metric, bool) {
	i := slices.IndexFunc(Metrics, func(m Metric) bool { return m.Name == name })
	if i < 0 {
		return Metric{}, false
	}
	return Metrics[i], true
}

// windowHalfWidth is the larger of a window's measured noise and the
// size of its drift from its first third to its last: a window that rose
// 29% gives a figure that depends on where it was cut by about as much,
// which a bootstrap of its drifting intervals does not see.
func windowHalfWidth(noise, drift *float64) float64 {
	n, okN := finite(noise)
	d, okD := finite(drift)
	if !okN && !okD {
		return math.NaN()
	}
	return max(n, math.Abs(d))
}

func finite(p *float64) (float64, bool) {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return 0, false
	}
	return *p, true
}
