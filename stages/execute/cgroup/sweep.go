package cgroup

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/containerd/cgroups/v3/cgroup1"
)

// sweep removes the groups that a yardstick which no longer runs left
// behind (one killed with SIGKILL cannot remove its own): a group is named
// <pid>-<n> after the yardstick that made it, and only an empty group of
// a pid that is gone is removed (rmdir refuses a group with processes).
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
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
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
