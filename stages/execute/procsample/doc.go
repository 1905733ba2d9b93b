// Package procsample samples a benchmark target's processes from /proc
// during the measure window: resident memory, CPU time, threads, threads
// whose name matches a pattern (event-loop threads), and context switches,
// summed over the target's process group.
//
// A target runs in its own process group and may be a wrapper script with
// children, so every figure is a sum over the live members of the group
// ([GroupPIDs]). [Take] reads one [Sample]; a [Sampler] takes one at the
// start and then one per interval until its context ends or the group is
// gone. Processes and threads that exit while they are being read are
// skipped, not reported as errors.
//
// A Sampler does not read every process's stat at every sample to find
// the group's members: it lists /proc once a second and reads the stat of
// the processes new since the last listing (a new member is a fork of a
// member), reads every process's stat every 10 s (a process that joined
// with setpgid), and otherwise reads only the members' own files, kept
// open between samples and parsed in place from one reused buffer, with
// raw system calls (raw.go), at ticks of a timerfd (tick.go): neither
// wakes the Go runtime's sysmon. The sampler runs beside the load, so its
// cost per interval counts (docs/design.md#the-cost-of-measuring).
//
// All reads go through an [FS], so tests can point it at a fixture tree
// under testdata/fixtures instead of /proc.
//
// Two details of /proc shape the figures:
//
//   - voluntary_ctxt_switches and nonvoluntary_ctxt_switches in
//     /proc/<pid>/status count the main thread only, not the process; the
//     process figure is the sum over /proc/<pid>/task/<tid>/status. Threads
//     that have exited take their counts with them, so the sum can fall.
//   - CPU times are read in clock ticks of USER_HZ, which is 100 on Linux
//     whatever the kernel's HZ (procfs makes the same assumption).
package procsample
