package pipeline

import "testing"

// TestIsLoopbackHost: the one loopback rule. The name localhost counts in
// any case (validate's ready check and the executor's ready probe refused
// "LOCALHOST", which the load generator accepted, before they shared this
// rule); no other name counts, and no address off 127.0.0.0/8 and ::1.
func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost": true, "LOCALHOST": true,
		"127.0.0.1": true, "127.1.2.3": true, "::1": true, "::ffff:127.0.0.1": true,
		"localhost.": false, "localhost.example.com": false, "127.0.0.1.nip.io": false, "[::1]": false,
		"10.0.0.1": false, "0.0.0.0": false, "::": false, "2001:db8::1": false, "": false, "::1%lo": false,
	} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}
