package runner

import (
	"math"
	"strings"
	"testing"
	"time"

	"yardstick/datasets"
	"yardstick/pipeline"
	"yardstick/stats"
)

// TestChooseMeasure: the automatic window is Kalibera and Jones's
// cost-optimal one from the batch's own starts, clamped to measureMin and
// measureMax; the first window until two starts of a variant at a point
// exist.
func TestChooseMeasure(t *testing.T) {
	b := &pipeline.Batch{Name: "main", Windows: pipeline.Windows{ServiceWarmup: pipeline.Duration(2 * time.Second), MeasureAuto: true,
		MeasureMin: pipeline.Duration(time.Second), MeasureMax: pipeline.Duration(60 * time.Second), Measure: pipeline.Duration(5 * time.Second)}}
	row := func(variant string, repeat int, rps, noise float64) datasets.Cell {
		conc, kept, warm, cold := int64(8), int64(4e6), int64(3e6), int64(400e3)
		return datasets.Cell{Batch: "main", Variant: variant, Repeat: int64(repeat), Status: pipeline.StatusOK, Mode: "closed", Concurrency: &conc,
			RPS: &rps, NoiseRPS: &noise, KeptDurationUS: &kept, WarmupUS: &warm, ColdStartUS: &cold}
	}
	if d, why := chooseMeasure(b, []datasets.Cell{row("a", 1, 1000, 0.02), row("b", 1, 900, 0.02)}); d != b.Windows.Measure || !strings.Contains(why, "first window") {
		t.Errorf("one start a variant: %s (%s)", d.D(), why)
	}
	// starts 1000 and 1200 (and 900, 1080): log spread sd 0.129; a 4 s
	// window ±20% (sd 0.102, 0.0416 per second); a start costs 3 s of
	// warm-up and 2.4 s of start
	rows := []datasets.Cell{row("a", 1, 1000, 0.2), row("a", 2, 1200, 0.2), row("b", 1, 900, 0.2), row("b", 2, 1080, 0.2)}
	c := measuredComponents(b, rows)
	within := math.Pow(0.2/1.959964, 2)
	wantBetween := math.Pow(math.Log(1.2), 2)/2 - within
	if math.Abs(c.between-wantBetween) > 1e-9 || math.Abs(c.withinPerSecond-4*within) > 1e-9 || math.Abs(c.cost-5.4) > 1e-9 {
		t.Errorf("components %+v, want between %g, within/s %g, cost 5.4", c, wantBetween, 4*within)
	}
	want := stats.OptimalWindow(5.4, 4*within, wantBetween)
	d, why := chooseMeasure(b, rows)
	if math.Abs(d.D().Seconds()-want) > 0.051 || !strings.Contains(why, "cost-optimal from 4 start(s)") {
		t.Errorf("window %s, want %.2fs (%s)", d.D(), want, why)
	}
	// starts that agree far better than their windows: the longest window
	b.Windows.MeasureMax = pipeline.Duration(20 * time.Second)
	same := []datasets.Cell{row("a", 1, 1000, 0.2), row("a", 2, 1001, 0.2), row("b", 1, 900, 0.2), row("b", 2, 900, 0.2)}
	if d, _ := chooseMeasure(b, same); d != b.Windows.MeasureMax {
		t.Errorf("no spread between starts: %s, want measureMax", d.D())
	}
}
