//go:build slurm

package slurm_test

// The cluster test (make slurm-test): a throwaway Slurm cluster on this
// host (testdata/cluster-up.sh: munged, slurmctld, two slurmd nodes), the
// demo experiment through `yardstick slurm --wait`, then a second run
// whose array task is cancelled in the middle and resubmitted. It needs
// root, slurm-wlm and munge, and the demo's targets (make targets); it
// fails, never skips, without them.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"yardstick/datasets"
	"yardstick/pipeline"
	"yardstick/runner/slurm"
)

// cluster is a running test cluster.
type cluster struct {
	dir  string
	repo string
	bin  string // the yardstick binary under test
	env  []string
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	var missing []string
	for _, c := range []string{"sbatch", "squeue", "scancel", "sinfo", "slurmctld", "slurmd", "munged", "mungekey"} {
		if _, err := exec.LookPath(c); err != nil {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%s not found: install Slurm and munge (Debian: apt-get install slurm-wlm munge; make deps does it as root)", strings.Join(missing, ", "))
	}
	if os.Geteuid() != 0 {
		t.Fatal("the test cluster's slurmd runs jobs as their user, so the test must run as root")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"bin/sample-go", "bin/sample-jvm.jar"} {
		if _, err := os.Stat(filepath.Join(repo, f)); err != nil {
			t.Fatalf("the demo's target %s is missing: run make targets (make slurm-test does): %v", f, err)
		}
	}
	// The demo's targets write their access logs under results/.
	if err := os.MkdirAll(filepath.Join(repo, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := &cluster{repo: repo}
	c.bin = filepath.Join(t.TempDir(), "yardstick")
	build := exec.Command("go", "build", "-o", c.bin, "./cmd/yardstick")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// Not t.TempDir: munged, running as the munge user, must reach it.
	c.dir, err = os.MkdirTemp("", "yardstick-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		start := time.Now()
		out, err := exec.Command(filepath.Join(repo, "runner/slurm/testdata/cluster-down.sh"), c.dir).CombinedOutput()
		if err != nil {
			t.Errorf("cluster-down: %v\n%s", err, out)
		}
		t.Logf("cluster down in %s", time.Since(start).Round(time.Millisecond))
		if !t.Failed() {
			os.RemoveAll(c.dir)
		} else {
			t.Logf("cluster files kept for a look: %s", c.dir)
		}
	})
	start := time.Now()
	out, err := exec.Command(filepath.Join(repo, "runner/slurm/testdata/cluster-up.sh"), c.dir).CombinedOutput()
	if err != nil {
		t.Fatalf("cluster-up: %v\n%s", err, out)
	}
	t.Logf("cluster up in %s: %s", time.Since(start).Round(time.Millisecond), c.dir)
	c.env = append(os.Environ(), "SLURM_CONF="+filepath.Join(c.dir, "slurm.conf"))
	return c
}

// yardstick runs the binary under test in the repository, bounded by d.
func (c *cluster) yardstick(t *testing.T, d time.Duration, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Dir, cmd.Env = c.repo, c.env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	start := time.Now()
	err := cmd.Run()
	t.Logf("yardstick %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	if ctx.Err() != nil {
		t.Fatalf("yardstick %s: still running after %s\n%s\n%s", strings.Join(args, " "), d, o.String(), e.String())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

// slurmCmd runs a Slurm client command against the test cluster.
func (c *cluster) slurmCmd(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

var runDirRE = regexp.MustCompile(`(?m)^run directory: (.+)$`)

func runDir(t *testing.T, out string) *pipeline.RunDir {
	t.Helper()
	m := runDirRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no run directory in\n%s", out)
	}
	rd, err := pipeline.OpenRunDir(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// plannedIDs is what `yardstick plan` (and so `yardstick run`) makes of
// the demo: its plan hash and cell ids in order.
func (c *cluster) planned(t *testing.T) (string, []string) {
	t.Helper()
	out, errOut, code := c.yardstick(t, time.Minute, "plan", "experiments/demo.cue", "-t", "repeats=1", "--json")
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s", code, errOut)
	}
	var p pipeline.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range p.Cells {
		ids = append(ids, c.ID)
	}
	for _, b := range p.Batches {
		for _, v := range b.Variants {
			waitPortFree(t, v.Port)
		}
	}
	return p.Hash, ids
}

// waitPortFree waits up to a minute for nothing to answer on a port the
// demo's targets listen on: yardstick refuses a port that answers before
// its target starts, and on a shared machine another run may hold it.
func waitPortFree(t *testing.T, port int) {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	waitFor(t, time.Minute, func() (struct{}, bool) {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return struct{}{}, true
		}
		conn.Close()
		t.Logf("%s answers (another process holds the demo's port); waiting", addr)
		time.Sleep(2 * time.Second)
		return struct{}{}, false
	})
}

// checkLikeRun checks that rd holds what `yardstick run` of the demo
// leaves: the plan's cell ids, every checkpoint ok, the tables and the
// report, and per-node truth for the one batch.
func checkLikeRun(t *testing.T, rd *pipeline.RunDir, hash string, ids []string) {
	t.Helper()
	p, err := rd.ReadPlan()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range p.Cells {
		got = append(got, c.ID)
		cp, err := rd.ReadCheckpoint(c.ID)
		if err != nil {
			t.Errorf("cell %s: %v", c.Name, err)
		} else if cp.Status != pipeline.StatusOK {
			t.Errorf("cell %s: %s: %s", c.Name, cp.Status, cp.Error)
		}
	}
	if p.Hash != hash || !slices.Equal(got, ids) {
		t.Errorf("plan %s %v, yardstick plan says %s %v", p.Hash, got, hash, ids)
	}
	cells, _, err := datasets.Cells.Read(datasets.Cells.Path(rd.Root))
	if err != nil {
		t.Fatal(err)
	}
	var tabled []string
	for _, c := range cells {
		tabled = append(tabled, c.CellID)
		if c.Status != pipeline.StatusOK {
			// unfair is what a fairness check measured on a busy machine,
			// not a scheduling fault; it is logged, and the cell did run.
			checks := ""
			if c.UnfairChecks != nil {
				checks = *c.UnfairChecks
			}
			t.Logf("cell %s: %s (%s)", c.CellName, c.Status, checks)
		}
		if c.Status != pipeline.StatusOK && c.Status != pipeline.StatusUnfair {
			t.Errorf("cells.parquet: cell %s is %s", c.CellName, c.Status)
		}
	}
	if !slices.Equal(tabled, ids) {
		t.Errorf("cells.parquet ids %v, want %v", tabled, ids)
	}
	for _, f := range []string{"report/report.html", "report/report.md", "environment.parquet", "fairness.json"} {
		if _, err := os.Stat(rd.Path(f)); err != nil {
			t.Error(err)
		}
	}
	env, _, err := datasets.Environments.Read(datasets.Environments.Path(rd.Root))
	if err != nil {
		t.Fatal(err)
	}
	if len(env) != 1 || env[0].Node == nil || (*env[0].Node != "n1" && *env[0].Node != "n2") || env[0].Batches == nil || *env[0].Batches != "main" {
		t.Errorf("environment rows %+v: want one row, node n1 or n2, batches main", env)
	}
	b, err := os.ReadFile(rd.Path("fairness.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []pipeline.FairnessRow
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	crossNode := 0
	for _, r := range rows {
		if r.Check == "cross_node" {
			crossNode++
			if !r.Pass {
				t.Errorf("cross_node failed: %s", *r.Detail)
			}
		}
	}
	if crossNode != 1 {
		t.Errorf("%d cross_node rows, want 1", crossNode)
	}
}

func TestSlurm(t *testing.T) {
	c := startCluster(t)
	hash, ids := c.planned(t)

	t.Run("wait", func(t *testing.T) {
		out, errOut, code := c.yardstick(t, 4*time.Minute, "slurm", "experiments/demo.cue", "-t", "repeats=1", "--out", t.TempDir(), "--wait")
		rd := runDir(t, out)
		if code != 0 {
			t.Fatalf("slurm --wait: exit %d\n%s\n%s\n%s", code, out, errOut, jobLogs(rd))
		}
		if !strings.Contains(out, "report: "+rd.Path("report", "report.md")) || !strings.Contains(out, "4 cell(s) planned: 4 done, 0 failed") {
			t.Errorf("slurm --wait printed no summary like run's:\n%s", out)
		}
		checkLikeRun(t, rd, hash, ids)
		subs, err := slurm.ReadSubmissions(rd)
		if err != nil || len(subs) != 1 || subs[0].ArrayJob == subs[0].MergeJob {
			t.Fatalf("submissions %+v, %v", subs, err)
		}
		for _, name := range []string{"task-" + subs[0].ArrayJob + "_0", "merge-" + subs[0].MergeJob} {
			st, err := slurm.ReadStatus(rd, name)
			if err != nil || st == nil || st.Exit != 0 {
				t.Errorf("job %s: status %+v, %v", name, st, err)
			}
		}
		status, _, code := c.yardstick(t, time.Minute, "slurm", "--status", rd.Root)
		if code != 0 || !regexp.MustCompile(`main\s+0\s+4/4\s+0\s+n[12]`).MatchString(status) || !strings.Contains(status, "exited 0") {
			t.Errorf("slurm --status: exit %d\n%s", code, status)
		}
	})

	t.Run("two batches on two nodes", func(t *testing.T) { testTwoNodes(t, c) })

	t.Run("cancel and resubmit", func(t *testing.T) {
		out, errOut, code := c.yardstick(t, time.Minute, "slurm", "experiments/demo.cue", "-t", "repeats=1", "--out", t.TempDir())
		if code != 0 {
			t.Fatalf("slurm: exit %d\n%s\n%s", code, out, errOut)
		}
		rd := runDir(t, out)
		subs, err := slurm.ReadSubmissions(rd)
		if err != nil || len(subs) != 1 {
			t.Fatalf("submissions %+v, %v", subs, err)
		}
		first := subs[0]
		// Cancel the array task once its first cell has a checkpoint.
		done := waitFor(t, 3*time.Minute, func() (map[string][]byte, bool) {
			cps := checkpoints(t, rd, ids)
			return cps, len(cps) >= 1
		})
		if len(done) == len(ids) {
			t.Fatal("every cell finished before the cancel: nothing left to resume")
		}
		killed := time.Now()
		c.slurmCmd(t, "scancel", first.ArrayJob+"_0")
		t.Logf("cancelled task %s_0 with %d of %d cells done", first.ArrayJob, len(done), len(ids))
		// The merge job runs after the cancelled task (afterany) and
		// reports the pending batch.
		merge := waitFor(t, 2*time.Minute, func() (*slurm.TaskStatus, bool) {
			st, err := slurm.ReadStatus(rd, "merge-"+first.MergeJob)
			if err != nil {
				t.Fatal(err)
			}
			return st, st != nil
		})
		if merge.Exit == 0 {
			t.Errorf("the merge job of a cancelled task exited 0")
		}
		mergeLog, _ := os.ReadFile(rd.Path("slurm", "logs", "merge-"+first.MergeJob+".out"))
		for _, want := range []string{"batch main: ", "yardstick slurm --resume",
			"task " + first.ArrayJob + "_0 (batch main): FAILED: no exit status"} {
			if !strings.Contains(string(mergeLog), want) {
				t.Errorf("the merge job's log lacks %q:\n%s", want, mergeLog)
			}
		}
		if st, _ := slurm.ReadStatus(rd, "task-"+first.ArrayJob+"_0"); st != nil {
			t.Errorf("the cancelled task recorded an exit status: %+v", st)
		}
		before := checkpoints(t, rd, ids)

		out, errOut, code = c.yardstick(t, 4*time.Minute, "slurm", "--resume", rd.Root, "--wait")
		if code != 0 {
			t.Fatalf("slurm --resume --wait: exit %d\n%s\n%s\n%s", code, out, errOut, jobLogs(rd))
		}
		checkLikeRun(t, rd, hash, ids)
		// No finished cell ran again: its checkpoint is byte for byte the
		// one from before the cancel, and every other cell started after it.
		after := checkpoints(t, rd, ids)
		for id, b := range before {
			if !bytes.Equal(after[id], b) {
				t.Errorf("cell %s: its checkpoint changed on resubmission: it ran twice", id)
			}
		}
		for id := range after {
			if _, ok := before[id]; ok {
				continue
			}
			cp, err := rd.ReadCheckpoint(id)
			if err != nil {
				t.Fatal(err)
			}
			if !cp.Started.After(killed) {
				t.Errorf("cell %s started %s, before the cancel at %s", cp.CellName, cp.Started, killed)
			}
		}
		subs, err = slurm.ReadSubmissions(rd)
		if err != nil || len(subs) != 2 {
			t.Fatalf("submissions %+v, %v", subs, err)
		}
		taskLog, err := os.ReadFile(rd.Path("slurm", "logs", fmt.Sprintf("task-%s_0.out", subs[1].ArrayJob)))
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("batch main: %d cell(s) planned: %d done, 0 failed, %d already done, 0 pending", len(ids), len(ids)-len(before), len(before))
		if !strings.Contains(string(taskLog), want) {
			t.Errorf("the resubmitted task's log lacks %q:\n%s", want, taskLog)
		}
		nodes, err := rd.ReadBatchNodes("main")
		if err != nil || len(nodes.Runs) != 2 {
			t.Errorf("nodes/main.json: %+v, %v: want two attempts", nodes, err)
		}
	})
}

// testTwoNodes: two batches, two array tasks, one per node at the same
// time; the environment table has a row per node, and cross_node passes
// (the two nodes are one host).
func testTwoNodes(t *testing.T, c *cluster) {
	def := filepath.Join(c.repo, "runner/slurm/testdata/two.cue")
	out, errOut, code := c.yardstick(t, 3*time.Minute, "slurm", def, "--out", t.TempDir(), "--wait")
	rd := runDir(t, out)
	if code != 0 {
		t.Fatalf("slurm --wait: exit %d\n%s\n%s\n%s", code, out, errOut, jobLogs(rd))
	}
	p, err := rd.ReadPlan()
	if err != nil {
		t.Fatal(err)
	}
	for _, cell := range p.Cells {
		if cp, err := rd.ReadCheckpoint(cell.ID); err != nil || cp.Status != pipeline.StatusOK {
			t.Errorf("cell %s: %+v, %v", cell.Name, cp, err)
		}
	}
	env, _, err := datasets.Environments.Read(datasets.Environments.Path(rd.Root))
	if err != nil {
		t.Fatal(err)
	}
	nodes := map[string]string{}
	for _, e := range env {
		if e.Node == nil || e.Batches == nil {
			t.Fatalf("environment row without node or batches: %+v", e)
		}
		nodes[*e.Batches] = *e.Node
	}
	if len(env) != 2 || nodes["a"] == "" || nodes["b"] == "" || nodes["a"] == nodes["b"] {
		t.Errorf("environment rows by batches %v: want batches a and b on the two nodes", nodes)
	}
	b, err := os.ReadFile(rd.Path("fairness.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []pipeline.FairnessRow
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	var cross []string
	for _, r := range rows {
		if r.Check == "cross_node" {
			cross = append(cross, fmt.Sprintf("%s:%v", r.Batch, r.Pass))
		}
	}
	if strings.Join(cross, " ") != "a:true b:true" {
		t.Errorf("cross_node rows %v, want a and b passing", cross)
	}
}

// jobLogs returns the jobs' logs of rd, for a failure message.
func jobLogs(rd *pipeline.RunDir) string {
	var b strings.Builder
	logs, _ := filepath.Glob(rd.Path("slurm", "logs", "*.out"))
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		fmt.Fprintf(&b, "--- %s\n%s", filepath.Base(l), data)
	}
	return b.String()
}

// checkpoints reads the bytes of every cell's checkpoint there is.
func checkpoints(t *testing.T, rd *pipeline.RunDir, ids []string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, id := range ids {
		b, err := os.ReadFile(filepath.Join(rd.CellDir(id), "checkpoint.json"))
		if err == nil {
			out[id] = b
		}
	}
	return out
}

// waitFor polls f every 250 ms until it says done, or fails the test
// after d.
func waitFor[T any](t *testing.T, d time.Duration, f func() (T, bool)) T {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		v, ok := f()
		if ok {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("not done after %s", d)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
