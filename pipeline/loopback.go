package pipeline

import "net"

// IsLoopbackHost reports whether host (a name or an address, as in a URL)
// is on this machine's loopback: 127.0.0.0/8, ::1 or "localhost". yardstick
// sends load and probes nowhere else.
func IsLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
