package execute

import (
	"errors"
	"fmt"
	"strings"

	"yardstick/pipeline"
	"yardstick/stages/execute/machine"
)

// ErrBuildDrift stops a run whose build step made other files than the
// run's lock records: the cells of one run would be measured on two
// binaries while the lock names one.
var ErrBuildDrift = errors.New("a build step made other files than the run's lock records")

// recordBuilt hashes the files of owner's process now that its build step
// has run and checks them against lock.json (pipeline.Lock.CheckBuilt): the
// first build of a run records them; a later one (run --resume, or the
// run a rerun reruns) must make the same files. A difference stops the run
// with ErrBuildDrift unless Options.AllowDrift, which records it under
// resume_drift and the new hashes in the lock.
func (r *planRun) recordBuilt(batch, owner string, p *pipeline.Process) error {
	now := machine.ProcessBinaries(batch, owner, p, r.opts.Workdir, true)
	var drift []pipeline.Drift
	err := r.rd.UpdateLock(func(l *pipeline.Lock) error {
		for _, b := range now {
			if d, differs := l.CheckBuilt(b); differs {
				drift = append(drift, d)
			}
		}
		if len(drift) == 0 {
			return nil
		}
		if !r.opts.AllowDrift {
			var what []string
			for _, d := range drift {
				what = append(what, d.String())
			}
			return fmt.Errorf("%w: %s; the run stops (--allow-drift runs on and records it)", ErrBuildDrift, strings.Join(what, "; "))
		}
		l.ResumeDrift = append(l.ResumeDrift, drift...)
		for _, b := range now {
			for i := range l.Binaries {
				if l.Binaries[i].Key() == b.Key() {
					l.Binaries[i] = b
				}
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, ErrBuildDrift) {
		return fmt.Errorf("record the built files in lock.json: %w", err)
	}
	for _, d := range drift {
		if err == nil {
			r.prog.note("warning: drift recorded: " + d.String())
		}
	}
	return err
}
