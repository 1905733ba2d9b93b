package runner

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"yardstick/loadgen"
	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
)

// asNobodyEnv makes the test binary print CheckMachine's answer for a
// plan with limits and exit: TestLimitsRefusedWithoutCgroups runs it as
// an unprivileged user.
const asNobodyEnv = "RUNNER_TEST_CHECK_LIMITS"

func TestMain(m *testing.M) {
	if os.Getenv(asNobodyEnv) != "" {
		err := CheckMachine(limitedPlan())
		if err == nil {
			os.Stdout.WriteString("accepted\n")
			os.Exit(0)
		}
		os.Stdout.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func limitedPlan() *pipeline.Plan {
	return &pipeline.Plan{Batches: []pipeline.Batch{{
		Name:      "main",
		Placement: pipeline.Placement{Target: cpuset.Set{0}, Loadgen: cpuset.Set{0}},
		Variants: []pipeline.Variant{
			{Label: "go-cpus0.5", Limits: &pipeline.Limits{CPUs: 0.5, PeriodUS: 100_000}},
			{Label: "plain"},
		},
	}}}
}

// TestLimitsRefusedWithoutCgroups: where control groups cannot be made
// (here: an unprivileged user), a plan whose targets declare limits is
// refused, naming the batch, the variants and what is missing. As root
// the check runs the test binary again as nobody; as another user, in
// this process.
func TestLimitsRefusedWithoutCgroups(t *testing.T) {
	var out string
	if os.Geteuid() == 0 {
		out = runAsNobody(t)
	} else {
		err := CheckMachine(limitedPlan())
		if err == nil {
			t.Fatal("a plan with limits was accepted by an unprivileged user")
		}
		out = err.Error()
	}
	for _, want := range []string{"batch main: go-cpus0.5 declare limits", "control group", "not root"} {
		if !strings.Contains(out, want) {
			t.Errorf("refusal %q lacks %q", out, want)
		}
	}
	t.Logf("refusal: %s", out)
	if strings.Contains(out, "plain") {
		t.Errorf("refusal names a variant without limits: %q", out)
	}
}

// runAsNobody runs a copy of the test binary as uid/gid 65534 and returns
// its output, which must say the plan was refused.
func runAsNobody(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// Up to, not including, the temporary directory itself: /tmp keeps its
	// sticky, world-writable mode (0755 on it broke apt's sandboxed user).
	top := filepath.Clean(os.TempDir())
	for d := dir; d != top && d != filepath.Dir(d) && strings.HasPrefix(d, top+string(filepath.Separator)); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "runner.test")
	copyFile(t, self, bin)
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), asNobodyEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	b, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("as nobody, a plan with limits was accepted: %s", b)
	}
	return string(b)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCheckMachineHoldDescriptors: a plan that holds more connections
// than this process's hard RLIMIT_NOFILE has room for is refused before
// anything starts, naming the batch and the limit to raise, where the
// limit cannot be raised; one that fits is not.
func TestCheckMachineHoldDescriptors(t *testing.T) {
	hard, raisable := loadgen.NoFileLimit()
	if hard == 0 || raisable {
		t.Skip("the hard RLIMIT_NOFILE is unknown or raisable here: nothing to refuse")
	}
	plan := func(n int) *pipeline.Plan {
		h := &pipeline.Hold{Protocol: "websocket", Steps: []int{n}, OpenRate: 1000, StepHold: pipeline.Duration(time.Second)}
		return &pipeline.Plan{Cells: []pipeline.Cell{{Batch: "conns", Point: pipeline.Point{Mode: "hold", Connections: n, Hold: h}}}}
	}
	err := CheckMachine(plan(int(hard)))
	if err == nil || !strings.Contains(err.Error(), "batch conns: ") || !strings.Contains(err.Error(), "ulimit -Hn") {
		t.Errorf("%d connections: %v", hard, err)
	}
	if err := CheckMachine(plan(10)); err != nil {
		t.Errorf("10 connections: %v", err)
	}
}
