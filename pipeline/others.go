package pipeline

import "yardstick/pipeline/cpuset"

// Others is the CPU time that other work on the machine took of the
// target's CPUs in a cell's kept window: the time the kernel counted as
// busy on those CPUs (/proc/stat user, nice and system) less the target's
// own CPU time, plus the time a hypervisor gave the CPUs to other guests
// (steal). On a quiet machine it is near 0; a build, a browser or a
// neighbour's VM on the target's CPUs shows here, and so does why a
// window was not steady. It is measured only where nothing else of the
// run may use those CPUs: a target CPU set disjoint from the load
// generator's and the services', on this host.
type Others struct {
	// CPUs is the target's CPU set.
	CPUs cpuset.Set `json:"cpus"`
	// BusyS is the busy time of those CPUs in the window (user, nice,
	// system), seconds summed over the CPUs; StealS their steal time.
	BusyS  float64 `json:"busy_s"`
	StealS float64 `json:"steal_s"`
	// TargetS is the target's own CPU time in the window.
	TargetS float64 `json:"target_s"`
	// WindowS is the window's length.
	WindowS float64 `json:"window_s"`
}

// BusyShare is the share of the target's CPUs that other work on the
// machine took from which a window counts as measured on a busy machine:
// a tenth of a CPU, far beyond a quiet machine's own housekeeping.
const BusyShare = 0.10

// Share is the others' CPU time as a fraction of the CPUs' time in the
// window: (busy - target, at least 0, + steal) / (window x CPUs).
func (o *Others) Share() float64 {
	if o == nil || o.WindowS <= 0 || len(o.CPUs) == 0 {
		return 0
	}
	return (max(o.BusyS-o.TargetS, 0) + o.StealS) / (o.WindowS * float64(len(o.CPUs)))
}
