package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"yardstick/pipeline"
	"yardstick/runner/scaleout"
	"yardstick/stages/execute"
)

// One batch at a time: a scale-out engine (runner/scaleout; runner/slurm
// is one) runs each batch of a run directory as its own task, perhaps on
// another node, as
// `yardstick run --resume RUNDIR --batch NAME`. Such a task runs only its
// batch's cells that have no checkpoint and records the node it ran on
// (nodes/<batch>.json); the fairness checks, the datasets and the report
// come once every task has ended, from Merge.

// ResumeBatch opens run directory rd to run batch's remaining cells: the
// plan is verified (Verify), the batch's binaries are compared with
// lock.json (drift refused unless allowDrift), and the batch's unreadable
// checkpoints are set aside. The machine is not compared with lock.json,
// which describes the host that created the run: ExecuteBatch compares it
// with the node the batch ran on before, if any.
func ResumeBatch(ctx context.Context, rd *pipeline.RunDir, batch string, allowDrift bool, o Options) (*pipeline.Plan, error) {
	p, err := rd.ReadPlan()
	if err != nil {
		return nil, err
	}
	if p.Batch(batch) == nil {
		return nil, fmt.Errorf("%s: the plan has no batch %q (it has %s)", rd.Root, batch, strings.Join(batchNames(p), ", "))
	}
	if err := Verify(rd, p); err != nil {
		return nil, err
	}
	lock, err := rd.ReadLock()
	if err != nil {
		return nil, fmt.Errorf("%s has no usable lock: %w", rd.Root, err)
	}
	current := execute.Lock(p, o.Workdir, Environment(ctx, p, o))
	var drift []pipeline.Drift
	for _, d := range lock.Diff(current) {
		if d.What == "binary" && binaryOfBatch(lock, current, d, batch) {
			drift = append(drift, d)
		}
	}
	if err := reportDrift("resume", rd, drift, allowDrift, o); err != nil {
		return nil, err
	}
	sub := OnlyBatch(p, batch)
	if err := o.Only.Check(sub.Cells); err != nil {
		return nil, err
	}
	return p, setAsideBadCheckpoints(rd, sub, o)
}

// binaryOfBatch reports whether drift d is about a binary of batch.
func binaryOfBatch(was, now *pipeline.Lock, d pipeline.Drift, batch string) bool {
	for _, l := range []*pipeline.Lock{was, now} {
		for _, b := range l.Binaries {
			if b.Batch == batch && b.Owner+" "+b.Role+" "+b.Path == d.Item {
				return true
			}
		}
	}
	return false
}

func batchNames(p *pipeline.Plan) []string {
	var out []string
	for _, b := range p.Batches {
		out = append(out, b.Name)
	}
	return out
}

// OnlyBatch returns a copy of plan p that holds batch and its cells only
// (ids, sequence numbers and start groups unchanged).
func OnlyBatch(p *pipeline.Plan, batch string) *pipeline.Plan {
	sub := *p
	sub.Batches, sub.Cells = nil, nil
	for _, b := range p.Batches {
		if b.Name == batch {
			sub.Batches = append(sub.Batches, b)
		}
	}
	for _, c := range p.Cells {
		if c.Batch == batch {
			sub.Cells = append(sub.Cells, c)
		}
	}
	return &sub
}

// ExecuteBatch runs batch's cells of rd that have no checkpoint, under the
// batch's lock (LockBatch), after recording this node in
// nodes/<batch>.json. When the batch ran before on a node whose
// fingerprint differs from this one's, it refuses (numbers of one batch
// are compared with each other, so they come from one kind of machine)
// unless allowDrift; the cross_node fairness check then fails the batch.
// It prints the batch's summary lines, and returns ErrReported when the
// task was interrupted or a cell failed. Fairness, datasets and the
// report are Merge's.
func ExecuteBatch(ctx context.Context, rd *pipeline.RunDir, p *pipeline.Plan, batch string, allowDrift bool, o Options) error {
	sub := OnlyBatch(p, batch)
	if err := CheckMachine(sub); err != nil {
		return err
	}
	unlock, err := rd.LockBatch(batch)
	if err != nil {
		return err
	}
	defer unlock()
	run := ThisNode(ctx, p, o)
	if err := checkNode(rd, batch, run, allowDrift, o); err != nil {
		return err
	}
	if err := rd.AppendNodeRun(batch, run); err != nil {
		return err
	}
	fmt.Fprintf(o.Stderr, "run directory: %s\nbatch %s on node %s\n", rd.Root, batch, run.Node)
	resume := "yardstick run --resume " + rd.Root + " --batch " + batch
	if o.Engine != nil {
		resume = o.Engine.Resubmit(rd.Root) + " (or run: " + resume + ")"
	}
	sum, err := runCells(ctx, rd, sub, allowDrift, o)
	if err != nil {
		return fmt.Errorf("run %s, batch %s: %w", rd.Root, batch, err)
	}
	if err := execute.WriteSummary(o.Stdout, rd, sub, o.Only); err != nil {
		return err
	}
	fmt.Fprintf(o.Stdout, "\nbatch %s: %d cell(s) planned: %d done, %d failed, %d already done, %d pending%s\nrun directory: %s\n",
		batch, sum.Planned+sum.NotNeeded, sum.Done, sum.Failed, sum.Skipped, sum.Pending, notNeeded(sum), rd.Root)
	if sum.Interrupted {
		fmt.Fprintf(o.Stderr, "interrupted; every process stopped; the finished cells are kept. Resubmit with: %s\n", resume)
		return ErrReported
	}
	return conclude(rd, sum, 0, o)
}

// ThisNode describes the node this process runs on, for nodes/<batch>.json:
// the task of the engine that runs it (Options.Engine), else the host
// name.
func ThisNode(ctx context.Context, p *pipeline.Plan, o Options) pipeline.NodeRun {
	e := Environment(ctx, p, o)
	r := pipeline.NodeRun{Started: e.Captured, Environment: e}
	if o.Engine != nil {
		if t, ok := o.Engine.Task(os.Getenv); ok {
			r.Node, r.Engine, r.Job, r.Group, r.Index = t.Node, o.Engine.Name(), t.Job, t.Group, t.Index
		}
	}
	if r.Node == "" {
		r.Node = e.Host
	}
	return r
}

// checkNode compares this node's fingerprint with the nodes the batch ran
// on before.
func checkNode(rd *pipeline.RunDir, batch string, run pipeline.NodeRun, allowDrift bool, o Options) error {
	prev, err := rd.ReadBatchNodes(batch)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	var drift []pipeline.Drift
	for _, r := range prev.Runs {
		was := pipeline.Lock{Fingerprint: r.Environment.Fingerprint}
		for _, d := range was.Diff(&pipeline.Lock{Fingerprint: run.Environment.Fingerprint}) {
			d.Item = fmt.Sprintf("%s (node %s, now %s)", d.Item, r.Node, run.Node)
			if !slices.Contains(drift, d) {
				drift = append(drift, d)
			}
		}
	}
	if len(drift) == 0 {
		return nil
	}
	if !allowDrift {
		fmt.Fprintf(o.Stderr, "batch %s refused on node %s: it ran before on a node with another fingerprint:\n", batch, run.Node)
		for _, d := range drift {
			fmt.Fprintf(o.Stderr, "  %s\n", d)
		}
		fmt.Fprintf(o.Stderr, "run it on a node like the first, or with --allow-drift (the cross_node check then fails the batch)\n")
		return ErrReported
	}
	fmt.Fprintf(o.Stderr, "batch %s: node %s differs from the batch's earlier node (allowed; cross_node will fail):\n", batch, run.Node)
	for _, d := range drift {
		fmt.Fprintf(o.Stderr, "  %s\n", d)
	}
	return nil
}

// Merge ends a run whose batches ran as separate tasks: the fairness
// checks, the datasets, the summary and the report, over every checkpoint
// there is. It runs nothing. It returns ErrReported when a cell failed,
// a cell is still pending (its task failed or was cancelled: the batches
// are named, to be resubmitted), or (with Strict) a fairness check failed.
func Merge(rd *pipeline.RunDir, p *pipeline.Plan, o Options) error {
	unlock, err := rd.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	var n pipeline.CellCounts
	pending := map[string]int{}
	for _, c := range p.Cells {
		if !o.Only.Selects(&c) {
			continue
		}
		// A checkpoint that does not read back whole is pending: its
		// batch is to be resubmitted.
		st, _ := rd.CellStatus(&c, nil)
		n.Add(st)
		if st == pipeline.StatusPending {
			pending[c.Batch]++
		}
	}
	sum := execute.Summary{Planned: n.Planned(), Done: n.OK, Failed: n.Failed, Pending: n.Pending}
	failedChecks, err := finish(rd, p, sum, o)
	if err != nil {
		return err
	}
	if len(pending) > 0 {
		for _, b := range p.Batches {
			if n := pending[b.Name]; n > 0 {
				fmt.Fprintf(o.Stderr, "batch %s: %d cell(s) pending: its task failed or was cancelled%s\n", b.Name, n, logsOf(o.Engine, rd.Root))
			}
		}
		fmt.Fprintf(o.Stderr, "resubmit the unfinished batches with: %s\n", resubmitOf(o.Engine, rd.Root))
		return ErrReported
	}
	return conclude(rd, sum, failedChecks, o)
}

// logsOf says where engine e keeps the tasks' logs, for a message.
func logsOf(e scaleout.Engine, rundir string) string {
	if e == nil {
		return ""
	}
	return " (see " + e.Logs(rundir) + ")"
}

// resubmitOf is the command that resubmits rundir's unfinished batches:
// the engine's, else one `run --resume --batch` per batch, by hand.
func resubmitOf(e scaleout.Engine, rundir string) string {
	if e == nil {
		return "yardstick run --resume " + rundir + " --batch NAME (for each batch named above)"
	}
	return e.Resubmit(rundir)
}
