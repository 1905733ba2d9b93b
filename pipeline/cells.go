package pipeline

import (
	"errors"
	"io/fs"
)

// CellCounts counts cells by status: the one place that does, for the
// runner, the runs verb, a scale-out run's progress and the report.
type CellCounts struct {
	OK, Unfair, Failed, Pending, NotNeeded int
}

// Add counts one cell of the status; a status that is none of the
// others (none yet) is pending.
func (n *CellCounts) Add(status string) {
	switch status {
	case StatusOK:
		n.OK++
	case StatusUnfair:
		n.Unfair++
	case StatusFailed:
		n.Failed++
	case StatusNotNeeded:
		n.NotNeeded++
	default:
		n.Pending++
	}
}

// Plus is the sum of two counts.
func (n CellCounts) Plus(o CellCounts) CellCounts {
	return CellCounts{OK: n.OK + o.OK, Unfair: n.Unfair + o.Unfair, Failed: n.Failed + o.Failed,
		Pending: n.Pending + o.Pending, NotNeeded: n.NotNeeded + o.NotNeeded}
}

// Finished counts the cells with a checkpoint: ok, unfair or failed.
func (n CellCounts) Finished() int { return n.OK + n.Unfair + n.Failed }

// Planned counts the cells a run still has to account for: every cell
// but the rounds of adaptive repeats that were not needed.
func (n CellCounts) Planned() int { return n.Finished() + n.Pending }

// CellStatus is the status of planned cell c from its checkpoint: ok or
// failed; pending without one, or not_needed for a round of adaptive
// repeats its batch did not need (rounds; nil knows of none). A
// checkpoint that does not read back whole is pending, with the error
// that says why.
func (d *RunDir) CellStatus(c *Cell, rounds Rounds) (string, error) {
	cp, err := d.ReadCheckpoint(c.ID)
	switch {
	case errors.Is(err, fs.ErrNotExist) && rounds.NotNeeded(c):
		return StatusNotNeeded, nil
	case errors.Is(err, fs.ErrNotExist):
		return StatusPending, nil
	case err != nil:
		return StatusPending, err
	}
	return cp.Status, nil
}
