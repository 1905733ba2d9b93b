package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"yardstick/pipeline"
	"yardstick/pipeline/runfs"
	"yardstick/stages/execute"
)

// now is the clock run ids are made from.
var now = time.Now

// Rerun prepares a rerun of the earlier run old into a new run directory
// under results (the directory holding old when results is ""). The plan
// is taken as it was (plan.json), so the cells and their ids are the same
// months later even if the definition was edited or deleted. Before
// anything is created, the binaries and the machine's fingerprint are
// compared with old's lock.json: any difference is listed on Stderr and
// refused (ErrReported) unless allowDrift, which records it in the new
// run's lock.json. Execute then runs the new directory.
func Rerun(ctx context.Context, old *pipeline.RunDir, results string, allowDrift bool, o Options) (*pipeline.RunDir, *pipeline.Plan, error) {
	p, err := old.ReadPlan()
	if err != nil {
		return nil, nil, err
	}
	if err := Verify(old, p); err != nil {
		return nil, nil, err
	}
	if err := o.Only.Check(p.Cells); err != nil {
		return nil, nil, err
	}
	lock, err := old.ReadLock()
	if err != nil {
		return nil, nil, fmt.Errorf("%s has no usable lock: %w", old.Root, err)
	}
	e := Environment(ctx, p, o)
	current := execute.Lock(p, o.Workdir, e)
	drift := lock.Diff(current)
	if err := reportDrift("rerun", old, drift, allowDrift, o); err != nil {
		return nil, nil, err
	}
	if results == "" {
		// old is results/<experiment>/run=<id>
		results = filepath.Dir(filepath.Dir(old.Root))
	}
	rd, err := pipeline.CreateRunDir(results, p.Experiment, pipeline.NewRunID(now()))
	if err != nil {
		return nil, nil, err
	}
	if err := copySources(old, rd); err != nil {
		return nil, nil, err
	}
	if err := rd.WritePlan(p); err != nil {
		return nil, nil, err
	}
	if err := pipeline.WriteJSONAtomic(rd.Path("environment.json"), e); err != nil {
		return nil, nil, err
	}
	current.RerunOf, current.Drift = old.ID(), drift
	carryBuilt(lock, current)
	if err := rd.WriteLock(current); err != nil {
		return nil, nil, err
	}
	if err := rerunRounds(old, rd, p); err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(o.Stderr, "rerun of %s\n", old.Root)
	return rd, p, nil
}

// rerunRounds has the rerun run as many rounds of each adaptive batch as
// old ran (all of them where old has no record: it never finished one).
func rerunRounds(old, rd *pipeline.RunDir, p *pipeline.Plan) error {
	was, err := old.ReadRounds(p)
	if err != nil {
		return err
	}
	for name, b := range was {
		if b.Ran == 0 {
			continue
		}
		if err := rd.WriteRounds(name, pipeline.BatchRounds{Min: b.Min, Max: b.Max, Fixed: b.Ran, Measures: b.Measures, Settled: b.Settled}); err != nil {
			return err
		}
	}
	return nil
}

// reportDrift lists the differences from the lock, and refuses them
// unless allowDrift; verb is "rerun" or "resume".
func reportDrift(verb string, old *pipeline.RunDir, drift []pipeline.Drift, allowDrift bool, o Options) error {
	if len(drift) == 0 {
		return nil
	}
	if !allowDrift {
		fmt.Fprintf(o.Stderr, "%s refused: %d difference(s) from the lock of %s:\n", verb, len(drift), old.Root)
		for _, d := range drift {
			fmt.Fprintf(o.Stderr, "  %s\n", d)
		}
		if verb == "rerun" {
			fmt.Fprintln(o.Stderr, "rerun with --allow-drift to run anyway (the drift is recorded in the new run)")
		} else {
			fmt.Fprintln(o.Stderr, "resume with --allow-drift to run anyway (the drift is recorded in lock.json); cells already done ran with the old binaries")
		}
		return ErrReported
	}
	fmt.Fprintf(o.Stderr, "drift from the lock (allowed, recorded in lock.json):\n")
	for _, d := range drift {
		fmt.Fprintf(o.Stderr, "  %s\n", d)
	}
	return nil
}

// copySources copies the definition files as evaluated; they are read as
// every file of a run directory is (package runfs: a link is refused).
func copySources(from, to *pipeline.RunDir) error {
	src := from.Path("sources")
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		b, err := from.ReadFile("sources/"+filepath.ToSlash(rel), runfs.Source)
		if err != nil {
			return fmt.Errorf("copy sources: %w", err)
		}
		return writeSource(to, rel, b)
	})
}

// carryBuilt gives the new lock the hashes the old run recorded for the
// files its build steps made: the rerun's builds must make the same files
// (execute checks them after each build step).
func carryBuilt(old, current *pipeline.Lock) {
	was := map[string]pipeline.Binary{}
	for _, b := range old.Binaries {
		if b.Build {
			was[b.Key()] = b
		}
	}
	for i, b := range current.Binaries {
		if o, ok := was[b.Key()]; ok && b.Build && b.SHA256 == "" && b.Error == "" {
			current.Binaries[i] = o
		}
	}
}
