// Package slurm runs a run directory on a Slurm cluster: one job array
// whose tasks each run one whole batch on one node (`yardstick run
// --resume RUNDIR --batch NAME`), and one merge job, started after every
// task has ended (--dependency=afterany), that checks fairness and writes
// the datasets and the report (`yardstick slurm --merge RUNDIR`).
//
// The run directory must be on a filesystem every node shares: the tasks
// write their checkpoints into it, and the scripts, the task logs and the
// tasks' exit statuses live under its slurm/ directory:
//
//	slurm/batch-<name>.sh  what one batch's task runs (BatchScript)
//	slurm/array.sh         the array's script: array index -> batch script
//	slurm/merge.sh         the merge job's script
//	slurm/prepared.json    what the scripts were written with (Prepared)
//	slurm/submissions.json every submission: job ids, indices, sbatch argv
//	slurm/logs/            the jobs' stdout and stderr
//	slurm/status/          one JSON file per ended task or merge job
//
// A batch's array index is its position in the plan, so a resubmission
// (Resume) names the same scripts with the indices still to run. A task
// that fails or is cancelled leaves its finished cells' checkpoints; the
// resubmitted task runs only the others.
package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"yardstick/pipeline"
)

// Options configure a submission.
type Options struct {
	// Self is the absolute path of the yardstick binary the jobs run.
	Self string
	// Workdir is where the jobs run (relative paths of the plan resolve
	// against it); absolute.
	Workdir string
	// Only is the --only selector the tasks and the merge get.
	Only pipeline.Only
	// SbatchArgs are added to every sbatch command line (before the
	// script): a partition, an account, a time limit.
	SbatchArgs []string
	// Stdout receives what a person reads; Stderr progress.
	Stdout, Stderr io.Writer
}

// A Submission is one array and its merge job (slurm/submissions.json).
type Submission struct {
	ArrayJob string        `json:"array_job"`
	MergeJob string        `json:"merge_job"`
	Indices  []int         `json:"indices"`
	Batches  []string      `json:"batches"`
	Only     pipeline.Only `json:"only,omitzero"`
	Array    []string      `json:"array_argv"`
	Merge    []string      `json:"merge_argv"`
	Time     time.Time     `json:"submitted"`
}

// ErrNoSbatch says sbatch is not installed here.
var ErrNoSbatch = errors.New("sbatch not found: run on a Slurm login node, or install Slurm (Debian: apt-get install slurm-wlm munge) and set SLURM_CONF")

// Check says whether Slurm's client commands are here.
func Check() error {
	for _, c := range []string{"sbatch", "squeue"} {
		if _, err := exec.LookPath(c); err != nil {
			return ErrNoSbatch
		}
	}
	return nil
}

// Submit writes the scripts of run directory rd into rd/slurm/ and submits
// the array for every batch with a selected cell that has no checkpoint,
// then the merge job.
func Submit(ctx context.Context, rd *pipeline.RunDir, p *pipeline.Plan, o Options) (*Submission, error) {
	if err := checkOptions(rd, o); err != nil {
		return nil, err
	}
	if err := WriteScripts(rd, p, o); err != nil {
		return nil, err
	}
	idx := Unfinished(rd, p, o.Only)
	if len(idx) == 0 {
		return nil, fmt.Errorf("%s: no batch has a cell left to run", rd.Root)
	}
	return submit(ctx, rd, p, idx, o)
}

// Resume submits again the batches of rd that still have cells without a
// checkpoint (their task failed, was cancelled or preempted, or the first
// submission failed), and a new merge job; the scripts and the --only
// glob are the ones Submit wrote.
func Resume(ctx context.Context, rd *pipeline.RunDir, p *pipeline.Plan, o Options) (*Submission, error) {
	prep, err := ReadPrepared(rd)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s was never prepared for Slurm (no slurm/prepared.json): use yardstick run --resume", rd.Root)
	}
	if err != nil {
		return nil, err
	}
	o.Only = prep.Only
	if err := checkOptions(rd, o); err != nil {
		return nil, err
	}
	idx := Unfinished(rd, p, o.Only)
	if len(idx) == 0 {
		return nil, fmt.Errorf("%s: every cell has a checkpoint; nothing to resubmit (yardstick slurm --merge %s rebuilds the datasets)", rd.Root, rd.Root)
	}
	return submit(ctx, rd, p, idx, o)
}

func checkOptions(rd *pipeline.RunDir, o Options) error {
	for what, path := range map[string]string{"the yardstick binary": o.Self, "the working directory": o.Workdir, "the run directory": rd.Root} {
		if !filepath.IsAbs(path) {
			return fmt.Errorf("slurm: %s %q must be an absolute path (the jobs run elsewhere)", what, path)
		}
	}
	return nil
}

// Unfinished returns the array indices (plan positions) of the batches
// with a cell selected by only that has no checkpoint.
func Unfinished(rd *pipeline.RunDir, p *pipeline.Plan, only pipeline.Only) []int {
	var out []int
	for i, b := range p.Batches {
		for _, c := range p.Cells {
			if c.Batch == b.Name && only.Selects(&c) && !rd.HasCheckpoint(c.ID) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

func submit(ctx context.Context, rd *pipeline.RunDir, p *pipeline.Plan, idx []int, o Options) (*Submission, error) {
	if err := os.MkdirAll(rd.Path("slurm", "logs"), 0o755); err != nil {
		return nil, fmt.Errorf("slurm: %w", err)
	}
	if err := os.MkdirAll(rd.Path("slurm", "status"), 0o755); err != nil {
		return nil, fmt.Errorf("slurm: %w", err)
	}
	s := &Submission{Indices: idx, Only: o.Only, Time: time.Now().UTC()}
	list := make([]string, len(idx))
	for i, n := range idx {
		list[i] = strconv.Itoa(n)
		s.Batches = append(s.Batches, p.Batches[n].Name)
	}
	s.Array = append([]string{"sbatch", "--parsable",
		"--job-name=yardstick-" + p.Experiment,
		"--array=" + strings.Join(list, ","),
		"--exclusive",
		"--output=" + rd.Path("slurm", "logs", "task-%A_%a.out"),
	}, o.SbatchArgs...)
	s.Array = append(s.Array, rd.Path("slurm", "array.sh"))
	var err error
	if s.ArrayJob, err = sbatch(ctx, s.Array); err != nil {
		return nil, fmt.Errorf("%w (nothing was submitted; submit the run directory later with yardstick slurm --resume %s)", err, rd.Root)
	}
	s.Merge = append([]string{"sbatch", "--parsable",
		"--job-name=yardstick-" + p.Experiment + "-merge",
		"--dependency=afterany:" + s.ArrayJob,
		"--output=" + rd.Path("slurm", "logs", "merge-%j.out"),
	}, o.SbatchArgs...)
	s.Merge = append(s.Merge, rd.Path("slurm", "merge.sh"))
	if s.MergeJob, err = sbatch(ctx, s.Merge); err != nil {
		return nil, fmt.Errorf("%w (the array, job %s, was submitted: cancel it with scancel %s, or merge by hand with yardstick slurm --merge %s)", err, s.ArrayJob, s.ArrayJob, rd.Root)
	}
	subs, err := ReadSubmissions(rd)
	if err != nil {
		return nil, err
	}
	if err := pipeline.WriteJSONAtomic(rd.Path("slurm", "submissions.json"), append(subs, *s)); err != nil {
		return nil, err
	}
	return s, nil
}

// sbatch runs argv (sbatch --parsable ...) and returns the job id.
func sbatch(ctx context.Context, argv []string) (string, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("slurm: %s: %w: %s", strings.Join(argv, " "), err, strings.TrimSpace(stderr.String()))
	}
	// --parsable prints "jobid" or "jobid;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", fmt.Errorf("slurm: %s printed %q, not a job id", argv[0], strings.TrimSpace(string(out)))
	}
	return id, nil
}

// ReadSubmissions reads slurm/submissions.json; none when it does not
// exist.
func ReadSubmissions(rd *pipeline.RunDir) ([]Submission, error) {
	var subs []Submission
	err := rd.ReadJSON("slurm/submissions.json", &subs)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return subs, err
}
