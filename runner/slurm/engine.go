package slurm

import (
	"path/filepath"

	"yardstick/runner/scaleout"
)

// Engine is Slurm as a scale-out engine (scaleout.Engine): a task is a job
// array's task, told apart by the variables Slurm sets in its
// environment.
type Engine struct{}

var _ scaleout.Engine = Engine{}

// Name is "slurm".
func (Engine) Name() string { return "slurm" }

// Task reads the Slurm job this process runs in: SLURM_JOB_ID, the node
// (SLURMD_NODENAME), and the array and index when it is an array's task;
// false outside a Slurm job.
func (Engine) Task(getenv func(string) string) (scaleout.Task, bool) {
	job := getenv("SLURM_JOB_ID")
	if job == "" {
		return scaleout.Task{}, false
	}
	return scaleout.Task{Node: getenv("SLURMD_NODENAME"), Job: job,
		Group: getenv("SLURM_ARRAY_JOB_ID"), Index: getenv("SLURM_ARRAY_TASK_ID")}, true
}

// Resubmit is `yardstick slurm --resume RUNDIR`.
func (Engine) Resubmit(rundir string) string { return "yardstick slurm --resume " + rundir }

// Logs is the run directory's slurm/ directory.
func (Engine) Logs(rundir string) string { return filepath.Join(rundir, "slurm") }
