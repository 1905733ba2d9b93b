package sample

import "yardstick/loadgen/threadpin"

// pinAllThreads is the affinity fault: it restricts every thread of this
// process to cpus, whatever placement the process was started with, with
// the load generator's own pinning walk (package threadpin), which fails
// when the thread list does not settle.
func pinAllThreads(cpus []int) error { return threadpin.All(cpus) }
