package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"yardstick/pipeline"
	"yardstick/pipeline/runfs"
)

// A TaskStatus is a job's exit status as its script recorded it in
// slurm/status/.
type TaskStatus struct {
	JobID       string `json:"job_id"`
	ArrayJobID  string `json:"array_job_id"`
	ArrayTaskID string `json:"array_task_id"`
	Node        string `json:"node"`
	Exit        int    `json:"exit"`
}

// BatchProgress is one batch's cells, from the checkpoints.
type BatchProgress struct {
	Batch                   string
	Index                   int
	Total, Done, OK, Failed int
	Node                    string // the last node it ran on; "" if none yet
}

// Progress counts the cells selected by only of every batch of p.
func Progress(rd *pipeline.RunDir, p *pipeline.Plan, only pipeline.Only) []BatchProgress {
	out := make([]BatchProgress, len(p.Batches))
	for i, b := range p.Batches {
		bp := BatchProgress{Batch: b.Name, Index: i}
		var n pipeline.CellCounts
		for _, c := range p.Cells {
			if c.Batch != b.Name || !only.Selects(&c) {
				continue
			}
			st, _ := rd.CellStatus(&c, nil) // unreadable: not done
			n.Add(st)
		}
		bp.Total, bp.Done, bp.OK, bp.Failed = n.Planned(), n.Finished(), n.OK, n.Failed
		if n, err := rd.ReadBatchNodes(b.Name); err == nil && len(n.Runs) > 0 {
			bp.Node = n.Runs[len(n.Runs)-1].Node
		}
		out[i] = bp
	}
	return out
}

// A JobState is what Slurm says of one job or array task.
type JobState struct {
	ID, State, Node, Reason string
}

// terminal lists the states of a job that has ended.
var terminal = []string{"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
	"PREEMPTED", "BOOT_FAIL", "DEADLINE", "SPECIAL_EXIT", "REVOKED"}

// Ended reports whether state is one of a job that has ended.
func Ended(state string) bool {
	first, _, _ := strings.Cut(state, " ")
	return slices.Contains(terminal, first)
}

// Jobs asks squeue for job id's state, one row per array task (-r); jobs
// that have left squeue's memory give no rows (there is no accounting
// database to ask: the run directory's status files say how they ended).
func Jobs(ctx context.Context, id string) ([]JobState, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "squeue", "-h", "-r", "--states=all", "-j", id, "-o", "%i|%T|%N|%r")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if strings.Contains(stderr.String(), "Invalid job id") {
			return nil, nil
		}
		return nil, fmt.Errorf("squeue -j %s: %w: %s", id, err, strings.TrimSpace(stderr.String()))
	}
	var rows []JobState
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 4 {
			continue
		}
		rows = append(rows, JobState{ID: f[0], State: f[1], Node: f[2], Reason: f[3]})
	}
	return rows, nil
}

// ReadStatus reads slurm/status/<name>.json; nil when there is none.
func ReadStatus(rd *pipeline.RunDir, name string) (*TaskStatus, error) {
	var s TaskStatus
	err := rd.ReadJSON("slurm/status/"+name+".json", &s)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// WriteStatus prints the run's cells per batch and the states of every
// submission's jobs.
func WriteStatus(ctx context.Context, w io.Writer, rd *pipeline.RunDir, p *pipeline.Plan) error {
	subs, err := ReadSubmissions(rd)
	if err != nil {
		return err
	}
	var only pipeline.Only
	if prep, err := ReadPrepared(rd); err == nil {
		only = prep.Only
	}
	fmt.Fprintf(w, "run directory: %s\n\n", rd.Root)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "batch\tindex\tcells done\tfailed\tnode")
	done, total := 0, 0
	for _, bp := range Progress(rd, p, only) {
		node := bp.Node
		if node == "" {
			node = "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d/%d\t%d\t%s\n", bp.Batch, bp.Index, bp.Done, bp.Total, bp.Failed, node)
		done, total = done+bp.Done, total+bp.Total
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "total: %d/%d cell(s) done\n", done, total)
	if len(subs) == 0 {
		fmt.Fprintln(w, "\nnever submitted to Slurm (no slurm/submissions.json)")
		return nil
	}
	for i, s := range subs {
		fmt.Fprintf(w, "\nsubmission %d (%s): array job %s, merge job %s\n", i+1, s.Time.Format(time.RFC3339), s.ArrayJob, s.MergeJob)
		states, err := Jobs(ctx, s.ArrayJob)
		if err != nil {
			return err
		}
		for k, idx := range s.Indices {
			id := s.ArrayJob + "_" + strconv.Itoa(idx)
			fmt.Fprintf(w, "  task %s (batch %s): %s\n", id, s.Batches[k], describe(rd, id, "task-"+id, states))
		}
		ms, err := Jobs(ctx, s.MergeJob)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  merge %s: %s\n", s.MergeJob, describe(rd, s.MergeJob, "merge-"+s.MergeJob, ms))
	}
	return nil
}

// describe says how job id stands: squeue's state while Slurm remembers
// the job, and the exit status its script recorded once it ended.
func describe(rd *pipeline.RunDir, id, statusName string, states []JobState) string {
	var parts []string
	for _, s := range states {
		if s.ID != id {
			continue
		}
		d := s.State
		if s.Node != "" && s.Node != "(null)" {
			d += " on " + s.Node
		}
		if s.Reason != "" && s.Reason != "None" {
			d += " (" + s.Reason + ")"
		}
		parts = append(parts, d)
	}
	st, err := ReadStatus(rd, statusName)
	switch {
	case err != nil:
		parts = append(parts, "status file unreadable: "+err.Error())
	case st != nil:
		parts = append(parts, fmt.Sprintf("exited %d on %s", st.Exit, st.Node))
	case len(parts) == 0:
		parts = append(parts, "not in squeue and no exit status: cancelled or killed before it ended (or not started)")
	}
	return strings.Join(parts, "; ")
}

// Wait blocks until merge job s.MergeJob has ended, printing each batch's
// progress to o.Stderr when it changes, then prints the merge job's log
// to o.Stdout and returns its exit status. ctx ends the wait, not the
// jobs.
func Wait(ctx context.Context, rd *pipeline.RunDir, p *pipeline.Plan, s *Submission, o Options, poll time.Duration) (int, error) {
	last := ""
	for {
		line := progressLine(Progress(rd, p, s.Only))
		if line != last {
			fmt.Fprintf(o.Stderr, "slurm: %s\n", line)
			last = line
		}
		states, err := Jobs(ctx, s.MergeJob)
		if err != nil && ctx.Err() == nil {
			return 0, err
		}
		if ended(states, s.MergeJob) {
			break
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("stopped waiting; the jobs go on (yardstick slurm --status %s): %w", rd.Root, ctx.Err())
		case <-time.After(poll):
		}
	}
	log, err := rd.ReadFile("slurm/logs/merge-"+s.MergeJob+".out", runfs.Log)
	if err == nil {
		if _, err := o.Stdout.Write(log); err != nil {
			return 0, err
		}
	}
	st, err := ReadStatus(rd, "merge-"+s.MergeJob)
	if err != nil {
		return 0, err
	}
	if st == nil {
		return 0, fmt.Errorf("merge job %s ended without an exit status (cancelled or killed): see %s", s.MergeJob, rd.Path("slurm", "logs"))
	}
	return st.Exit, nil
}

// ended reports whether job id has ended: squeue says so, or no longer
// knows it.
func ended(states []JobState, id string) bool {
	for _, s := range states {
		if s.ID == id {
			return Ended(s.State)
		}
	}
	return true
}

func progressLine(bps []BatchProgress) string {
	var parts []string
	for _, bp := range bps {
		d := fmt.Sprintf("%s %d/%d", bp.Batch, bp.Done, bp.Total)
		if bp.Node != "" {
			d += " on " + bp.Node
		}
		parts = append(parts, d)
	}
	return "cells done: " + strings.Join(parts, ", ")
}

// WriteTasks says how each task of submission s ended, from the exit
// statuses their scripts recorded (what the merge job reports; it does
// not ask Slurm).
func WriteTasks(w io.Writer, rd *pipeline.RunDir, s *Submission) error {
	fmt.Fprintf(w, "tasks of array job %s:\n", s.ArrayJob)
	for k, idx := range s.Indices {
		id := s.ArrayJob + "_" + strconv.Itoa(idx)
		st, err := ReadStatus(rd, "task-"+id)
		switch {
		case err != nil:
			return err
		case st == nil:
			fmt.Fprintf(w, "  task %s (batch %s): FAILED: no exit status: cancelled, killed or its node lost\n", id, s.Batches[k])
		case st.Exit != 0:
			fmt.Fprintf(w, "  task %s (batch %s): FAILED: exited %d on %s (log: %s)\n", id, s.Batches[k], st.Exit, st.Node, rd.Path("slurm", "logs", "task-"+id+".out"))
		default:
			fmt.Fprintf(w, "  task %s (batch %s): exited 0 on %s\n", id, s.Batches[k], st.Node)
		}
	}
	return nil
}
