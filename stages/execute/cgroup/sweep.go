package cgroup

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/containerd/cgroups/v3/cgroup1"
)

// sweep removes the groups that a yardstick which no longer runs left
// behind (one killed with SIGKILL cannot remove its own): a group is named
// <pid>-<n> after the yardstick that made it, and only a group of a pid
// that is gone is touched. What still runs in such a group is that run's
// (a target's child that left its process group, which the dead
// yardstick's reaper does not reach): the group is thawed (its yardstick
// may have died while Kill had it frozen), what it holds is killed, and
// the group is removed once empty.
func sweep() {
	for _, dir := range parents() {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			pid, _, ok := strings.Cut(e.Name(), "-")
			n, err := strconv.Atoi(pid)
			if !e.IsDir() || !ok || err != nil || n <= 0 || n == os.Getpid() || syscall.Kill(n, 0) != syscall.ESRCH {
				continue
			}
			p := filepath.Join(dir, e.Name())
			emptyStale(p)
			_ = os.Remove(p)
		}
	}
}

// emptyStale thaws the stale group at dir (v1's freezer.state, v2's
// cgroup.freeze, whichever it has) and kills its processes until it is
// empty or killWait has passed.
func emptyStale(dir string) {
	writeExisting(filepath.Join(dir, "freezer.state"), "THAWED")
	writeExisting(filepath.Join(dir, "cgroup.freeze"), "0")
	deadline := time.Now().Add(killWait)
	for {
		pids := procs(dir)
		if len(pids) == 0 || time.Now().After(deadline) {
			return
		}
		for _, pid := range pids {
			if pid != os.Getpid() {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		reapChildren(pids)
		time.Sleep(5 * time.Millisecond)
	}
}

// writeExisting writes s to the control file path if the group has it.
func writeExisting(path, s string) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return
	}
	_, _ = f.WriteString(s)
	_ = f.Close()
}

// procs lists the processes of the group at dir (its cgroup.procs).
func procs(dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out
}

// parents lists the directories the groups are made in: yardstick/ of
// each v1 controller, or /yardstick on v2.
func parents() []string {
	if Mode() == "v2" {
		return []string{filepath.Join(v2Root, "yardstick")}
	}
	subs, err := v1Hierarchy(true)()
	if err != nil {
		return nil
	}
	path := cgroup1.NestedPath("yardstick")
	var out []string
	for _, s := range subs {
		p, err := path(s.Name())
		pa, ok := s.(interface{ Path(string) string })
		if err == nil && ok {
			out = append(out, pa.Path(p))
		}
	}
	return out
}
