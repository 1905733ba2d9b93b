package pipeline

import (
	"net"
	"strings"
)

// IsLoopbackHost reports whether host (a name or an address, as in a URL
// without its brackets) is on this machine's loopback: an address in
// 127.0.0.0/8 or ::1 (an IPv4-mapped ::ffff:127.x too), or the name
// localhost in any case, as names are. yardstick sends load and probes
// nowhere else; validate's ready check, the executor's ready probe and the
// load generator all ask this one function. The name is not resolved
// here: the load generator refuses a localhost that resolves off loopback
// when it connects.
func IsLoopbackHost(host string) bool {
	if IsLoopbackName(host) {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsLoopbackName reports whether host is the name localhost (in any case).
func IsLoopbackName(host string) bool { return strings.EqualFold(host, "localhost") }
