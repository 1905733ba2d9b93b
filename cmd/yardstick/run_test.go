package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"yardstick/pipeline"
)

// The run scripts need the sample targets: they are built once per test
// binary and linked into every script's $WORK/bin; the JVM one (with the
// JDK) only for the suite that runs it (TestIntegrationScripts).
var (
	sampleOnce sync.Once
	sampleBin  string
	sampleErr  error
	jarOnce    sync.Once
	sampleJar  string
	jarErr     error
)

func buildSample() (string, error) {
	sampleOnce.Do(func() {
		dir, err := os.MkdirTemp("", "yardstick-sample-")
		if err != nil {
			sampleErr = err
			return
		}
		sampleBin = filepath.Join(dir, "sample-go")
		out, err := exec.Command("go", "build", "-o", sampleBin, "yardstick/targets/go").CombinedOutput()
		if err != nil {
			sampleErr = fmt.Errorf("build the Go sample target: %v\n%s", err, out)
		}
	})
	return sampleBin, sampleErr
}

func buildJar() (string, error) {
	jarOnce.Do(func() {
		dir, err := os.MkdirTemp("", "yardstick-sample-jvm-")
		if err != nil {
			jarErr = err
			return
		}
		sampleJar = filepath.Join(dir, "sample-jvm.jar")
		build := exec.Command("sh", "targets/java/build.sh", sampleJar)
		build.Dir = "../.."
		if out, err := build.CombinedOutput(); err != nil {
			jarErr = fmt.Errorf("build the JVM sample target (needs a JDK: apt-get install openjdk-17-jdk-headless): %v\n%s", err, out)
		}
	})
	return sampleJar, jarErr
}

// realRuns serializes the scripts that measure (run_*, rerun_*): they all
// pin targets to CPU 0 and load generators to CPU 1, and two at once would
// measure each other.
var realRuns sync.Mutex

func init() {
	scriptSetups = append(scriptSetups, func(e *testscript.Env) error {
		if name := filepath.Base(e.WorkDir); strings.HasPrefix(name, "script-run_") || strings.HasPrefix(name, "script-rerun_") {
			realRuns.Lock()
			e.Defer(realRuns.Unlock)
		}
		bin, err := buildSample()
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(e.WorkDir, "bin"), 0o755); err != nil {
			return err
		}
		e.Setenv("SAMPLE_BIN", bin)
		if jvm, _ := e.Values[jvmKey{}].(bool); jvm {
			jar, err := buildJar()
			if err != nil {
				return err
			}
			if err := os.Symlink(jar, filepath.Join(e.WorkDir, "bin", "sample-jvm.jar")); err != nil {
				return err
			}
		}
		return os.Symlink(bin, filepath.Join(e.WorkDir, "bin", "sample-go"))
	})
	scriptCmds["waitcheckpoints"] = cmdWaitCheckpoints
	scriptCmds["rundir"] = cmdRunDir
	scriptCmds["snapshot"] = cmdSnapshot
	scriptCmds["cellsonce"] = cmdCellsOnce
	scriptCmds["noleftovers"] = cmdNoLeftovers
	scriptCmds["freeport"] = cmdFreePort
	scriptCmds["cellstatus"] = cmdCellStatus
	scriptCmds["cellfield"] = cmdCellField
	scriptCmds["freeports"] = cmdFreePorts
	scriptCmds["replace"] = cmdReplace
	scriptCmds["fairnessrows"] = cmdFairnessRows
	scriptCmds["sameplan"] = cmdSamePlan
	scriptCmds["coldstarts"] = cmdColdStarts
	scriptCmds["firstbefore"] = cmdFirstBefore
	scriptCmds["subst"] = cmdSubst
}

func checkpoints(root string) []string {
	m, _ := filepath.Glob(filepath.Join(root, "results", "*", pipeline.RunIDPrefix+"*", "cells", "*", "checkpoint.json"))
	return m
}

// waitcheckpoints N: wait (at most 2 minutes) until N cells have
// checkpoints under $WORK/results.
func cmdWaitCheckpoints(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: waitcheckpoints N")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	deadline := time.Now().Add(2 * time.Minute)
	for len(checkpoints(ts.Getenv("WORK"))) < n {
		if time.Now().After(deadline) {
			ts.Fatalf("only %d checkpoints after 2 minutes", len(checkpoints(ts.Getenv("WORK"))))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rundir VAR...: set the VARs to the run directories under $WORK/results,
// oldest first (run ids sort by time); there must be exactly as many.
func cmdRunDir(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 || neg {
		ts.Fatalf("usage: rundir VAR...")
	}
	m, _ := filepath.Glob(filepath.Join(ts.Getenv("WORK"), "results", "*", pipeline.RunIDPrefix+"*"))
	if len(m) != len(args) {
		ts.Fatalf("want %d run directories, found %v", len(args), m)
	}
	sort.Strings(m)
	for i, v := range args {
		ts.Setenv(v, m[i])
	}
}

// snapshot RUNDIR FILE: record every checkpoint's start time.
func cmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: snapshot RUNDIR FILE")
	}
	rd := &pipeline.RunDir{Root: args[0]}
	p, err := rd.ReadPlan()
	ts.Check(err)
	snap := map[string]time.Time{}
	for _, c := range p.Cells {
		if cp, err := rd.ReadCheckpoint(c.ID); err == nil {
			snap[c.ID] = cp.Started
		}
	}
	b, _ := json.Marshal(snap)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), b, 0o644))
	ts.Logf("%d checkpoints before resume", len(snap))
}

// cellsonce RUNDIR SNAPSHOT: every planned cell has exactly one
// checkpoint, and those in the snapshot were not run again.
func cmdCellsOnce(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: cellsonce RUNDIR SNAPSHOT")
	}
	rd := &pipeline.RunDir{Root: args[0]}
	p, err := rd.ReadPlan()
	ts.Check(err)
	var snap map[string]time.Time
	b, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	ts.Check(json.Unmarshal(b, &snap))
	dirs, err := os.ReadDir(rd.Path("cells"))
	ts.Check(err)
	if len(dirs) != len(p.Cells) {
		ts.Fatalf("%d cell directories for %d planned cells", len(dirs), len(p.Cells))
	}
	for _, c := range p.Cells {
		cp, err := rd.ReadCheckpoint(c.ID)
		if err != nil {
			ts.Fatalf("cell %s (%s): no checkpoint: %v", c.ID, c.Name, err)
		}
		if cp.CellID != c.ID {
			ts.Fatalf("checkpoint of %s says cell %s", c.ID, cp.CellID)
		}
		if before, ok := snap[c.ID]; ok && !before.Equal(cp.Started) {
			ts.Fatalf("cell %s ran twice: started %s before the resume, %s after", c.Name, before, cp.Started)
		}
		if cp.Status != pipeline.StatusOK {
			ts.Fatalf("cell %s: %s: %s", c.Name, cp.Status, cp.Error)
		}
	}
}

// noleftovers DIR: no process but this one has DIR as its working
// directory or on its command line (targets and load generators run in
// the script's $WORK). Waits up to 5 s for dying processes to go.
func cmdNoLeftovers(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: noleftovers DIR")
	}
	dir := args[0]
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := leftovers(dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("processes left behind:\n%s", strings.Join(left, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func leftovers(dir string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue // a zombie has no resources left; its parent reaps it
		}
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		cl := strings.ReplaceAll(string(cmdline), "\x00", " ")
		if cwd == dir || strings.HasPrefix(cwd, dir+"/") || strings.Contains(cl, dir) {
			out = append(out, fmt.Sprintf("pid %d cwd %s: %s", pid, cwd, cl))
		}
	}
	return out
}

// freeport VAR: set VAR to a loopback TCP port that is free now, so that
// scripts do not collide with other servers on a shared machine.
func cmdFreePort(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: freeport VAR")
	}
	cmdFreePorts(ts, false, []string{args[0] + "_BASE", "1"})
	base, _ := strconv.Atoi(ts.Getenv(args[0] + "_BASE"))
	ts.Setenv(args[0], strconv.Itoa(base+1))
}

// subst FILE VAR...: replace $VAR in FILE by the variable's value (CUE
// files in scripts cannot read the environment).
func cmdSubst(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || neg {
		ts.Fatalf("usage: subst FILE VAR...")
	}
	f := ts.MkAbs(args[0])
	b, err := os.ReadFile(f)
	ts.Check(err)
	s := string(b)
	for _, v := range args[1:] {
		s = strings.ReplaceAll(s, "$"+v, ts.Getenv(v))
	}
	ts.Check(os.WriteFile(f, []byte(s), 0o644))
}

// cellstatus RUNDIR: print "name status error" for every planned cell.
func cmdCellStatus(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: cellstatus RUNDIR")
	}
	rd := &pipeline.RunDir{Root: args[0]}
	p, err := rd.ReadPlan()
	ts.Check(err)
	for _, c := range p.Cells {
		cp, err := rd.ReadCheckpoint(c.ID)
		if err != nil {
			fmt.Fprintf(ts.Stdout(), "%s pending\n", c.Name)
			continue
		}
		fmt.Fprintf(ts.Stdout(), "%s %s %s\n", c.Name, cp.Status, cp.Error)
	}
}

// cellfield RUNDIR CELLNAME PATH: print a field of the cell's checkpoint,
// PATH its JSON names joined by dots (window.warmup_capped); a missing
// field prints null.
func cmdCellField(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 || neg {
		ts.Fatalf("usage: cellfield RUNDIR CELLNAME PATH")
	}
	rd := &pipeline.RunDir{Root: args[0]}
	p, err := rd.ReadPlan()
	ts.Check(err)
	for _, c := range p.Cells {
		if c.Name != args[1] {
			continue
		}
		b, err := os.ReadFile(filepath.Join(args[0], "cells", c.ID, "checkpoint.json"))
		ts.Check(err)
		var v any
		ts.Check(json.Unmarshal(b, &v))
		for _, k := range strings.Split(args[2], ".") {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		out, err := json.Marshal(v)
		ts.Check(err)
		fmt.Fprintf(ts.Stdout(), "%s\n", out)
		return
	}
	ts.Fatalf("no cell %s in the plan", args[1])
}

// freeports VAR N: set VAR to a port P such that P+1 .. P+N are all free
// on loopback now. P is below the kernel's ephemeral range, where the load
// generators' own client sockets take their ports.
func cmdFreePorts(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: freeports VAR N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	for try := 0; try < 200; try++ {
		base := 10000 + rand.IntN(20000)
		ok := true
		for p := base + 1; p <= base+n && ok; p++ {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				ok = false
				continue
			}
			l.Close()
		}
		if ok {
			ts.Setenv(args[0], strconv.Itoa(base))
			return
		}
	}
	ts.Fatalf("no run of %d free ports found", n)
}

// replace FILE OLD NEW: replace OLD by NEW in FILE.
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 || neg {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	f := ts.MkAbs(args[0])
	b, err := os.ReadFile(f)
	ts.Check(err)
	if !strings.Contains(string(b), args[1]) {
		ts.Fatalf("%s does not contain %q", args[0], args[1])
	}
	ts.Check(os.WriteFile(f, []byte(strings.ReplaceAll(string(b), args[1], args[2])), 0o644))
}

// fairnessrows RUNDIR: print one line per fairness row:
// "check pass|FAIL batch subject", where subject is the cell's variant and
// point for a cell row, "batch" for a batch row.
func cmdFairnessRows(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: fairnessrows RUNDIR")
	}
	rd := &pipeline.RunDir{Root: args[0]}
	p, err := rd.ReadPlan()
	ts.Check(err)
	names := map[string]string{}
	for _, c := range p.Cells {
		names[c.ID] = c.Name
	}
	b, err := os.ReadFile(rd.Path("fairness.json"))
	ts.Check(err)
	var rows []pipeline.FairnessRow
	ts.Check(json.Unmarshal(b, &rows))
	for _, r := range rows {
		outcome := "pass"
		if !r.Pass {
			outcome = "FAIL"
		}
		subject := r.Scope
		if r.CellID != nil {
			subject = names[*r.CellID]
		}
		fmt.Fprintf(ts.Stdout(), "%s %s %s %s\n", r.Check, outcome, r.Batch, subject)
	}
}

// sameplan RUN_A RUN_B: both runs have the same plan hash and cell ids, in
// the same order.
func cmdSamePlan(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: sameplan RUN_A RUN_B")
	}
	a, err := (&pipeline.RunDir{Root: args[0]}).ReadPlan()
	ts.Check(err)
	b, err := (&pipeline.RunDir{Root: args[1]}).ReadPlan()
	ts.Check(err)
	if a.Hash != b.Hash || len(a.Cells) != len(b.Cells) {
		ts.Fatalf("plans differ: hash %s vs %s, %d vs %d cells", a.Hash, b.Hash, len(a.Cells), len(b.Cells))
	}
	for i := range a.Cells {
		if a.Cells[i].ID != b.Cells[i].ID {
			ts.Fatalf("cell %d: %s vs %s", i, a.Cells[i].ID, b.Cells[i].ID)
		}
		if _, err := (&pipeline.RunDir{Root: args[1]}).ReadCheckpoint(b.Cells[i].ID); err != nil {
			ts.Fatalf("cell %s has no checkpoint in %s", b.Cells[i].Name, args[1])
		}
	}
}

// coldstarts RUNDIR N: every ok cell has a cold start measured from its own
// start plus N start-only probes, and their median.
func cmdColdStarts(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: coldstarts RUNDIR N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	rd := &pipeline.RunDir{Root: args[0]}
	p, err := rd.ReadPlan()
	ts.Check(err)
	for _, c := range p.Cells {
		cp, err := rd.ReadCheckpoint(c.ID)
		ts.Check(err)
		cs := cp.ColdStart
		if cs == nil || cs.StartMS <= 0 || len(cs.ProbesMS) != n {
			ts.Fatalf("cell %s: cold start %+v, want a start and %d probes", c.Name, cs, n)
		}
		all := append([]float64{cs.StartMS}, cs.ProbesMS...)
		sort.Float64s(all)
		if cs.MedianMS != all[len(all)/2] && len(all)%2 == 1 {
			ts.Fatalf("cell %s: median %v of %v", c.Name, cs.MedianMS, all)
		}
	}
}

// firstbefore FILE MARK TEXT...: each TEXT occurs in FILE, the first time
// before the first MARK (a report lists its fairness failures before any
// batch's results).
func cmdFirstBefore(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 || neg {
		ts.Fatalf("usage: firstbefore FILE MARK TEXT...")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	s := string(b)
	mark := strings.Index(s, args[1])
	if mark < 0 {
		ts.Fatalf("%s: no %q", args[0], args[1])
	}
	for _, text := range args[2:] {
		i := strings.Index(s, text)
		if i < 0 || i > mark {
			ts.Fatalf("%s: %q first at %d, after %q at %d", args[0], text, i, args[1], mark)
		}
	}
}
