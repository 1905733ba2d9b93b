package slurm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"yardstick/pipeline"
)

// TestScriptsRun runs the written scripts as a Slurm task would (the
// SLURM_* variables set), with a stand-in for yardstick that records its
// arguments and exits 3: the array index picks the batch, the command is
// run --resume RUNDIR --batch NAME in the working directory, and the exit
// status lands in slurm/status/. Paths with a quote and a space survive.
func TestScriptsRun(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "it's a run", "run=x")
	work := filepath.Join(tmp, "work dir")
	for _, d := range []string{root, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self := filepath.Join(tmp, "fake yardstick")
	fake := "#!/bin/sh\n{ pwd; for a in \"$@\"; do echo \"arg:$a\"; done; } > \"$0.args.$SLURM_JOB_ID\"\nexit 3\n"
	if err := os.WriteFile(self, []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	rd := &pipeline.RunDir{Root: root}
	p := &pipeline.Plan{Batches: []pipeline.Batch{{Name: "first"}, {Name: "second"}}}
	only, err := pipeline.ParseOnly("*/go/*")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Self: self, Workdir: work, Only: only}
	if err := WriteScripts(rd, p, o); err != nil {
		t.Fatal(err)
	}
	run := func(script string, env ...string) (int, string) {
		cmd := exec.Command("/bin/sh", rd.Path("slurm", script))
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	code, out := run("array.sh", "SLURM_JOB_ID=41", "SLURM_ARRAY_JOB_ID=40", "SLURM_ARRAY_TASK_ID=1", "SLURMD_NODENAME=n2")
	if code != 3 {
		t.Fatalf("array task exited %d, want the command's 3: %s", code, out)
	}
	args, err := os.ReadFile(self + ".args.41")
	if err != nil {
		t.Fatal(err)
	}
	want := work + "\narg:run\narg:--resume\narg:" + root + "\narg:--batch\narg:second\narg:--only\narg:*/go/*\n"
	if string(args) != want {
		t.Errorf("the task ran\n%s\nwant\n%s", args, want)
	}
	st, err := ReadStatus(rd, "task-40_1")
	if err != nil || st == nil {
		t.Fatalf("status: %v, %v", st, err)
	}
	if st.Exit != 3 || st.Node != "n2" || st.ArrayJobID != "40" || st.ArrayTaskID != "1" || st.JobID != "41" {
		t.Errorf("status %+v", st)
	}

	if code, out := run("array.sh", "SLURM_ARRAY_TASK_ID=2"); code != 2 || !strings.Contains(out, "no batch has array index '2'") {
		t.Errorf("index out of range: exit %d, %s", code, out)
	}

	if code, _ := run("merge.sh", "SLURM_JOB_ID=42", "SLURMD_NODENAME=n1"); code != 3 {
		t.Errorf("merge exited %d, want 3", code)
	}
	args, err = os.ReadFile(self + ".args.42")
	if err != nil {
		t.Fatal(err)
	}
	if want := work + "\narg:slurm\narg:--merge\narg:" + root + "\n"; string(args) != want {
		t.Errorf("the merge ran\n%s\nwant\n%s", args, want)
	}
	if st, err := ReadStatus(rd, "merge-42"); err != nil || st == nil || st.Exit != 3 {
		t.Errorf("merge status %+v, %v", st, err)
	}
}

func TestCheckOptions(t *testing.T) {
	rd := &pipeline.RunDir{Root: "/r/run=x"}
	if err := checkOptions(rd, Options{Self: "bin/yardstick", Workdir: "/w"}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("relative yardstick: %v", err)
	}
	// a bad --only glob cannot be an Options value; one written into
	// slurm/prepared.json by hand is refused when read
	dir := &pipeline.RunDir{Root: t.TempDir()}
	if err := os.MkdirAll(dir.Path("slurm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := pipeline.WriteJSONAtomic(dir.Path("slurm", "prepared.json"), map[string]string{"self": "/y", "workdir": "/w", "only": "["}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPrepared(dir); err == nil || !strings.Contains(err.Error(), "syntax error in pattern") {
		t.Errorf("prepared.json with --only \"[\": %v", err)
	}
	if err := checkOptions(rd, Options{Self: "/bin/yardstick", Workdir: "/w"}); err != nil {
		t.Error(err)
	}
}

func TestEnded(t *testing.T) {
	for state, want := range map[string]bool{"COMPLETED": true, "CANCELLED by 0": true, "NODE_FAIL": true, "RUNNING": false, "PENDING": false, "COMPLETING": false, "": false} {
		if Ended(state) != want {
			t.Errorf("Ended(%q) = %v", state, !want)
		}
	}
	if !ended(nil, "7") {
		t.Error("a job squeue no longer knows has not ended")
	}
	if ended([]JobState{{ID: "7", State: "RUNNING"}}, "7") {
		t.Error("a running job ended")
	}
}
