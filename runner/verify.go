package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"yardstick/pipeline"
	"yardstick/pipeline/runfs"
	"yardstick/stages/execute"
)

// Verify checks, before anything runs, that a run directory's lock is
// what it claims to be: every file of sources/ has the sha256 the plan
// recorded. The plan's ids and hash were checked when it was read
// (pipeline.RunDir.ReadPlan). run, run --resume and rerun execute what a
// run directory says, so a directory from elsewhere is trusted input;
// this catches a plan edited by hand or by accident, not a deliberate
// forgery of a whole run directory.
func Verify(rd *pipeline.RunDir, p *pipeline.Plan) error {
	return verifySources(rd, p)
}

// verifySources compares sources/ with the plan's record of the files.
func verifySources(rd *pipeline.RunDir, p *pipeline.Plan) error {
	for _, s := range p.Sources {
		name := sourceName(s.Path)
		path := rd.Path("sources", name)
		b, err := rd.ReadFile("sources/"+filepath.ToSlash(name), runfs.Source)
		if err != nil {
			return fmt.Errorf("sources: %w", err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != s.SHA256 {
			return fmt.Errorf("%s: sha256 %s, the plan recorded %s: the definition in the run directory was changed", path, short(got), short(s.SHA256))
		}
	}
	return nil
}

// sourceName is where a definition file is kept under sources/: its path
// relative to where yardstick ran, or its base name for a path outside it.
func sourceName(path string) string {
	if filepath.IsAbs(path) || strings.HasPrefix(filepath.Clean(path), "..") {
		return filepath.Base(path)
	}
	return filepath.Clean(path)
}

func short(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return h
}

// Resume opens a run directory to run its remaining cells: the plan is
// verified (Verify), the binaries and the machine are compared with its
// lock.json and any drift is refused unless allowDrift (then it is
// recorded in lock.json), and a checkpoint that cannot be read back (cut
// short, another format version, another cell's) is set aside, reported,
// and its cell runs again.
func Resume(ctx context.Context, rd *pipeline.RunDir, allowDrift bool, o Options) (*pipeline.Plan, error) {
	p, err := rd.ReadPlan()
	if err != nil {
		return nil, err
	}
	if err := Verify(rd, p); err != nil {
		return nil, err
	}
	if err := o.Only.Check(p.Cells); err != nil {
		return nil, err
	}
	lock, err := rd.ReadLock()
	if err != nil {
		return nil, fmt.Errorf("%s has no usable lock: %w", rd.Root, err)
	}
	current := execute.Lock(p, o.Workdir, Environment(ctx, p, o))
	drift := lock.Diff(current)
	if err := reportDrift("resume", rd, drift, allowDrift, o); err != nil {
		return nil, err
	}
	if len(drift) > 0 {
		lock.ResumeDrift = append(lock.ResumeDrift, drift...)
		if err := rd.WriteLock(lock); err != nil {
			return nil, err
		}
	}
	return p, setAsideBadCheckpoints(rd, p, o)
}

// setAsideBadCheckpoints reports and renames every checkpoint that exists
// but does not read back.
func setAsideBadCheckpoints(rd *pipeline.RunDir, p *pipeline.Plan, o Options) error {
	for _, c := range p.Cells {
		_, err := rd.ReadCheckpoint(c.ID)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			continue
		}
		to, serr := rd.SetAsideCheckpoint(c.ID, now())
		if serr != nil {
			return fmt.Errorf("cell %s: %v; %w", c.ID, err, serr)
		}
		fmt.Fprintf(o.Stderr, "warning: cell %s: %v; set aside as %s, the cell runs again\n", c.Name, err, filepath.Base(to))
	}
	return nil
}
