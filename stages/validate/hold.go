package validate

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// The connection-holding workload's static checks (workload.hold): what
// CUE cannot say with good positions, and what this machine cannot hold.

const (
	// holdPortHeadroom is the share of one source address's ephemeral
	// ports the load generator fills at most (loadgen.PortHeadroom).
	holdPortHeadroom = 0.75
	// holdMaxSourceAddrs is the most loopback source addresses it uses.
	holdMaxSourceAddrs = 64
	// holdFDSlack is the descriptors a process needs beyond one per
	// connection (loadgen.FDSlack).
	holdFDSlack = 256
	// holdMaxLength bounds the steps' length (the load generator's bound
	// on one run).
	holdMaxLength = time.Hour
)

// checkHold: a hold workload has no request axes, increasing steps, a
// heartbeat in the protocol's range, fits one run, fits the source
// addresses' ports, and fits this machine's descriptor limit.
func checkHold(c *checker) {
	wl := c.b.Workload
	h := wl.Hold
	at := func(p ...string) []string { return append([]string{"workload", "hold"}, p...) }
	if len(wl.Concurrency) > 0 || len(wl.Rate) > 0 || len(wl.Payload) > 0 {
		c.add(Error, "hold", c.pos(at()...), "workload.hold holds connections instead of sending requests: drop concurrency, rate and payload from this batch, or move the hold to a batch of its own")
	}
	if h.Protocol == "http" {
		c.add(Error, "hold", c.pos(at("protocol")...), "hold protocol http (idle keep-alive connections) is not run by the load generator yet: use websocket")
	}
	for i := 1; i < len(h.Steps); i++ {
		if h.Steps[i] <= h.Steps[i-1] {
			c.add(Error, "hold", c.pos(at("steps", strconv.Itoa(i))...), "hold.steps[%d] = %d: each step must hold more connections than the one before (%d)", i, h.Steps[i], h.Steps[i-1])
		}
	}
	if p := h.Heartbeat.D(); p < 100*time.Millisecond || p > 10*time.Minute || p%time.Millisecond != 0 {
		c.add(Error, "hold", c.pos(at("heartbeat")...), "hold.heartbeat %s: the heartbeat protocol takes whole milliseconds from 100ms to 10m", p)
	}
	if l := h.Length(); l > holdMaxLength {
		c.add(Error, "hold", c.pos(at()...), "the hold's steps take %s to open and hold, more than one load generator run may (%s): fewer steps, a shorter stepHold or a higher openRate", l.Round(time.Second), holdMaxLength)
	}
	checkHoldPorts(c)
	checkHoldFDs(c)
}

// checkHoldPorts: the connections fit the source addresses' ephemeral
// ports (one address only when the load generator is on another host).
func checkHoldPorts(c *checker) {
	h := c.b.Workload.Hold
	n := h.Steps[len(h.Steps)-1]
	ports := c.m.EphemeralPorts
	if ports <= 0 {
		c.add(Warning, "hold", c.pos("workload", "hold", "steps"), "this machine's ephemeral port range is unknown (no /proc/sys/net/ipv4/ip_local_port_range): whether %d connections fit its source addresses is not checked", n)
		return
	}
	addrs := h.SourceAddrs
	if addrs == 0 {
		addrs = holdMaxSourceAddrs
	}
	perAddr := int(float64(ports) * holdPortHeadroom)
	if c.b.Placement.Hosts == "separate" {
		addrs = 1
	}
	if n > addrs*perAddr {
		where := "sourceAddrs"
		if c.b.Placement.Hosts == "separate" {
			where = "hosts: \"same\" (a load generator on another host connects from its one address)"
		}
		c.add(Error, "hold", c.pos("workload", "hold", "steps", strconv.Itoa(len(h.Steps)-1)),
			"%d connections need more than %d source address(es) x %d usable ephemeral ports (%d in net.ipv4.ip_local_port_range): raise %s, widen the port range, or hold fewer", n, addrs, perAddr, ports, where)
	}
}

// checkHoldFDs: the target and the load generator can each have a
// descriptor per connection under this machine's hard RLIMIT_NOFILE.
func checkHoldFDs(c *checker) {
	h := c.b.Workload.Hold
	n := h.Steps[len(h.Steps)-1]
	need := uint64(n + holdFDSlack)
	switch {
	case c.m.NoFileHard == 0:
		c.add(Warning, "hold", c.pos("workload", "hold", "steps"), "this machine's RLIMIT_NOFILE is unknown: whether %d connections fit is not checked", n)
	case c.m.NoFileHard < need && !c.m.NoFileRaisable:
		// a warning, as for CPUs this machine lacks: the plan is reviewed
		// here and run on a machine that has them (run refuses it here)
		c.add(Warning, "hold", c.pos("workload", "hold", "steps", strconv.Itoa(len(h.Steps)-1)),
			"%d connections need %d file descriptors in the target and in the load generator, but the hard RLIMIT_NOFILE here is %d and yardstick may not raise it (no CAP_SYS_RESOURCE); the plan can be reviewed here but not run: raise it where yardstick starts (ulimit -Hn %d, LimitNOFILE=, docker --ulimit nofile=%d:%d), or hold at most %d", n, need, c.m.NoFileHard, need, need, need, int(c.m.NoFileHard)-holdFDSlack)
	}
}

// ephemeralPorts reads the size of this machine's ephemeral port range,
// 0 if it cannot.
func ephemeralPorts() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || hi < lo {
		return 0
	}
	return hi - lo + 1
}
