package loadgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
)

// Bounds that hold for every run, whatever a caller asks for.
const (
	// MaxDuration is the longest measured window a run may ask for.
	MaxDuration = time.Hour
	// MaxConnections bounds the connection pool.
	MaxConnections = 100_000
	// DefaultVariants is how many pre-rendered variants of the request a
	// template with {vary} gets.
	DefaultVariants = 256
	// DefaultInterval is how often a run reports what it measured: fine
	// enough to see a warm-up of a second or two, coarse enough for a
	// percentile of a few hundred requests.
	DefaultInterval = 100 * time.Millisecond
	// MinInterval and MaxInterval bound Spec.Interval.
	MinInterval = 10 * time.Millisecond
	MaxInterval = 10 * time.Second
	// LateThreshold: an open-loop send more than this after its intended
	// time counts as a late send.
	LateThreshold = time.Millisecond

	// MaxPayload bounds Spec.Payload, and so one {payload_text}.
	MaxPayload = 64 << 20
	// MaxRequestHead bounds one rendered request line and header block
	// ({payload_text} in a path or header counts).
	MaxRequestHead = 64 << 10
	// MaxRequestBody bounds one rendered request body.
	MaxRequestBody = 64 << 20
	// MaxRenderedRequests bounds the bytes of all pre-rendered request
	// variants together: a template with {vary} is rendered Variants times.
	MaxRenderedRequests = 256 << 20

	// MaxResponseHead bounds what a connection buffers of one response: its
	// status line and headers together with any 1xx responses before it,
	// and, separately, its chunked trailers. It is also the most a
	// connection ever holds in memory.
	MaxResponseHead = 64 << 10
	// MaxResponseBody bounds one response body (declared by Content-Length,
	// summed over chunks, or read until the close). Bodies are counted as
	// they pass, never kept.
	MaxResponseBody = 1 << 30

	// MaxAllow bounds Spec.Allow: a two-host run names one target address.
	MaxAllow = 4
)

// Duration is a time.Duration that reads and writes JSON as a Go duration
// string ("5s"); it also reads a number of nanoseconds.
type Duration time.Duration

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a duration string or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration %q: %w", s, err)
		}
		*d = Duration(v)
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("duration: want a string like \"5s\" or nanoseconds, got %s", b)
	}
	*d = Duration(n)
	return nil
}

// Spec is one load generator run: what to send, to where, how hard and for
// how long. It is plain data (the driver sends it as JSON); [Spec.Validate]
// reports every problem at once.
type Spec struct {
	// URL is the target; its host must be a loopback address, or one of
	// the addresses in Allow.
	URL string `json:"url"`
	// Allow lists the addresses besides loopback that URL may name: IP
	// literals, at most MaxAllow, none unspecified, multicast or
	// broadcast. A driver puts here only the address of a host its own run
	// set up for the target (see PROTOCOL.md, "A load generator on another
	// host"); the command line's --url has no such list.
	Allow []string `json:"allow,omitempty"`
	// Method defaults to GET.
	Method string `json:"method,omitempty"`
	// Headers are extra request headers, "Name: value" each.
	Headers []string `json:"headers,omitempty"`
	// Body is the request body; {payload}, {payload_text} and {vary} are
	// substituted.
	Body string `json:"body,omitempty"`
	// Connections is the number of keep-alive HTTP/1.1 connections.
	Connections int `json:"connections"`
	// Duration is the measured window.
	Duration Duration `json:"duration"`
	// Rate is the open-loop arrival rate in requests per second; 0 runs a
	// closed loop.
	Rate float64 `json:"rate,omitempty"`
	// RateFraction and PeakRPS ask for an open loop at a fraction of a peak
	// measured earlier in the same run (Rate = RateFraction * PeakRPS). They
	// are ignored when Rate is set.
	RateFraction float64 `json:"rate_fraction,omitempty"`
	PeakRPS      float64 `json:"peak_rps,omitempty"`
	// Interval is how often the load generator reports what it measured
	// (an [Interval]); 0 means DefaultInterval.
	Interval Duration `json:"interval,omitempty"`
	// Timeout bounds each request; 0 means 10s.
	Timeout Duration `json:"timeout,omitempty"`
	// Payload is substituted for {payload} as a number, and for
	// {payload_text} as that many bytes of filler text.
	Payload int `json:"payload,omitempty"`
	// Seed seeds the source of {vary} values and of the variant order.
	Seed uint64 `json:"seed,omitempty"`
	// Variants is the number of pre-rendered {vary} values (default 256).
	Variants int `json:"variants,omitempty"`
	// VaryMin and VaryMax bound the {vary} values (inclusive); both 0
	// means 0..999999999.
	VaryMin int64 `json:"vary_min,omitempty"`
	VaryMax int64 `json:"vary_max,omitempty"`
	// MaxRequests bounds the number of requests sent; 0 means no bound
	// other than the duration.
	MaxRequests int64 `json:"max_requests,omitempty"`
	// Workers is the number of event loops (each a goroutine with its own
	// epoll set); 0 means one per CPU the process may use, at most one per
	// connection.
	Workers int `json:"workers,omitempty"`
	// CPUs, when set, is the CPU list the load generator process pins itself
	// to in driver mode (see PROTOCOL.md). Run itself never pins.
	CPUs cpuset.Set `json:"cpus,omitempty"`
	// Hold, when set, makes the run a connection-holding one: it opens
	// and holds connections in steps and reads the server's heartbeats
	// instead of sending requests (see [Hold]). URL is then the upgrade's
	// http:// URL, Duration is optional (0: the steps' own length; else a
	// bound on it), and the request-rate fields must be unset.
	Hold *Hold `json:"hold,omitempty"`
}

// varyRange returns the inclusive range of {vary} values.
func (s *Spec) varyRange() (lo, hi uint64) {
	if s.VaryMin == 0 && s.VaryMax == 0 {
		return 0, 999_999_999
	}
	return uint64(s.VaryMin), uint64(s.VaryMax)
}

// EffectiveRate is the open-loop rate the spec asks for, 0 for a closed loop.
func (s *Spec) EffectiveRate() float64 {
	if s.Rate > 0 {
		return s.Rate
	}
	if s.RateFraction > 0 && s.PeakRPS > 0 {
		return s.RateFraction * s.PeakRPS
	}
	return 0
}

// FractionOfPeak returns a copy of s that runs an open loop at fraction f of
// the throughput peak measured in an earlier result.
func (s Spec) FractionOfPeak(peak *Result, f float64) Spec {
	s.Rate = 0
	s.PeakRPS = peak.RPS
	s.RateFraction = f
	return s
}

func (s *Spec) withDefaults() Spec {
	c := *s
	if c.Method == "" {
		c.Method = "GET"
	}
	if c.Connections == 0 {
		c.Connections = 32
	}
	if c.Timeout == 0 {
		c.Timeout = Duration(10 * time.Second)
	}
	if c.Variants == 0 {
		c.Variants = DefaultVariants
	}
	if c.Interval == 0 {
		c.Interval = Duration(DefaultInterval)
	}
	return c
}

// Validate reports every problem with s, joined; nil if there are none.
func (s *Spec) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if err := checkAllow(s.Allow); err != nil {
		errs = append(errs, err)
	} else if _, err := TargetAddrAllowed(s.URL, s.Allow); err != nil {
		errs = append(errs, err)
	}
	if s.Hold != nil {
		return errors.Join(append(errs, s.validateHold()...)...)
	}
	if s.Method != "" && !isToken(s.Method) {
		bad("method %q is not an HTTP token", s.Method)
	}
	for _, h := range s.Headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || !isToken(strings.TrimSpace(k)) || strings.ContainsAny(v, "\r\n") {
			bad("header %q: want Name: value", h)
		}
	}
	if s.Connections < 0 || s.Connections > MaxConnections {
		bad("connections %d: want 1..%d", s.Connections, MaxConnections)
	}
	if d := time.Duration(s.Duration); d <= 0 || d > MaxDuration {
		bad("duration %s: want more than 0 and at most %s", d, MaxDuration)
	}
	if s.Rate < 0 || s.RateFraction < 0 || s.PeakRPS < 0 {
		bad("rate, rate_fraction and peak_rps must not be negative")
	}
	if s.Rate == 0 && (s.RateFraction > 0) != (s.PeakRPS > 0) {
		bad("rate_fraction and peak_rps go together")
	}
	if r := s.EffectiveRate(); r > 10_000_000 {
		bad("rate %.0f/s is beyond any loopback target", r)
	}
	if i := time.Duration(s.Interval); i != 0 && (i < MinInterval || i > MaxInterval) {
		bad("interval %s: want %s..%s", i, MinInterval, MaxInterval)
	}
	if t := time.Duration(s.Timeout); t < 0 || t > MaxDuration {
		bad("timeout %s: want 0..%s", t, MaxDuration)
	}
	if s.Payload < 0 || s.Payload > MaxPayload {
		bad("payload %d: want 0..%d (64 MiB)", s.Payload, MaxPayload)
	}
	if s.VaryMin < 0 || s.VaryMax < s.VaryMin {
		bad("vary range %d..%d: want 0 <= min <= max", s.VaryMin, s.VaryMax)
	}
	if s.Variants < 0 || s.Variants > 65536 {
		bad("variants %d: want 0..65536", s.Variants)
	}
	if s.MaxRequests < 0 {
		bad("max_requests must not be negative")
	}
	if s.Workers < 0 || s.Workers > 1024 {
		bad("workers %d: want 0..1024", s.Workers)
	}
	if len(errs) == 0 { // the request's size, once the rest is known to be sound
		c := s.withDefaults()
		if _, _, _, err := requestTemplate(&c); err != nil {
			errs = append(errs, fmt.Errorf("request: %w", err))
		}
	}
	return errors.Join(errs...)
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return false
		}
	}
	return true
}

// ErrNotLoopback is returned for a target that is not on this host's
// loopback interface, nor an address the driver allowed. yardstick only
// ever loads loopback targets, or the target host of its own two-host run.
var ErrNotLoopback = errors.New("target is not a loopback address (127.0.0.0/8, ::1 or localhost) nor an allowed address")

// checkAllow checks a spec's allow-list: IP literals only (no name is
// ever resolved), none that reaches more than one host.
func checkAllow(allow []string) error {
	if len(allow) > MaxAllow {
		return fmt.Errorf("allow: %d addresses, at most %d", len(allow), MaxAllow)
	}
	for _, a := range allow {
		ip := net.ParseIP(a)
		switch {
		case ip == nil:
			return fmt.Errorf("allow %q: not an IP address (names are never resolved)", a)
		case ip.IsUnspecified(), ip.IsMulticast(), ip.IsInterfaceLocalMulticast(), ip.Equal(net.IPv4bcast):
			return fmt.Errorf("allow %q: not the address of one host", a)
		}
	}
	return nil
}

// allowed reports whether ip is loopback (pipeline.IsLoopbackHost) or in
// allow.
func allowed(ip net.IP, allow []string) bool {
	if pipeline.IsLoopbackHost(ip.String()) {
		return true
	}
	for _, a := range allow {
		if ip.Equal(net.ParseIP(a)) {
			return true
		}
	}
	return false
}

// TargetAddr checks that rawURL is an http URL on a loopback host and
// returns its host:port. It resolves nothing but "localhost", and accepts
// that name only if it resolves to loopback addresses alone.
func TargetAddr(rawURL string) (string, error) {
	return TargetAddrAllowed(rawURL, nil)
}

// TargetAddrAllowed is [TargetAddr] that also accepts an IP literal listed
// in allow (see Spec.Allow). Names other than localhost are refused even
// when they would resolve to an allowed address.
func TargetAddrAllowed(rawURL string, allow []string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("url %q: %w", rawURL, err)
	}
	if u.Scheme != "http" {
		return "", fmt.Errorf("url %q: only http:// is supported", rawURL)
	}
	host := u.Hostname()
	if host == "" {
		return "", fmt.Errorf("url %q: no host", rawURL)
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	if p, err := strconv.Atoi(port); err != nil || p <= 0 || p > 65535 {
		return "", fmt.Errorf("url %q: bad port %q", rawURL, port)
	}
	if pipeline.IsLoopbackName(host) {
		return net.JoinHostPort("localhost", port), nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !allowed(ip, allow) {
		return "", fmt.Errorf("url %q: %w", rawURL, ErrNotLoopback)
	}
	return net.JoinHostPort(ip.String(), port), nil
}

// resolve turns a host:port from TargetAddrAllowed into a socket address,
// again refusing anything off loopback that allow does not list.
func resolve(hostport string, allow []string) (*net.TCPAddr, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, err
	}
	p, _ := strconv.Atoi(port)
	if pipeline.IsLoopbackName(host) {
		ips, err := net.LookupIP("localhost")
		if err != nil {
			return nil, fmt.Errorf("resolve localhost: %w", err)
		}
		for _, ip := range ips {
			if !pipeline.IsLoopbackHost(ip.String()) {
				return nil, fmt.Errorf("localhost resolves to %s: %w", ip, ErrNotLoopback)
			}
		}
		for _, ip := range ips { // prefer IPv4, as curl and wrk do
			if ip.To4() != nil {
				return &net.TCPAddr{IP: ip, Port: p}, nil
			}
		}
		if len(ips) > 0 {
			return &net.TCPAddr{IP: ips[0], Port: p}, nil
		}
		return nil, fmt.Errorf("localhost resolves to nothing")
	}
	ip := net.ParseIP(host)
	if ip == nil || !allowed(ip, allow) {
		return nil, fmt.Errorf("%s: %w", host, ErrNotLoopback)
	}
	return &net.TCPAddr{IP: ip, Port: p}, nil
}
