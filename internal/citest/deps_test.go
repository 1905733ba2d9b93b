package citest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the module root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".ci", "deps")); err != nil {
		t.Fatalf("no .ci/deps at %s: %v", dir, err)
	}
	return dir
}

// dryRun runs `.ci/deps -n groups...` with a PATH holding only the named
// commands (stubs that exit 0), as on a machine that has exactly those,
// and returns what it prints.
func dryRun(t *testing.T, have []string, groups ...string) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("no bash: %v", err)
	}
	bin := t.TempDir()
	for _, c := range have {
		if err := os.WriteFile(filepath.Join(bin, c), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bash, append([]string{filepath.Join(repoRoot(t), ".ci", "deps"), "-n"}, groups...)...)
	cmd.Env = []string{"PATH=" + bin, "HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf(".ci/deps -n %s: %v\n%s", strings.Join(groups, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

var jdk = []string{"javac", "jar", "java"}

// TestDepsDemo: make demo's group installs a JDK on a machine without one
// and nothing on a machine with one, whatever else is missing.
func TestDepsDemo(t *testing.T) {
	if got, want := dryRun(t, nil, "demo"), "would install: openjdk-17-jdk-headless"; got != want {
		t.Errorf("no JDK: %q, want %q", got, want)
	}
	if got, want := dryRun(t, []string{"javac", "jar"}, "demo"), "would install: openjdk-17-jdk-headless"; got != want {
		t.Errorf("javac and jar but no java: %q, want %q", got, want)
	}
	if got, want := dryRun(t, jdk, "demo"), "nothing to install"; got != want {
		t.Errorf("with a JDK: %q, want %q", got, want)
	}
}

// TestDepsGroups: each group names its own packages, a package needed by
// several groups once, and all is every group (what .ci/run installs).
func TestDepsGroups(t *testing.T) {
	cases := []struct {
		groups []string
		have   []string
		want   string
	}{
		{[]string{"integration"}, jdk, "would install: nodejs npm chromium python3-venv"},
		{[]string{"integration"}, append([]string{"node", "npm", "chromium", "python3"}, jdk...), "nothing to install"},
		{[]string{"frameworks"}, nil, "would install: maven nginx"},
		{[]string{"bench"}, jdk, "would install: wrk"},
		{[]string{"slurm"}, nil, "would install: slurm-wlm munge"},
		{[]string{"netns"}, nil, "would install: iproute2"},
		{[]string{"demo", "bench", "integration"}, nil, "would install: openjdk-17-jdk-headless wrk nodejs npm chromium python3-venv"},
		{[]string{"all"}, nil, "would install: openjdk-17-jdk-headless nodejs npm chromium python3-venv maven nginx wrk slurm-wlm munge iproute2"},
	}
	for _, c := range cases {
		if got := dryRun(t, c.have, c.groups...); got != c.want {
			t.Errorf(".ci/deps -n %s with %v: %q, want %q", strings.Join(c.groups, " "), c.have, got, c.want)
		}
	}
}

// TestDepsBadGroup: an unknown group is a usage error, not an empty list.
func TestDepsBadGroup(t *testing.T) {
	cmd := exec.Command("bash", filepath.Join(repoRoot(t), ".ci", "deps"), "-n", "demos")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("unknown group: %v, want exit 2\n%s", err, out)
	}
	if !strings.Contains(string(out), "unknown group demos") {
		t.Errorf("unknown group: %s", out)
	}
}

// TestMakeTargetsNameTheirGroups: what `make -n` would run for each target
// calls .ci/deps with exactly the groups the target uses, so make demo
// never installs the test suite's packages, and make test (Go alone) none.
func TestMakeTargetsNameTheirGroups(t *testing.T) {
	cases := map[string][]string{
		"demo":             {"demo"},
		"targets":          {"demo"},
		"build":            nil,
		"test":             nil,
		"test-integration": {"integration"},
		"bench":            {"bench", "demo"},
		"frameworks":       {"frameworks"},
		"slurm-test":       {"slurm", "demo"},
		"deps":             {"all"},
	}
	depsCall := regexp.MustCompile(`(?m)^\./\.ci/deps (.*)$`)
	for target, want := range cases {
		var got []string
		for _, m := range depsCall.FindAllStringSubmatch(makeN(t, target), -1) {
			got = append(got, m[1])
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("make -n %s calls .ci/deps with %q, want %q", target, got, want)
		}
	}
}

// TestDepsNotRoot: without root, .ci/deps installs nothing; it names what
// is missing and the apt-get command, and exits 1. (As root, the test runs
// it as nobody through setpriv, from a copy nobody can read.)
func TestDepsNotRoot(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot(t), ".ci", "deps"))
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: its parent is private to this user.
	dir, err := os.MkdirTemp("", "citest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "deps")
	if err := os.WriteFile(script, src, 0o755); err != nil {
		t.Fatal(err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("no bash: %v", err)
	}
	argv := []string{bash, script, "demo"}
	if os.Geteuid() == 0 {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Fatalf("running as root and no setpriv (util-linux) to drop to nobody: %v", err)
		}
		argv = append([]string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=" + dir, "HOME=" + dir}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("not root, no JDK: %v, want exit 1\n%s", err, out)
	}
	want := "missing: openjdk-17-jdk-headless; install them (apt-get install openjdk-17-jdk-headless) or run as root\n"
	if string(out) != want {
		t.Errorf("not root, no JDK: %q, want %q", out, want)
	}
}
