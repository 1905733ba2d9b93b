package loadgen

import (
	"fmt"
	"math"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Bounds of a connection-holding run (Spec.Hold).
const (
	// MaxHoldSteps bounds Hold.Steps.
	MaxHoldSteps = 64
	// DefaultHeartbeatPeriod is the heartbeat protocol's default period.
	DefaultHeartbeatPeriod = 10 * time.Second
	// DefaultMaxFrame bounds one frame's payload when Hold.MaxFrame is 0:
	// a heartbeat is about 30 bytes.
	DefaultMaxFrame = 1024
	// MaxMaxFrame bounds Hold.MaxFrame: the most a connection may buffer
	// of a frame split across reads.
	MaxMaxFrame = 64 << 10
	// MaxOpenRate bounds Hold.OpenRate (connections opened per second).
	MaxOpenRate = 200_000
	// MaxSourceAddrs bounds Hold.SourceAddrs: 127.0.0.1 to 127.0.0.64.
	MaxSourceAddrs = 64
	// PortHeadroom is the share of one source address's ephemeral port
	// range the automatic choice of source addresses fills at most,
	// leaving the rest for sockets in TIME_WAIT and other clients.
	PortHeadroom = 0.75
	// FDSlack is how many descriptors beyond one per connection the load
	// generator needs (epoll sets, pipes, the runtime's own).
	FDSlack = 256
)

// Hold is a connection-holding workload: rather than driving a request
// rate, the load generator opens connections at OpenRate until Steps[0]
// are open, holds them for StepHold, opens more up to Steps[1], holds
// them, and so on, reading what the server pushes on every connection.
// The only protocol so far is "websocket", with the heartbeat protocol
// (PROTOCOL.md, "Connection holding"). A connection that ends is not
// reopened: the run counts it dropped.
type Hold struct {
	// Protocol is "websocket".
	Protocol string `json:"protocol"`
	// Steps are the connection counts to reach and hold, increasing
	// (e.g. [10000, 30000, 50000]); the last is the run's connections.
	Steps []int `json:"steps"`
	// OpenRate is how many connections are opened per second.
	OpenRate float64 `json:"open_rate"`
	// StepHold is how long each step is held once its last connection
	// was due to be opened.
	StepHold Duration `json:"step_hold"`
	// Period is the heartbeat period the server is asked for (the
	// period_ms query parameter) and expected to keep; 0 means 10s.
	Period Duration `json:"period,omitempty"`
	// MissBound: a heartbeat later than its expected time by more than
	// this, or not there by then, counts as missed; 0 means Period.
	MissBound Duration `json:"miss_bound,omitempty"`
	// SourceAddrs is how many loopback source addresses (127.0.0.1,
	// 127.0.0.2, ...) the connections are spread over; 0 chooses the
	// fewest that fit the connections into PortHeadroom of each
	// address's ephemeral port range. Only for an IPv4 loopback target;
	// any other target gets the one source address the kernel picks.
	SourceAddrs int `json:"source_addrs,omitempty"`
	// MaxFrame bounds one frame's payload (0 means DefaultMaxFrame); a
	// longer frame closes the connection, counted as "oversized".
	MaxFrame int `json:"max_frame,omitempty"`
	// HandshakeTimeout bounds a connection from its connect to the
	// server's 101 response; 0 means 10s.
	HandshakeTimeout Duration `json:"handshake_timeout,omitempty"`
}

func (h *Hold) withDefaults() Hold {
	c := *h
	if c.Period == 0 {
		c.Period = Duration(DefaultHeartbeatPeriod)
	}
	if c.MissBound == 0 {
		c.MissBound = c.Period
	}
	if c.MaxFrame == 0 {
		c.MaxFrame = DefaultMaxFrame
	}
	if c.HandshakeTimeout == 0 {
		c.HandshakeTimeout = Duration(10 * time.Second)
	}
	return c
}

// Connections is the last step's count, the most the run holds.
func (h *Hold) Connections() int {
	if len(h.Steps) == 0 {
		return 0
	}
	return h.Steps[len(h.Steps)-1]
}

// StepWindows returns when each step starts and when its opening ends
// (its last connection is due), and when the run ends, as offsets from
// the run's start.
func (h *Hold) StepWindows() (start, opened []time.Duration, end time.Duration) {
	var t time.Duration
	prev := 0
	for _, n := range h.Steps {
		start = append(start, t)
		t += time.Duration(float64(n-prev) / h.OpenRate * float64(time.Second))
		opened = append(opened, t)
		t += time.Duration(h.StepHold)
		prev = n
	}
	return start, opened, t
}

// openAt is when connection k (0-based, in opening order) is due.
func (h *Hold) openAt(k int, start []time.Duration) int64 {
	prev := 0
	for i, n := range h.Steps {
		if k < n {
			return int64(start[i]) + int64(float64(k-prev)/h.OpenRate*1e9)
		}
		prev = n
	}
	return math.MaxInt64
}

// validateHold checks a spec with a Hold: the hold's own fields, and that
// the request-rate fields, which do not apply, are unset.
func (s *Spec) validateHold() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("hold: "+format, args...)) }
	h := s.Hold
	switch h.Protocol {
	case "websocket":
	case "http":
		bad("protocol http (keep-alive connections held idle) is not implemented by the load generator yet; use websocket")
	default:
		bad("protocol %q: want websocket", h.Protocol)
	}
	if len(h.Steps) == 0 || len(h.Steps) > MaxHoldSteps {
		bad("%d steps: want 1..%d", len(h.Steps), MaxHoldSteps)
	}
	prev := 0
	for i, n := range h.Steps {
		if n <= prev || n > MaxConnections {
			bad("steps[%d] = %d: want more than the step before (%d) and at most %d", i, n, prev, MaxConnections)
		}
		prev = n
	}
	if h.OpenRate <= 0 || h.OpenRate > MaxOpenRate {
		bad("open_rate %g: want more than 0 and at most %d connections/s", h.OpenRate, MaxOpenRate)
	}
	if d := time.Duration(h.StepHold); d <= 0 {
		bad("step_hold %s: want more than 0", d)
	}
	if p := time.Duration(h.Period); p != 0 && (p < 100*time.Millisecond || p > 600*time.Second || p%time.Millisecond != 0) {
		bad("period %s: want whole milliseconds in 100ms..10m (the heartbeat protocol's period_ms)", p)
	}
	if m := time.Duration(h.MissBound); m < 0 || m > MaxDuration {
		bad("miss_bound %s: want 0..%s", m, MaxDuration)
	}
	if h.SourceAddrs < 0 || h.SourceAddrs > MaxSourceAddrs {
		bad("source_addrs %d: want 0..%d", h.SourceAddrs, MaxSourceAddrs)
	}
	if h.MaxFrame != 0 && (h.MaxFrame < 125 || h.MaxFrame > MaxMaxFrame) {
		bad("max_frame %d: want 125..%d", h.MaxFrame, MaxMaxFrame)
	}
	if t := time.Duration(h.HandshakeTimeout); t < 0 || t > time.Minute {
		bad("handshake_timeout %s: want 0..1m", t)
	}
	if len(errs) == 0 {
		if _, _, end := h.StepWindows(); end > MaxDuration {
			bad("the steps take %s to open and hold, more than %s", end.Round(time.Second), MaxDuration)
		}
		if c := s.Connections; c != 0 && c != h.Connections() {
			bad("connections %d differs from the last step %d: leave it 0", c, h.Connections())
		}
	}
	if s.Rate != 0 || s.RateFraction != 0 || s.PeakRPS != 0 || s.MaxRequests != 0 {
		bad("rate, rate_fraction, peak_rps and max_requests drive requests and do not apply")
	}
	if (s.Method != "" && s.Method != "GET") || s.Body != "" || s.Payload != 0 {
		bad("method, body and payload do not apply: the handshake is a GET without a body")
	}
	if d := time.Duration(s.Duration); d < 0 || d > MaxDuration {
		bad("duration %s: want 0 (the steps' own length) up to %s", d, MaxDuration)
	}
	for _, hd := range s.Headers {
		if k, v, ok := strings.Cut(hd, ":"); !ok || !isToken(strings.TrimSpace(k)) || strings.ContainsAny(v, "\r\n") {
			bad("header %q: want Name: value", hd)
		}
	}
	if s.Workers < 0 || s.Workers > 1024 {
		bad("workers %d: want 0..1024", s.Workers)
	}
	if i := time.Duration(s.Interval); i != 0 && (i < MinInterval || i > MaxInterval) {
		bad("interval %s: want %s..%s", i, MinInterval, MaxInterval)
	}
	return errs
}

// holdTarget returns the request target (path and query) of the upgrade:
// the URL's, with period_ms set to the hold's period. A period_ms already
// in the URL must agree.
func holdTarget(rawURL string, period time.Duration) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("url %q: %w", rawURL, err)
	}
	q := u.Query()
	ms := strconv.FormatInt(period.Milliseconds(), 10)
	if v := q.Get("period_ms"); v != "" && v != ms {
		return "", fmt.Errorf("url %q: period_ms=%s, but the hold's period is %s", rawURL, v, period)
	}
	q.Set("period_ms", ms)
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return path + "?" + q.Encode(), nil
}

// EphemeralPorts reads the kernel's ephemeral port range
// (net.ipv4.ip_local_port_range) and returns how many ports it holds.
func EphemeralPorts() (int, error) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, fmt.Errorf("ephemeral port range: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, fmt.Errorf("ephemeral port range: %q", b)
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || hi < lo {
		return 0, fmt.Errorf("ephemeral port range: %q", b)
	}
	return hi - lo + 1, nil
}

// SourceAddrsFor returns how many loopback source addresses n connections
// to one target need, given ports ephemeral ports per address: the
// fewest that keep each within PortHeadroom of the range.
func SourceAddrsFor(n, ports int) int {
	per := int(float64(ports) * PortHeadroom)
	if per < 1 {
		return MaxSourceAddrs + 1
	}
	return max((n+per-1)/per, 1)
}

// sourceAddrs chooses the source addresses of a hold run against target:
// 127.0.0.1.. for an IPv4 loopback target, none (the kernel's choice)
// otherwise. It refuses a count that cannot fit the ports.
func sourceAddrs(h *Hold, target *net.TCPAddr) ([][4]byte, error) {
	n := h.Connections()
	ports, err := EphemeralPorts()
	if err != nil {
		return nil, err
	}
	ip4 := target.IP.To4()
	if ip4 == nil || ip4[0] != 127 {
		if n > ports {
			return nil, fmt.Errorf("hold: %d connections to %s from one source address, which has %d ephemeral ports: use an IPv4 loopback target (127.0.0.1), whose connections can come from several source addresses", n, target, ports)
		}
		return nil, nil
	}
	k := h.SourceAddrs
	if k == 0 {
		k = SourceAddrsFor(n, ports)
	}
	if k > MaxSourceAddrs || n > k*ports {
		return nil, fmt.Errorf("hold: %d connections need more than %d source addresses of %d ephemeral ports each: ask for source_addrs up to %d, or widen net.ipv4.ip_local_port_range", n, k, ports, MaxSourceAddrs)
	}
	addrs := make([][4]byte, k)
	for i := range addrs {
		addrs[i] = [4]byte{127, 0, 0, byte(1 + i)}
	}
	return addrs, nil
}

// NoFile is the process's RLIMIT_NOFILE before and after a hold run
// raised it.
type NoFile struct {
	SoftBefore uint64 `json:"soft_before"`
	HardBefore uint64 `json:"hard_before"`
	Soft       uint64 `json:"soft"`
	Hard       uint64 `json:"hard"`
	// Raised says the load generator changed the limit: the soft limit up
	// to the hard one, and the hard one too when it was short of what
	// the run needs and the process may raise it (CAP_SYS_RESOURCE).
	Raised bool `json:"raised"`
}

// NoFileLimit reads the hard RLIMIT_NOFILE and whether this process may
// raise it (CAP_SYS_RESOURCE in its effective set); 0 if unknown.
func NoFileLimit() (hard uint64, raisable bool) {
	var r unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &r); err != nil {
		return 0, false
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return r.Max, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return r.Max, err == nil && caps&(1<<unix.CAP_SYS_RESOURCE) != 0
		}
	}
	return r.Max, false
}

// raiseNoFile raises RLIMIT_NOFILE so that need descriptors fit: the soft
// limit to the hard limit, and the hard limit to need when it is lower
// and the kernel lets this process raise it. It fails, saying what to
// change, when need still does not fit.
func raiseNoFile(need uint64) (NoFile, error) {
	var r unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &r); err != nil {
		return NoFile{}, fmt.Errorf("getrlimit NOFILE: %w", err)
	}
	nf := NoFile{SoftBefore: r.Cur, HardBefore: r.Max, Soft: r.Cur, Hard: r.Max}
	want := r
	want.Cur = max(r.Cur, r.Max)
	if want.Max < need {
		want.Max, want.Cur = need, need
	}
	if want != r {
		err := unix.Setrlimit(unix.RLIMIT_NOFILE, &want)
		if err != nil && want.Max != r.Max { // not allowed to raise the hard limit: the soft one at least
			want = unix.Rlimit{Cur: r.Max, Max: r.Max}
			err = unix.Setrlimit(unix.RLIMIT_NOFILE, &want)
		}
		if err == nil {
			nf.Soft, nf.Hard, nf.Raised = want.Cur, want.Max, true
		}
	}
	if nf.Soft < need {
		return nf, fmt.Errorf("hold: needs %d file descriptors, RLIMIT_NOFILE is %d (hard %d) and this process may not raise it: raise the hard limit (ulimit -Hn %d, LimitNOFILE=, /etc/security/limits.conf) or hold fewer connections", need, nf.Soft, nf.Hard, need)
	}
	return nf, nil
}
