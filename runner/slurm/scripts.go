package slurm

import (
	"fmt"
	"os"
	"strings"

	"yardstick/pipeline"
)

// Prepared is slurm/prepared.json: what the scripts were written with,
// which every later submission, the merge and the status keep.
type Prepared struct {
	Self    string        `json:"self"`
	Workdir string        `json:"workdir"`
	Only    pipeline.Only `json:"only,omitzero"`
}

// ReadPrepared reads slurm/prepared.json; an error wrapping
// fs.ErrNotExist when the run directory was never prepared for Slurm.
func ReadPrepared(rd *pipeline.RunDir) (*Prepared, error) {
	var p Prepared
	if err := rd.ReadJSON("slurm/prepared.json", &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// WriteScripts writes slurm/batch-<name>.sh for every batch of p,
// slurm/array.sh and slurm/merge.sh, and slurm/prepared.json. They are
// plain sh scripts a person can read and submit again by hand; every path
// in them is absolute and quoted.
func WriteScripts(rd *pipeline.RunDir, p *pipeline.Plan, o Options) error {
	if err := os.MkdirAll(rd.Path("slurm"), 0o755); err != nil {
		return fmt.Errorf("slurm: %w", err)
	}
	if err := pipeline.WriteJSONAtomic(rd.Path("slurm", "prepared.json"), Prepared{Self: o.Self, Workdir: o.Workdir, Only: o.Only}); err != nil {
		return err
	}
	var cases strings.Builder
	for i, b := range p.Batches {
		if err := pipeline.CheckName("batch", b.Name); err != nil {
			return err
		}
		if err := writeScript(rd.Path("slurm", "batch-"+b.Name+".sh"), BatchScript(rd, b.Name, o)); err != nil {
			return err
		}
		fmt.Fprintf(&cases, "%d) exec /bin/sh %s ;;\n", i, quote(rd.Path("slurm", "batch-"+b.Name+".sh")))
	}
	array := "#!/bin/sh\n" +
		"# yardstick: the job array of run " + rd.ID() + " (written by yardstick slurm).\n" +
		"# Array index i runs the plan's i-th batch, whole, on one node.\n" +
		"case \"${SLURM_ARRAY_TASK_ID:-}\" in\n" + cases.String() +
		"*) echo \"yardstick: no batch has array index '${SLURM_ARRAY_TASK_ID:-}'\" >&2; exit 2 ;;\nesac\n"
	if err := writeScript(rd.Path("slurm", "array.sh"), array); err != nil {
		return err
	}
	merge := "#!/bin/sh\n" +
		"# yardstick: the merge job of run " + rd.ID() + " (written by yardstick slurm):\n" +
		"# fairness, datasets and report once every task has ended.\n" +
		"cd " + quote(o.Workdir) + " || exit 1\n" +
		quote(o.Self) + " slurm --merge " + quote(rd.Root) + "\n" +
		statusLines(rd, "merge-${SLURM_JOB_ID:-none}")
	return writeScript(rd.Path("slurm", "merge.sh"), merge)
}

// BatchScript is what the task of one batch runs: the batch's cells that
// have no checkpoint, on this node, then its exit status into
// slurm/status/. It is a script of its own so that a batch that needs
// another shape of job than an array task gets it here alone.
func BatchScript(rd *pipeline.RunDir, batch string, o Options) string {
	only := ""
	if !o.Only.All() {
		only = " --only " + quote(o.Only.String())
	}
	return "#!/bin/sh\n" +
		"# yardstick: batch " + batch + " of run " + rd.ID() + " (written by yardstick slurm).\n" +
		"# Runs the batch's cells that have no checkpoint; a finished cell never runs again.\n" +
		"cd " + quote(o.Workdir) + " || exit 1\n" +
		quote(o.Self) + " run --resume " + quote(rd.Root) + " --batch " + quote(batch) + only + "\n" +
		statusLines(rd, "task-${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID:-none}}_${SLURM_ARRAY_TASK_ID:-0}")
}

// statusLines record the exit status of the command before them in
// slurm/status/<name>.json (written whole: a temporary file, then a
// rename) and exit with it. A task killed before it ends leaves no file.
func statusLines(rd *pipeline.RunDir, name string) string {
	f := quote(rd.Path("slurm", "status")) + "/\"" + name + ".json\""
	return "rc=$?\n" +
		"mkdir -p " + quote(rd.Path("slurm", "status")) + "\n" +
		"printf '{\"job_id\":\"%s\",\"array_job_id\":\"%s\",\"array_task_id\":\"%s\",\"node\":\"%s\",\"exit\":%d}\\n' " +
		"\"${SLURM_JOB_ID:-}\" \"${SLURM_ARRAY_JOB_ID:-}\" \"${SLURM_ARRAY_TASK_ID:-}\" \"${SLURMD_NODENAME:-}\" \"$rc\" > " + f + ".tmp" +
		" && mv " + f + ".tmp " + f + "\n" +
		"exit $rc\n"
}

func writeScript(path, body string) error {
	if err := pipeline.WriteFileAtomic(path, []byte(body)); err != nil {
		return err
	}
	if err := os.Chmod(path, 0o755); err != nil {
		return fmt.Errorf("slurm: %w", err)
	}
	return nil
}

// quote quotes s for sh: single quotes, with each ' written as '\”.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
