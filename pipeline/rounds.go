package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"yardstick/pipeline/runfs"
)

// rounds/<batch>.json records, for a batch with adaptive repeats, how
// many rounds ran and why they stopped: the lock's plan holds every round
// up to the maximum, and this file says which of them were run. rerun runs
// that many; --resume goes on from the first round without checkpoints
// unless the batch has stopped.

// The reasons a batch's rounds stopped.
const (
	RoundsDecided = "decided" // every throughput and p99 comparison decided
	RoundsMax     = "max"     // the maximum number of rounds ran
	RoundsBudget  = "budget"  // the batch's budget was spent
	RoundsRerun   = "rerun"   // a rerun ran as many rounds as its original
)

// BatchRounds is one batch's rounds/<batch>.json.
type BatchRounds struct {
	Min int `json:"min"`
	Max int `json:"max"`
	// Ran is the number of rounds that ran to their end.
	Ran int `json:"ran"`
	// Stopped is why the rounds stopped (RoundsDecided, RoundsMax,
	// RoundsBudget); "" while the batch may still run more.
	Stopped string `json:"stopped,omitempty"`
	// Undecided is how many of the batch's throughput and p99
	// comparisons were undecided after the last round.
	Undecided int `json:"undecided"`
	// Comparisons is how many throughput and p99 comparisons there are.
	Comparisons int `json:"comparisons"`
	// Elapsed is the wall time the batch's rounds took so far.
	Elapsed Duration `json:"elapsed"`
	// Fixed, set by rerun, runs exactly this many rounds: as many as the
	// run it reruns ran.
	Fixed int `json:"fixed,omitempty"`
	// Measures are the measure windows of the rounds so far, round 1
	// first, with windows.measure "auto" (chosen before each round from
	// the starts before it); a rerun measures the same.
	Measures []Duration `json:"measures,omitempty"`
	// Settled are the points (by label) whose comparisons of the metrics
	// that stop the rounds were all decided, each with the round after
	// which they were: the point's cells of later rounds do not run, so
	// that the rounds spend their starts where a comparison is still
	// undecided. A rerun settles the same points after the same rounds.
	Settled map[string]int `json:"settled,omitempty"`
}

// Skips says whether cell c of the batch is not needed: the rounds
// stopped before its round, or its point was settled before it.
func (b *BatchRounds) Skips(c *Cell) bool {
	if b.Stopped != "" && c.Repeat > b.Ran {
		return true
	}
	r, ok := b.Settled[c.Point.Label()]
	return ok && c.Repeat > r
}

// Rounds are the adaptive batches' rounds files, by batch name.
type Rounds map[string]BatchRounds

// ReadRounds reads rounds/<batch>.json of every adaptive batch of the
// plan that has one (one file per batch, so that batches running as tasks
// of a cluster job never write the same file).
func (d *RunDir) ReadRounds(p *Plan) (Rounds, error) {
	r := Rounds{}
	for i := range p.Batches {
		name := p.Batches[i].Name
		var b BatchRounds
		err := d.ReadJSON("rounds/"+name+".json", &b)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if b.Min < 1 || b.Max < b.Min || b.Ran < 0 || b.Ran > b.Max || b.Fixed < 0 || b.Fixed > b.Max || b.Elapsed < 0 || b.Undecided < 0 || b.Undecided > b.Comparisons {
			return nil, fmt.Errorf("%s: impossible rounds %+v", d.Path("rounds", name+".json"), b)
		}
		for pt, at := range b.Settled {
			if at < 1 || at > b.Max {
				return nil, fmt.Errorf("%s: point %q settled after round %d of %d", d.Path("rounds", name+".json"), pt, at, b.Max)
			}
		}
		r[name] = b
	}
	return r, nil
}

// WriteRounds writes the batch's rounds/<batch>.json atomically.
func (d *RunDir) WriteRounds(batch string, b BatchRounds) error {
	if err := runfs.MkdirAll(d.Root, "rounds"); err != nil {
		return err
	}
	return d.WriteJSON("rounds/"+batch+".json", b)
}

// NotNeeded says whether cell c is in a round of adaptive repeats that
// will not run for it: its batch stopped before it, or its point was
// settled before it (BatchRounds.Skips).
func (r Rounds) NotNeeded(c *Cell) bool {
	b, ok := r[c.Batch]
	return ok && b.Skips(c)
}

// Over says whether the batch's budget is spent after elapsed, or would
// be by the next round, estimated to take next: a budget is a bound on
// the rounds' time, not a time after which one more round starts.
func (b *Batch) Over(elapsed, next time.Duration) bool {
	budget := b.RepeatsBudget.D()
	return budget > 0 && (elapsed >= budget || elapsed+max(next, 0) > budget)
}
