package pipeline

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"yardstick/pipeline/runfs"
)

// RunDir is one run's directory, results/<experiment>/run=<run-id>/ (the
// "run=" prefix makes the tables one Hive-partitioned glob across runs):
//
//	plan.json              the lock: resolved cells, argv, env, hashes
//	sources/               the definition's files as evaluated
//	environment.json       the machine the run ran on
//	cells/<id>/checkpoint.json  one per finished cell, written atomically
//	starts/<group>/        per target start: stdout, stderr, GC log, start.json
//
// Every file is written with WriteFileAtomic, and each cell writes only its
// own directory, so a crash loses at most the cell in flight and several
// writers (shards) can share one run directory.
//
// Every file is read through package runfs (regular files only, no link
// below Root followed, a size cap per kind, reads that end with the
// context given by WithContext).
type RunDir struct {
	Root string
	ctx  context.Context
}

// WithContext returns the run directory with reads that end when ctx
// does (Ctrl-C, SIGTERM).
func (d *RunDir) WithContext(ctx context.Context) *RunDir {
	c := *d
	c.ctx = ctx
	return &c
}

// Context is the context of the run directory's reads.
func (d *RunDir) Context() context.Context {
	if d.ctx == nil {
		return context.Background()
	}
	return d.ctx
}

// ReadFile reads the file rel (slash-separated, below Root) through
// runfs: a regular file reached without a link, at most k.Max bytes.
func (d *RunDir) ReadFile(rel string, k runfs.Kind) ([]byte, error) {
	b, err := runfs.ReadFile(d.Context(), d.Root, rel, k)
	if err != nil {
		return nil, fmt.Errorf("read %w", err)
	}
	return b, nil
}

// ReadJSON reads the JSON file rel (slash-separated, below Root) into v,
// as ReadFile reads it.
func (d *RunDir) ReadJSON(rel string, v any) error {
	b, err := d.ReadFile(rel, runfs.JSON)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("read %s: %w", d.Path(filepath.FromSlash(rel)), err)
	}
	return nil
}

// ErrNewerVersion is wrapped by the error of a reader given a file whose
// format version is newer than the one this yardstick knows: a run
// directory written by a newer yardstick is refused by the file's name and
// version, before any other field is decoded (a newer format may give an
// old field another type or meaning).
var ErrNewerVersion = errors.New("written by a newer yardstick")

// checkNewer refuses the JSON object b, read from path, when its
// "version" is newer than known; what names the format ("plan").
func checkNewer(path, what string, b []byte, known int) error {
	var v struct {
		Version int `json:"version"`
	}
	if json.Unmarshal(b, &v) != nil || v.Version <= known {
		return nil // not an object, or a version the caller handles
	}
	return fmt.Errorf("%s: refused: %s version %d, %w; this one reads up to version %d: read it with that yardstick", path, what, v.Version, ErrNewerVersion, known)
}

// readVersioned reads the JSON file rel into v as ReadJSON does, after
// checkNewer.
func (d *RunDir) readVersioned(rel, what string, known int, v any) error {
	b, err := d.ReadFile(rel, runfs.JSON)
	if err != nil {
		return err
	}
	path := d.Path(filepath.FromSlash(rel))
	if err := checkNewer(path, what, b, known); err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// RunIDPrefix starts the name of every run directory.
const RunIDPrefix = "run="

// NewRunID returns a run id that sorts by time: 20261130T062300Z-1a2b.
func NewRunID(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// CreateRunDir makes results/<experiment>/run=<id>/ under results.
func CreateRunDir(results, experiment, id string) (*RunDir, error) {
	root := filepath.Join(results, experiment, RunIDPrefix+id)
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		return nil, fmt.Errorf("create run directory: %w", err)
	}
	if err := os.Mkdir(root, 0o755); err != nil {
		return nil, fmt.Errorf("create run directory: %w", err)
	}
	for _, d := range []string{"sources", "cells", "starts"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			return nil, fmt.Errorf("create run directory: %w", err)
		}
	}
	return &RunDir{Root: root}, nil
}

// OpenRunDir opens an existing run directory (for resume, datasets and
// report); it must hold a plan.json.
func OpenRunDir(root string) (*RunDir, error) {
	if err := runfs.Check(root, "plan.json", runfs.JSON); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open run directory %s: no plan.json: %w", root, err)
	} else if err != nil {
		return nil, fmt.Errorf("open run directory: %w", err)
	}
	return &RunDir{Root: root}, nil
}

// ID returns the run id: the directory name without "run=".
func (d *RunDir) ID() string {
	return strings.TrimPrefix(filepath.Base(d.Root), RunIDPrefix)
}

// Path joins elements below the run directory.
func (d *RunDir) Path(elem ...string) string {
	return filepath.Join(append([]string{d.Root}, elem...)...)
}

// CellDir is cells/<id>/.
func (d *RunDir) CellDir(id string) string { return d.Path("cells", id) }

// StartDir is starts/<group>/ for a target start; the name carries the
// group number, the variant and the repeat so that a person can find it.
func (d *RunDir) StartDir(c *Cell, attempt int) string {
	name := fmt.Sprintf("%04d-%s-%s-r%d", c.StartSeq, c.Batch, c.Variant, c.Repeat)
	if attempt > 0 {
		name += fmt.Sprintf("-restart%d", attempt)
	}
	return d.Path("starts", name)
}

// WritePlan writes plan.json.
func (d *RunDir) WritePlan(p *Plan) error {
	return WriteJSONAtomic(d.Path("plan.json"), p)
}

// ReadPlan reads plan.json and checks it on every read: names (Plan.Check),
// ids and hash (Plan.Verify), and the hash environment.json recorded.
func (d *RunDir) ReadPlan() (*Plan, error) {
	b, err := d.ReadFile("plan.json", runfs.JSON)
	if err != nil {
		return nil, err
	}
	if err := checkNewer(d.Path("plan.json"), "plan", b, PlanVersion); err != nil {
		return nil, err
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("read %s: %w", d.Path("plan.json"), err)
	}
	if p.Version == 1 {
		if err := p.fromV1(b); err != nil {
			return nil, fmt.Errorf("%s: refused: %w", d.Path("plan.json"), err)
		}
	}
	if p.Version != PlanVersion {
		return nil, fmt.Errorf("%s: plan version %d, this yardstick reads %d", d.Path("plan.json"), p.Version, PlanVersion)
	}
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("%s: refused: %w", d.Path("plan.json"), err)
	}
	if err := p.Verify(); err != nil {
		return nil, fmt.Errorf("%s: refused: %w", d.Path("plan.json"), err)
	}
	if err := d.checkPlanHash(&p); err != nil {
		return nil, err
	}
	return &p, nil
}

// checkPlanHash compares the plan's hash with the one environment.json
// recorded when the run began (the lock's record of which plan ran); a run
// directory without environment.json has no record to compare.
func (d *RunDir) checkPlanHash(p *Plan) error {
	var e struct {
		PlanHash string `json:"plan_hash"`
	}
	err := d.ReadJSON("environment.json", &e)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case e.PlanHash != p.Hash:
		return fmt.Errorf("%s: refused: plan hash %s, environment.json recorded %s when the run began: plan.json was changed after it was made",
			d.Path("plan.json"), shortHash(p.Hash), shortHash(e.PlanHash))
	}
	return nil
}

// WriteCheckpoint writes cells/<id>/checkpoint.json atomically, reaching
// the cell's directory without following a link (runfs).
func (d *RunDir) WriteCheckpoint(cp *Checkpoint) error {
	if !cellIDRE.MatchString(cp.CellID) {
		return fmt.Errorf("checkpoint: %q is not a cell id", cp.CellID)
	}
	if err := runfs.MkdirAll(d.Root, "cells/"+cp.CellID); err != nil {
		return fmt.Errorf("checkpoint %s: %w", cp.CellID, err)
	}
	return d.WriteJSON("cells/"+cp.CellID+"/checkpoint.json", cp)
}

// WriteJSON writes v as indented JSON to the file rel below Root
// atomically, reaching its directory without following a link (runfs).
func (d *RunDir) WriteJSON(rel string, v any) error {
	b, err := indentJSON(v)
	if err != nil {
		return fmt.Errorf("write %s: %w", d.Path(filepath.FromSlash(rel)), err)
	}
	return runfs.WriteFile(d.Root, rel, b)
}

// ReadCheckpoint reads a cell's checkpoint; it returns an error wrapping
// os.ErrNotExist when the cell has none, and an error for a checkpoint
// that does not parse, has another format version or belongs to another
// cell, or holds an impossible figure (CheckNumbers: a negative
// duration, a throughput of 1e308): a truncated or tampered file is not a
// finished cell.
func (d *RunDir) ReadCheckpoint(id string) (*Checkpoint, error) {
	if !cellIDRE.MatchString(id) {
		return nil, fmt.Errorf("checkpoint: %q is not a cell id", id)
	}
	path := filepath.Join(d.CellDir(id), "checkpoint.json")
	b, err := d.ReadFile("cells/"+id+"/checkpoint.json", runfs.JSON)
	if err != nil {
		return nil, err
	}
	if err := checkNewer(path, "checkpoint", b, CheckpointVersion); err != nil {
		return nil, err
	}
	var cp Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if cp.Version == 1 {
		if err := json.Unmarshal(b, (*checkpointV1)(&cp)); err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
	switch {
	case cp.Version != CheckpointVersion:
		return nil, fmt.Errorf("read %s: checkpoint version %d, this yardstick reads %d", path, cp.Version, CheckpointVersion)
	case cp.CellID != id:
		return nil, fmt.Errorf("read %s: the checkpoint of cell %q, not %s", path, cp.CellID, id)
	case cp.Status != StatusOK && cp.Status != StatusFailed:
		return nil, fmt.Errorf("read %s: status %q is neither %s nor %s", path, cp.Status, StatusOK, StatusFailed)
	}
	if err := CheckNumbers(&cp, false); err != nil {
		return nil, fmt.Errorf("read %s: refused: cell %s: %w", path, id, err)
	}
	if err := cp.checkTimes(); err != nil {
		return nil, fmt.Errorf("read %s: refused: cell %s: %w", path, id, err)
	}
	return &cp, nil
}

// HasCheckpoint reports whether the cell has finished (ok or failed): it
// has a checkpoint that reads back whole.
func (d *RunDir) HasCheckpoint(id string) bool {
	_, err := d.ReadCheckpoint(id)
	return err == nil
}

// SetAsideCheckpoint renames a cell's unreadable checkpoint to
// checkpoint.json.bad-<time>, so that the cell runs again and nothing is
// lost; it returns the new name.
func (d *RunDir) SetAsideCheckpoint(id string, now time.Time) (string, error) {
	if !cellIDRE.MatchString(id) {
		return "", fmt.Errorf("checkpoint: %q is not a cell id", id)
	}
	from := filepath.Join(d.CellDir(id), "checkpoint.json")
	to := from + ".bad-" + now.UTC().Format("20060102T150405.000000000Z")
	if err := os.Rename(from, to); err != nil {
		return "", fmt.Errorf("set aside checkpoint: %w", err)
	}
	return to, nil
}

// KeepStartRecord renames the start.json an earlier session left in the
// start directory dir (a run interrupted and resumed starts the same
// start again) to start.json.<N>, the first N from 1 that is free, so
// that the new start's record does not overwrite it. Nothing happens
// when dir has no start.json.
func KeepStartRecord(dir string) error {
	from := filepath.Join(dir, "start.json")
	if _, err := os.Lstat(from); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	for n := 1; n < 10000; n++ {
		to := fmt.Sprintf("%s.%d", from, n)
		if _, err := os.Lstat(to); errors.Is(err, fs.ErrNotExist) {
			if err := os.Rename(from, to); err != nil {
				return fmt.Errorf("keep the earlier start record: %w", err)
			}
			return nil
		}
	}
	return fmt.Errorf("keep the earlier start record: %s has 9999 of them", dir)
}

// Lock takes an exclusive lock on the run directory so that two runs never
// execute the same cells at once; it fails at once when another process
// holds it. The lock goes with the process, even on SIGKILL.
func (d *RunDir) Lock() (unlock func(), err error) {
	f, err := os.OpenFile(d.Path(".lock"), os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock run directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("run directory %s is in use by another yardstick", d.Root)
		}
		return nil, fmt.Errorf("lock run directory: %w", err)
	}
	return func() { f.Close() }, nil
}

// WriteJSONAtomic writes v as indented JSON to path through a temporary
// file in the same directory and a rename, so readers see the old file or
// the whole new one, never half of it.
func WriteJSONAtomic(path string, v any) error {
	b, err := indentJSON(v)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return WriteFileAtomic(path, b)
}

func indentJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return append(b, '\n'), err
}

// WriteFileAtomic writes data to path through a synced temporary file and
// a rename (runfs.WriteFile in path's directory: a link at path is
// replaced, never written through).
func WriteFileAtomic(path string, data []byte) error {
	return runfs.WriteFile(filepath.Dir(path), filepath.Base(path), data)
}
