package pipeline

import "yardstick/pipeline/cpuset"

// Others is the CPU time that other work on the machine took of one
// role's CPUs in a cell's kept window: the time the kernel counted as
// busy on those CPUs (/proc/stat user, nice and system) less the CPU time
// of what runs there by design (the target; or the load generator and
// the yardstick run process), plus the time a hypervisor gave the CPUs to
// other guests (steal). On a quiet machine it is near 0; a build, a
// browser or a neighbour's VM shows here, and so does why a window was
// not steady. It is measured only where nothing else of the run may use
// those CPUs: target and load generator sets disjoint, the services' set
// apart from the role's, on this host.
type Others struct {
	// CPUs is the role's CPU set.
	CPUs cpuset.Set `json:"cpus"`
	// BusyS is the busy time of those CPUs in the window (user, nice,
	// system), seconds summed over the CPUs; StealS their steal time.
	BusyS  float64 `json:"busy_s"`
	StealS float64 `json:"steal_s"`
	// OwnS is the CPU time in the window of what runs there by design.
	OwnS float64 `json:"own_s"`
	// WindowS is the window's length.
	WindowS float64 `json:"window_s"`
}

// BusyShare is the share of a role's CPUs that other work on the machine
// took from which a window counts as measured on a busy machine:
// a tenth of a CPU, far beyond a quiet machine's own housekeeping.
const BusyShare = 0.10

// Share is the others' CPU time as a fraction of the CPUs' time in the
// window: (busy - own, at least 0, + steal) / (window x CPUs).
func (o *Others) Share() float64 {
	if o == nil || o.WindowS <= 0 || len(o.CPUs) == 0 {
		return 0
	}
	return o.OtherS() / (o.WindowS * float64(len(o.CPUs)))
}

// OtherS is the others' CPU time: busy less own (at least 0), plus steal.
func (o *Others) OtherS() float64 {
	if o == nil {
		return 0
	}
	return max(o.BusyS-o.OwnS, 0) + o.StealS
}
