package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"

	"yardstick/pipeline/runfs"
)

// NodesVersion is the version of the nodes/<batch>.json format.
const NodesVersion = 1

// BatchNodes is nodes/<batch>.json: every time a batch was run on its own
// (`run --resume RUNDIR --batch NAME`, what a scale-out engine's task
// runs), the
// node it ran on and that node's environment. A batch never spans nodes
// within one attempt; a resubmitted batch may land on another node, and
// then has two runs here. A run directory run as a whole on one machine
// has no nodes/ directory: environment.json is its one machine.
type BatchNodes struct {
	Version int       `json:"version"`
	Batch   string    `json:"batch"`
	Runs    []NodeRun `json:"runs"`
}

// A NodeRun is one attempt of a batch on one node.
type NodeRun struct {
	// Node is the engine's name of the node, or the host name outside an
	// engine.
	Node string `json:"node"`
	// Engine names the scale-out engine that ran the attempt ("" when it
	// was run by hand). Job is the attempt's id in the engine, Group the
	// id of the set of tasks it belongs to (an array, an indexed job) and
	// Index its index there; all "" outside an engine.
	Engine  string    `json:"engine,omitempty"`
	Job     string    `json:"job_id,omitempty"`
	Group   string    `json:"array_job_id,omitempty"`
	Index   string    `json:"array_task_id,omitempty"`
	Started time.Time `json:"started"`
	// Environment is the node's, captured when the attempt began.
	Environment Environment `json:"environment"`
}

// NodesPath is nodes/<batch>.json.
func (d *RunDir) NodesPath(batch string) string { return d.Path("nodes", batch+".json") }

// ReadBatchNodes reads nodes/<batch>.json; it returns an error wrapping
// fs.ErrNotExist when the batch never ran on its own.
func (d *RunDir) ReadBatchNodes(batch string) (*BatchNodes, error) {
	if err := CheckName("batch", batch); err != nil {
		return nil, err
	}
	var n BatchNodes
	if err := d.readVersioned("nodes/"+batch+".json", "nodes", NodesVersion, &n); err != nil {
		return nil, err
	}
	switch {
	case n.Version != NodesVersion:
		return nil, fmt.Errorf("%s: nodes version %d, this yardstick reads %d", d.NodesPath(batch), n.Version, NodesVersion)
	case n.Batch != batch:
		return nil, fmt.Errorf("%s: the record of batch %q, not %s", d.NodesPath(batch), n.Batch, batch)
	}
	for i, r := range n.Runs {
		if r.Node == "" {
			return nil, fmt.Errorf("%s: run %d names no node", d.NodesPath(batch), i)
		}
	}
	return &n, nil
}

// ReadAllNodes reads the nodes record of every batch of p that has one,
// by batch name; a run directory without nodes/ gives an empty map.
func (d *RunDir) ReadAllNodes(p *Plan) (map[string]*BatchNodes, error) {
	out := map[string]*BatchNodes{}
	for _, b := range p.Batches {
		n, err := d.ReadBatchNodes(b.Name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, err
		}
		out[b.Name] = n
	}
	return out, nil
}

// AppendNodeRun adds run r to nodes/<batch>.json, atomically. The caller
// holds the batch's lock (LockBatch).
func (d *RunDir) AppendNodeRun(batch string, r NodeRun) error {
	n, err := d.ReadBatchNodes(batch)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		n = &BatchNodes{Version: NodesVersion, Batch: batch}
	case err != nil:
		return err
	}
	n.Runs = append(n.Runs, r)
	if err := runfs.MkdirAll(d.Root, "nodes"); err != nil {
		return fmt.Errorf("nodes: %w", err)
	}
	return d.WriteJSON("nodes/"+batch+".json", n)
}

// LockBatch takes the locks for running one batch of the run directory:
// the run's lock shared (so a whole-run `run --resume` waits for no one
// and is refused while a batch runs) and the batch's own lock exclusive
// (so two attempts of one batch never run at once). Batches of one run
// run side by side on different nodes. It fails at once when either lock
// is taken; the locks go with the process, even on SIGKILL.
func (d *RunDir) LockBatch(batch string) (unlock func(), err error) {
	if err := CheckName("batch", batch); err != nil {
		return nil, err
	}
	run, err := flockFile(d.Path(".lock"), syscall.LOCK_SH, d.Root)
	if err != nil {
		return nil, err
	}
	own, err := flockFile(d.Path(".lock-batch-"+batch), syscall.LOCK_EX, "batch "+batch+" of "+d.Root)
	if err != nil {
		run.Close()
		return nil, err
	}
	return func() { own.Close(); run.Close() }, nil
}

// flockFile opens path and locks it with how (LOCK_SH or LOCK_EX) without
// waiting; what names the locked thing in the error.
func flockFile(path string, how int, what string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", what, err)
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s is in use by another yardstick", what)
		}
		return nil, fmt.Errorf("lock %s: %w", what, err)
	}
	return f, nil
}
