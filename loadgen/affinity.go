package loadgen

import (
	"os"

	"github.com/prometheus/procfs"

	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
)

// OwnAffinity reads back the CPU mask of every thread of this process
// (Cpus_allowed_list in /proc/self/task/*/status): per mask, how many
// threads have it. A driver whose load generator runs on another node
// cannot read that node's /proc; the result carries the masks instead.
// Threads that exit meanwhile are left out; nil if none is read.
func OwnAffinity() pipeline.ThreadMasks {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil
	}
	threads, err := fs.AllThreads(os.Getpid())
	if err != nil {
		return nil
	}
	var out pipeline.ThreadMasks
	for _, t := range threads {
		st, err := t.NewStatus()
		if err != nil {
			continue
		}
		out.Add(cpuset.Of(st.CpusAllowedList), 1)
	}
	return out
}
