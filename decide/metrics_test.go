package decide

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"yardstick/datasets"
)

// docMetric is one row of SCHEMA.md's compared metrics.
type docMetric struct{ name, column, unit, better, within string }

// readDocMetrics reads the table under "### Compared metrics" in
// datasets/SCHEMA.md.
func readDocMetrics(t *testing.T) []docMetric {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "datasets", "SCHEMA.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []docMetric
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			in = line == "### Compared metrics"
			continue
		}
		if !in || !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "`")
		}
		if len(cells) != 5 || cells[0] == "metric" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		out = append(out, docMetric{cells[0], cells[1], cells[2], cells[3], cells[4]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// docProblems are the differences between the documented metrics and
// the registry ms, in the registry's order.
func docProblems(doc []docMetric, ms []Metric) []string {
	var out []string
	for i, m := range ms {
		better := "higher"
		if m.LowerIsBetter {
			better = "lower"
		}
		want := docMetric{m.Name, m.Column, m.Unit, better, m.Within}
		switch {
		case i >= len(doc):
			out = append(out, fmt.Sprintf("SCHEMA.md lists no metric %s (row %d)", m.Name, i+1))
		case doc[i] != want:
			out = append(out, fmt.Sprintf("SCHEMA.md row %d reads %+v, the registry has %+v", i+1, doc[i], want))
		}
	}
	for _, d := range doc[min(len(doc), len(ms)):] {
		out = append(out, fmt.Sprintf("SCHEMA.md lists %s, which the registry does not have", d.name))
	}
	return out
}

// TestSchemaDocListsTheMetrics: SCHEMA.md's compared metrics are the
// registry's, in its order, with their cells columns, units, directions
// and within-start uncertainty.
func TestSchemaDocListsTheMetrics(t *testing.T) {
	doc := readDocMetrics(t)
	if len(doc) == 0 {
		t.Fatal("SCHEMA.md has no compared metrics table")
	}
	for _, p := range docProblems(doc, Metrics) {
		t.Error(p)
	}
}

// TestMetricsReadTheirColumns: every metric names a numeric cells column
// and reads its figure from it; a column that is not one is refused.
func TestMetricsReadTheirColumns(t *testing.T) {
	p99, rps := int64(1234), 5678.5
	c := &datasets.Cell{LatencyP99US: &p99, RPS: &rps}
	for name, want := range map[string]float64{"latency_p99": 1234, "throughput": 5678.5} {
		m, ok := MetricNamed(name)
		if v, got := m.Value(c); !ok || !got || v != want {
			t.Errorf("%s: %v %v, want %v", name, v, got, want)
		}
	}
	if m, _ := MetricNamed("rss"); func() bool { _, ok := m.Value(c); return ok }() {
		t.Error("rss of a cell without it: a value")
	}
	for _, col := range []string{"no_such_column", "variant", "kept_steady"} {
		m := Metric{Name: "x", Column: col}
		if err := m.resolve(); err == nil {
			t.Errorf("column %q: accepted", col)
		}
	}
}

// TestHoldMetrics: a batch of connection-holding cells is compared on the
// metrics taken of them alone, at its h<connections> point; a target that
// held fewer connections at the last step (it broke) is worse on
// connections_held.
func TestHoldMetrics(t *testing.T) {
	cells := testCells(4, func(c *datasets.Cell, v string, r int) {
		c.Mode, c.Concurrency, c.RPS = "hold", nil, nil
		n := int64(10000)
		c.Connections = &n
		held, mem, delay := int64(10000), 4096.0+float64(r), int64(1000+r)
		if v == "slow" {
			held, mem, delay = 8192, 9000+float64(r), 1500+int64(r)
		}
		c.HoldHeld, c.HoldMemoryPerConnection, c.HoldDelayP99US = &held, &mem, &delay
	})
	rows := Batch("main", cells, "base", Design{Margin: 0.05})
	var names []string
	for _, r := range rows {
		if r.Point != "h10000" {
			t.Errorf("point %q, want h10000", r.Point)
		}
		names = append(names, r.Metric)
	}
	for _, m := range Metrics {
		if m.Applies("hold") != slices.Contains(names, m.Name) {
			t.Errorf("metric %s: applies to hold cells %v, compared %v", m.Name, m.Applies("hold"), slices.Contains(names, m.Name))
		}
	}
	for _, name := range []string{"connections_held", "memory_per_connection", "heartbeat_delay_p99"} {
		if r := metricRow(t, rows, name); r.Verdict != Worse {
			t.Errorf("%s: %s, want worse", name, r)
		}
	}
}

// TestAddingAMetric: a compared metric is one registry entry (reading a
// cells column that exists) and its SCHEMA.md line: with the entry and
// nothing else, the batch's comparisons decide it, and the documentation
// check names exactly the missing line.
func TestAddingAMetric(t *testing.T) {
	added := Metric{Name: "latency_max", Title: "max", Unit: "us", Column: "latency_max_us", LowerIsBetter: true, Load: true,
		Within: "none: the starts alone"}
	saved := Metrics
	t.Cleanup(func() { Metrics = saved })
	Metrics = append(slices.Clip(saved), register(added)...)

	cells := testCells(4, func(c *datasets.Cell, v string, r int) {
		mx := int64(5000 + 100*r)
		if v == "slow" {
			mx *= 2
		}
		c.LatencyMaxUS = &mx
	})
	rows := Batch("main", cells, "base", Design{Margin: 0.05})
	want := 0
	for _, m := range Metrics {
		if m.Applies("closed") {
			want++
		}
	}
	if len(rows) != want {
		t.Fatalf("%d rows for %d metrics of request cells", len(rows), want)
	}
	if r := metricRow(t, rows, "latency_max"); r.Verdict != Worse || r.RepeatsCandidate != 4 {
		t.Errorf("the added metric: %s", r)
	}
	if _, ok := MetricNamed("latency_max"); !ok {
		t.Error("MetricNamed does not find the added metric")
	}
	got := docProblems(readDocMetrics(t), Metrics)
	if len(got) != 1 || !strings.Contains(got[0], "no metric latency_max") {
		t.Errorf("the documentation check: %q, want the one missing line", got)
	}
}
