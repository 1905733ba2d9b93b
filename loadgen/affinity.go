package loadgen

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"yardstick/pipeline/cpuset"
)

// OwnAffinity reads back the CPU mask of every thread of this process
// (Cpus_allowed_list in /proc/self/task/*/status): per mask ("1", "2-3"),
// how many threads have it. A driver whose load generator runs on another
// node cannot read that node's /proc; the result carries the masks
// instead. Threads that exit meanwhile are left out; nil if none is read.
func OwnAffinity() map[string]int {
	tids, err := threadIDs()
	if err != nil {
		return nil
	}
	var out map[string]int
	for _, tid := range tids {
		mask, ok := threadMask(filepath.Join("/proc/self/task", strconv.Itoa(tid), "status"))
		if !ok {
			continue
		}
		if out == nil {
			out = map[string]int{}
		}
		out[mask]++
	}
	return out
}

func threadMask(status string) (string, bool) {
	f, err := os.Open(status)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Cpus_allowed_list:"); ok {
			set, err := cpuset.Parse(strings.TrimSpace(v))
			if err != nil {
				return "", false
			}
			return set.String(), true
		}
	}
	return "", false
}
