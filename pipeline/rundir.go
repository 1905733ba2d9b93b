package pipeline

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
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
type RunDir struct {
	Root string
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
	if _, err := os.Stat(filepath.Join(root, "plan.json")); err != nil {
		return nil, fmt.Errorf("open run directory %s: no plan.json: %w", root, err)
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

// ReadPlan reads plan.json.
func (d *RunDir) ReadPlan() (*Plan, error) {
	var p Plan
	if err := readJSON(d.Path("plan.json"), &p); err != nil {
		return nil, err
	}
	if p.Version != PlanVersion {
		return nil, fmt.Errorf("%s: plan version %d, this yardstick reads %d", d.Path("plan.json"), p.Version, PlanVersion)
	}
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("%s: refused: %w", d.Path("plan.json"), err)
	}
	return &p, nil
}

// WriteCheckpoint writes cells/<id>/checkpoint.json atomically.
func (d *RunDir) WriteCheckpoint(cp *Checkpoint) error {
	if err := os.MkdirAll(d.CellDir(cp.CellID), 0o755); err != nil {
		return fmt.Errorf("checkpoint %s: %w", cp.CellID, err)
	}
	return WriteJSONAtomic(filepath.Join(d.CellDir(cp.CellID), "checkpoint.json"), cp)
}

// ReadCheckpoint reads a cell's checkpoint; it returns an error wrapping
// os.ErrNotExist when the cell has none, and an error for a checkpoint
// that does not parse, has another format version or belongs to another
// cell (a truncated or tampered file is not a finished cell).
func (d *RunDir) ReadCheckpoint(id string) (*Checkpoint, error) {
	if !cellIDRE.MatchString(id) {
		return nil, fmt.Errorf("checkpoint: %q is not a cell id", id)
	}
	path := filepath.Join(d.CellDir(id), "checkpoint.json")
	var cp Checkpoint
	if err := readJSON(path, &cp); err != nil {
		return nil, err
	}
	if cp.Version == 1 {
		if err := readJSON(path, (*checkpointV1)(&cp)); err != nil {
			return nil, err
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

// Lock takes an exclusive lock on the run directory so that two runs never
// execute the same cells at once; it fails at once when another process
// holds it. The lock goes with the process, even on SIGKILL.
func (d *RunDir) Lock() (unlock func(), err error) {
	f, err := os.OpenFile(d.Path(".lock"), os.O_CREATE|os.O_RDWR, 0o644)
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
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// WriteFileAtomic writes data to path through a synced temporary file and
// a rename.
func WriteFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, werr)
	}
	return nil
}

// maxJSONBytes bounds a JSON file of a run directory (plan, checkpoint,
// lock): a run directory may come from elsewhere.
const maxJSONBytes = 256 << 20

func readJSON(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxJSONBytes+1))
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxJSONBytes {
		return fmt.Errorf("read %s: more than %d bytes", path, maxJSONBytes)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}
