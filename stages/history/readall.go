package history

import (
	"context"
	"errors"
	"runtime"
	"sync"
)

// A Skipped run directory did not read back; Err says why.
type Skipped struct {
	Dir string
	Err error
}

// ReadAll reads the run directories dirs of experiment (every
// experiment's when ""), a few at a time. A directory that does not read
// back is skipped and returned with its error, in dirs' order; a run of
// another experiment is left out. A run of a newer schema version stops
// the read with a *NewerError naming it: its figures may mean something
// this yardstick does not know. Only the newest run's margins are read.
func ReadAll(ctx context.Context, dirs []string, experiment string) ([]*Run, []Skipped, error) {
	runs := make([]*Run, len(dirs))
	errs := make([]error, len(dirs))
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), 8)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				runs[i], errs[i] = readRun(ctx, dirs[i])
			}
		}()
	}
	for i := range dirs {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var out []*Run
	var skipped []Skipped
	for i, err := range errs {
		var newer *NewerError
		switch {
		case errors.As(err, &newer):
			return nil, nil, err
		case err != nil:
			skipped = append(skipped, Skipped{Dir: dirs[i], Err: err})
		case experiment == "" || runs[i].Experiment == experiment:
			out = append(out, runs[i])
		}
	}
	// The margins are the newest run's (Build takes each series' margin
	// from its last run): reading every run's batches table would double
	// the files read.
	for _, r := range newest(out) {
		if err := r.readMargins(ctx); err != nil {
			return nil, nil, err
		}
	}
	return out, skipped, nil
}

// newest is the newest run of runs, or none.
func newest(runs []*Run) []*Run {
	var best *Run
	for _, r := range runs {
		if best == nil || r.ID > best.ID {
			best = r
		}
	}
	if best == nil {
		return nil
	}
	return []*Run{best}
}
