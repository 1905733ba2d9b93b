//go:build netns

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"yardstick/datasets"
	"yardstick/internal/netnstest"
	"yardstick/loadgen"
	"yardstick/pipeline"
)

// The two-host tests (make netns-test, root and iproute2): two network
// namespaces joined by a veth pair stand for two hosts.

const twoHostCUE = `twohost: {
	description: "the load generator in one network namespace, the target in another"
	batches: main: {
		placement: {target: "0", loadgen: "1"HOSTS}
		windows: {serviceWarmup: "1s", warmup: "1s", measure: "2s", discardHead: "0s", readyTimeout: "20s"}
		sampling: {interval: "100ms", idleAfter: "200ms"}
		workload: {request: path: "/api/generated/{payload}", payload: [64], concurrency: [2, 8]}
		targets: go: {
			kind: "go"
			cmd: ["SAMPLE", "-addr", "LISTEN:{port}"]
			port:  PORT
			ready: "/ready"
		}
	}
}
`

// TestNetnsTwoHostRun runs a batch with its target in namespace A and its
// load generator in namespace B, and the same batch on one host: both end
// ok, the two-host run's load went to A's address from B, the target's
// PID (the one yardstick started through ip netns exec) was sampled, and
// the two-host numbers fill the same columns of cells.parquet and
// timeseries.parquet as the one-host run's.
func TestNetnsTwoHostRun(t *testing.T) {
	netnstest.Require(t)
	dir := t.TempDir()
	yardstick, sample := buildBinaries(t, dir)
	ns := netnstest.Setup(t)
	const port = 18555 // A is a fresh namespace: every port is free there
	writeDef(t, dir, "two.cue", `, hosts: "separate"`, sample, "0.0.0.0", port)
	hostFlags := []string{"--target-host", "netns:" + ns.A, "--loadgen-host", "netns:" + ns.B, "--target-addr", netnstest.AddrA}

	// A two-host batch without hosts fails at once, before a run directory.
	out, err := runYardstick(t, dir, yardstick, "run", "two.cue", "--out", "none")
	if err == nil || !strings.Contains(out, "no hosts were given") {
		t.Errorf("two-host batch without hosts: err %v, output:\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); err == nil {
		t.Errorf("a run directory was made for a run refused at its start")
	}
	// The load generator's own end is not the target host's address.
	bad := slices.Clone(hostFlags)
	bad[len(bad)-1] = netnstest.AddrB
	out, err = runYardstick(t, dir, yardstick, append([]string{"run", "two.cue", "--out", "none"}, bad...)...)
	if err == nil || !strings.Contains(out, "not an address of the target host") {
		t.Errorf("--target-addr %s: err %v, output:\n%s", netnstest.AddrB, err, out)
	}

	w := watchNamespaces(t, yardstick, sample, ns)
	out, err = runYardstick(t, dir, yardstick, append([]string{"run", "two.cue", "--out", "two"}, hostFlags...)...)
	w.stop()
	if err != nil {
		t.Fatalf("two-host run: %v\n%s\n%s", err, out, cellErrors(filepath.Join(dir, "two")))
	}
	two := runDir(t, filepath.Join(dir, "two"))
	checkTwoHostCells(t, two, w, fmt.Sprintf("http://%s:%d/", netnstest.AddrA, port))

	// The same batch on one host, for the columns a run fills.
	local := freeLoopbackPort(t)
	writeDef(t, dir, "one.cue", "", sample, "127.0.0.1", local)
	// It is only the reference for the columns: a cell of it that fails on
	// a busy machine is logged, and the columns come from the others.
	if out, err := runYardstick(t, dir, yardstick, "run", "one.cue", "--out", "one"); err != nil {
		t.Logf("one-host run: %v\n%s\n%s", err, out, cellErrors(filepath.Join(dir, "one")))
	}
	one := runDir(t, filepath.Join(dir, "one"))
	for _, table := range []string{"cells", "timeseries"} {
		sameColumns(t, table, filepath.Join(one, table+".parquet"), filepath.Join(two, table+".parquet"))
	}

	// The namespaces go with the test, and nothing of the run is left.
	if err := ns.Teardown(); err != nil {
		t.Fatal(err)
	}
	if netnstest.Exists(ns.A) || netnstest.Exists(ns.B) {
		t.Errorf("namespaces %s, %s still there after teardown", ns.A, ns.B)
	}
	if left := processesOf(yardstick, sample); len(left) > 0 {
		t.Errorf("processes left after the runs: %v", left)
	}
}

// TestNetnsLoadgenRefusesOtherAddresses drives the load generator in
// namespace B over the driver protocol, as a run does, with specs that
// name A's address without allowing it, or another address than the one
// allowed: it refuses each before sending anything.
func TestNetnsLoadgenRefusesOtherAddresses(t *testing.T) {
	netnstest.Require(t)
	dir := t.TempDir()
	yardstick, _ := buildBinaries(t, dir)
	ns := netnstest.Setup(t)
	for _, spec := range []loadgen.Spec{
		{URL: "http://" + netnstest.AddrA + ":18555/"},
		{URL: "http://10.213.0.3:18555/", Allow: []string{netnstest.AddrA}},
		{URL: "http://192.0.2.1:18555/", Allow: []string{netnstest.AddrA}},
		{URL: "http://" + netnstest.AddrA + ":18555/", Allow: []string{"10.213.0.0/30"}},
	} {
		spec.Connections, spec.Duration = 1, loadgen.Duration(time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, "ip", "netns", "exec", ns.B, yardstick, "loadgen", "--stdio")
		res, _, err := loadgen.DriveCommand(ctx, cmd, spec, nil)
		cancel()
		if err == nil || !(strings.Contains(err.Error(), "not a loopback address") || strings.Contains(err.Error(), "allow")) {
			t.Errorf("url %s allow %v: result %+v, err %v; want a refusal", spec.URL, spec.Allow, res, err)
		} else {
			t.Logf("url %s allow %v: %v", spec.URL, spec.Allow, err)
		}
	}
}

func writeDef(t *testing.T, dir, name, hosts, sample, listen string, port int) {
	t.Helper()
	s := strings.NewReplacer("HOSTS", hosts, "SAMPLE", sample, "LISTEN", listen, "PORT", strconv.Itoa(port)).Replace(twoHostCUE)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runYardstick(t *testing.T, dir, yardstick string, args ...string) (string, error) {
	t.Helper()
	return runFor(t, 3*time.Minute, dir, yardstick, args...)
}

func runDir(t *testing.T, results string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(results, "twohost", pipeline.RunIDPrefix+"*"))
	if len(m) != 1 {
		t.Fatalf("want one run directory under %s, found %v", results, m)
	}
	return m[0]
}

// cellErrors says why the cells under results failed, for a failed run.
func cellErrors(results string) string {
	m, _ := filepath.Glob(filepath.Join(results, "*", pipeline.RunIDPrefix+"*", "cells", "*", "checkpoint.json"))
	var b strings.Builder
	for _, f := range m {
		var cp pipeline.Checkpoint
		if data, err := os.ReadFile(f); err == nil && json.Unmarshal(data, &cp) == nil && cp.Error != "" {
			fmt.Fprintf(&b, "cell %s: %s\n", cp.CellName, cp.Error)
			if cp.Load != nil {
				var raw struct {
					Stopped  string `json:"stopped"`
					Requests int64  `json:"requests"`
				}
				_ = json.Unmarshal(cp.Load.Raw, &raw)
				fmt.Fprintf(&b, "  load generator: %d requests in all, stopped by %s; %d in the kept window\n", raw.Requests, raw.Stopped, cp.Load.Requests)
			}
		}
	}
	return b.String()
}

// A nsWatch records, while a run goes, which namespace each target and
// load generator process was in, read from /proc/PID/ns/net.
type nsWatch struct {
	mu                sync.Mutex
	target            map[int]string // pid -> namespace link
	loadgen           map[int]string
	inoA, inoB        string
	nsA, nsB          string
	yardstick, sample string
	done              chan struct{}
	wg                sync.WaitGroup
}

func watchNamespaces(t *testing.T, yardstick, sample string, ns *netnstest.Pair) *nsWatch {
	t.Helper()
	ino := func(name string) string {
		i, err := netnstest.Inode(name)
		if err != nil {
			t.Fatal(err)
		}
		return "net:[" + strconv.FormatUint(i, 10) + "]"
	}
	w := &nsWatch{target: map[int]string{}, loadgen: map[int]string{}, inoA: ino(ns.A), inoB: ino(ns.B), nsA: ns.A, nsB: ns.B,
		yardstick: yardstick, sample: sample, done: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		deadline := time.Now().Add(4 * time.Minute) // bounded, whatever the run does
		for time.Now().Before(deadline) {
			w.scan()
			select {
			case <-w.done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return w
}

func (w *nsWatch) stop() { close(w.done); w.wg.Wait() }

func (w *nsWatch) scan() {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		argv := cmdline(pid)
		if len(argv) == 0 {
			continue
		}
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", pid))
		if err != nil {
			continue
		}
		w.mu.Lock()
		switch {
		case argv[0] == w.sample:
			w.target[pid] = link
		case argv[0] == w.yardstick && slices.Contains(argv, "loadgen"):
			w.loadgen[pid] = link
		}
		w.mu.Unlock()
	}
}

func cmdline(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

func processesOf(bins ...string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if argv := cmdline(pid); len(argv) > 0 && slices.Contains(bins, argv[0]) {
			out = append(out, fmt.Sprintf("%d %s", pid, strings.Join(argv, " ")))
		}
	}
	return out
}

// checkTwoHostCells: every cell ok; its target's PID is one seen in A,
// sampled from here; its load generator ran in B and sent to url.
func checkTwoHostCells(t *testing.T, root string, w *nsWatch, url string) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.target) == 0 || len(w.loadgen) == 0 {
		t.Fatalf("saw %d target and %d load generator processes during the run", len(w.target), len(w.loadgen))
	}
	for pid, link := range w.target {
		if link != w.inoA {
			t.Errorf("target pid %d ran in %s, not in A (%s)", pid, link, w.inoA)
		}
	}
	for pid, link := range w.loadgen {
		if link != w.inoB {
			t.Errorf("load generator pid %d ran in %s, not in B (%s)", pid, link, w.inoB)
		}
	}
	rd := &pipeline.RunDir{Root: root}
	p, err := rd.ReadPlan()
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Cells) != 2 || !p.Batches[0].Placement.TwoHost() {
		t.Fatalf("plan: %d cells, placement %+v", len(p.Cells), p.Batches[0].Placement)
	}
	for _, c := range p.Cells {
		cp, err := rd.ReadCheckpoint(c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cp.Status != pipeline.StatusOK {
			t.Errorf("cell %s: %s: %s", c.Name, cp.Status, cp.Error)
			continue
		}
		if _, ok := w.target[cp.Target.PID]; !ok {
			t.Errorf("cell %s: target pid %d was not seen running sample-go in A (ip netns exec keeps the PID)", c.Name, cp.Target.PID)
		}
		rss := 0
		for _, s := range cp.Samples {
			if s.RSSBytes > 0 {
				rss++
			}
		}
		if rss == 0 || cp.Target.RSSSteadyBytes <= 0 || cp.Target.CPUSeconds <= 0 {
			t.Errorf("cell %s: /proc sampling of pid %d: %d samples with RSS, steady RSS %d, CPU %.3fs", c.Name, cp.Target.PID, rss, cp.Target.RSSSteadyBytes, cp.Target.CPUSeconds)
		}
		var raw struct {
			URL string `json:"url"`
		}
		if err := json.Unmarshal(cp.Load.Raw, &raw); err != nil || !strings.HasPrefix(raw.URL, url) {
			t.Errorf("cell %s: load generator url %q (%v), want %s...", c.Name, raw.URL, err, url)
		}
		if cp.Load.RPS <= 0 || cp.Load.Latency.P99 <= 0 || cp.Load.Errors != 0 {
			t.Errorf("cell %s: rps %.0f, p99 %d us, %d errors", c.Name, cp.Load.RPS, cp.Load.Latency.P99, cp.Load.Errors)
		}
		var rec pipeline.StartRecord
		if data, err := os.ReadFile(filepath.Join(root, "starts", cp.Start, "start.json")); err != nil || json.Unmarshal(data, &rec) != nil {
			t.Errorf("cell %s: start record of %s: %v", c.Name, cp.Start, err)
		} else if rec.PID != cp.Target.PID || rec.Hosts == nil || rec.Hosts.Target != "netns:"+w.nsA || rec.Hosts.Loadgen != "netns:"+w.nsB || rec.Hosts.TargetAddr != netnstest.AddrA {
			t.Errorf("cell %s: start record: pid %d (cell's target %d), hosts %+v", c.Name, rec.PID, cp.Target.PID, rec.Hosts)
		}
		if cp.Affinity == nil || len(cp.Affinity.Loadgen) == 0 || len(cp.Affinity.Target) == 0 {
			t.Errorf("cell %s: CPU masks not read: %+v", c.Name, cp.Affinity)
		}
		t.Logf("cell %s: %.0f rps, p99 %d us, target pid %d, RSS %d", c.Name, cp.Load.RPS, cp.Load.Latency.P99, cp.Target.PID, cp.Target.RSSSteadyBytes)
	}
}

// measured drops the rows of the one-host reference's failed cells.
func measured(t *testing.T, table, path string, rows []map[string]*string) []map[string]*string {
	t.Helper()
	failed := map[string]bool{}
	_, cells := rowsOf(t, filepath.Join(filepath.Dir(path), "cells.parquet"))
	for _, r := range cells {
		if deref(r["status"]) == "failed" {
			failed[deref(r["cell_id"])] = true
		}
	}
	var out []map[string]*string
	for _, r := range rows {
		if !failed[deref(r["cell_id"])] {
			out = append(out, r)
		}
	}
	if len(failed) > 0 {
		t.Logf("%s: one-host reference without %d failed cell(s): %d of %d rows", table, len(failed), len(out), len(rows))
	}
	return out
}

// rowsOf reads a table as rows of column -> value (nil for null).
func rowsOf(t *testing.T, path string) (cols []string, rows []map[string]*string) {
	t.Helper()
	tbl, _, err := datasets.ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	rows = make([]map[string]*string, tbl.NumRows())
	for i := range rows {
		rows[i] = map[string]*string{}
	}
	for ci := 0; ci < int(tbl.NumCols()); ci++ {
		col := tbl.Column(ci)
		name := col.Name()
		cols = append(cols, name)
		r := 0
		for _, chunk := range col.Data().Chunks() {
			for i := 0; i < chunk.Len(); i++ {
				if !chunk.IsNull(i) {
					v := valueStr(chunk, i)
					rows[r][name] = &v
				}
				r++
			}
		}
	}
	return cols, rows
}

func valueStr(a interface {
	ValueStr(int) string
}, i int) string {
	if d, ok := a.(*array.Dictionary); ok {
		return d.Dictionary().ValueStr(d.GetValueIndex(i))
	}
	return a.ValueStr(i)
}

// sameColumns: the two-host table has the one-host table's columns, every
// row ok and measured, and no column that the one-host run filled is
// null in the two-host run: in any cells row, in every timeseries row.
func sameColumns(t *testing.T, table, one, two string) {
	t.Helper()
	c1, all1 := rowsOf(t, one)
	c2, r2 := rowsOf(t, two)
	r1 := measured(t, table, one, all1)
	if !slices.Equal(c1, c2) {
		t.Fatalf("%s: columns differ:\none-host %v\ntwo-host %v", table, c1, c2)
	}
	if len(r2) == 0 || len(r1) == 0 {
		t.Fatalf("%s: %d one-host rows, %d two-host rows", table, len(r1), len(r2))
	}
	for _, col := range c1 {
		if slices.Contains(dataDependent, col) {
			continue
		}
		all1, any1 := filled(r1, col)
		all2, any2 := filled(r2, col)
		if table == "timeseries" || slices.Contains(perInterval, col) {
			if any1 && !any2 {
				t.Errorf("%s: %s is null in every two-host row, set in a one-host row", table, col)
			}
			continue
		}
		if all1 && !all2 {
			t.Errorf("%s: %s is null in a two-host row, set in every one-host row", table, col)
		}
	}
	var requests int64
	for i, r := range r2 {
		if table == "cells" && !measuredFairly(r) {
			t.Errorf("cells row %d: status %s, unfair checks %s", i, deref(r["status"]), deref(r["unfair_checks"]))
		}
		if v := r["requests"]; v != nil {
			n, _ := strconv.ParseInt(*v, 10, 64)
			requests += n
		}
	}
	if requests <= 0 {
		t.Errorf("%s: no requests in the two-host rows", table)
	}
	if table == "cells" {
		for i, r := range r2 {
			rps, _ := strconv.ParseFloat(deref(r["rps"]), 64)
			p99, _ := strconv.ParseFloat(deref(r["latency_p99_us"]), 64)
			if rps <= 0 || p99 <= 0 {
				t.Errorf("cells row %d: rps %q, latency_p99_us %q", i, deref(r["rps"]), deref(r["latency_p99_us"]))
			}
		}
	}
	t.Logf("%s: %d two-host rows, %d requests, same %d columns as the one-host run", table, len(r2), requests, len(c1))
}

// dataDependent are columns whose being null depends on the numbers, not
// on where they were measured: a steady state found or not, a check that
// failed or not. perInterval are the per-interval latencies, null in an
// interval in which no request completed (100 ms intervals on a busy
// machine); some interval must have them, as must every timeseries
// column (an interval may also pass without a /proc sample).
var (
	dataDependent = []string{"error", "unfair_checks", "steady_start_us", "steady_error"}
	perInterval   = []string{"p50_us", "p99_us", "max_us"}
)

// filled says whether col is set in every row, and in any row.
func filled(rows []map[string]*string, col string) (all, some bool) {
	all = true
	for _, r := range rows {
		all = all && r[col] != nil
		some = some || r[col] != nil
	}
	return all, some
}

// statistical are the checks that judge how steady the numbers are, not where they were measured: windows of two seconds on a
// shared 2-core machine are often neither steady nor quiet, on one host as
// on two.
var statistical = []string{"steady_state"}

// measuredFairly: the cell is ok, or unfair only by the statistical
// checks; every other check (affinity of the target and of the load
// generator among them) passed.
func measuredFairly(r map[string]*string) bool {
	switch deref(r["status"]) {
	case "ok":
		return true
	case "unfair":
		for _, c := range strings.Split(deref(r["unfair_checks"]), ",") {
			if !slices.Contains(statistical, strings.TrimSpace(c)) {
				return false
			}
		}
		return true
	}
	return false
}

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}
