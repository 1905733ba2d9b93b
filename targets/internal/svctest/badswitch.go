package svctest

import (
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BadSwitches are switches every JVM target refuses.
var BadSwitches = [][]string{{"--bogus"}, {"--port", "70000"}, {"--work-factor", "0"}, {"stray"}}

// CheckBadSwitch runs the jar with each of BadSwitches and more: exit
// status 2 and a one-line error starting with prog, no stack trace.
func CheckBadSwitch(t testing.TB, java, jar, prog string, more ...[]string) {
	t.Helper()
	for _, args := range append(append([][]string{}, BadSwitches...), more...) {
		argv := append([]string{java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-jar", jar}, args...)
		p := Start(t, prog, nil, argv...)
		code := p.Wait(t, 20*time.Second)
		out := p.Output.String()
		if code != 2 {
			t.Errorf("%q: exit status %d, want 2\n%s", args, code, out)
			continue
		}
		if !strings.HasPrefix(out, prog+": ") || strings.Contains(out, "\tat ") {
			t.Errorf("%q: want a one-line error and the usage, no stack trace:\n%s", args, out)
		}
	}
}

// CheckPortInUse runs the jar on a port something else listens on: it must
// exit with status 2 and say why on a line starting with prog, within
// ReadyTimeout.
func CheckPortInUse(t testing.TB, java, jar, prog string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	p := Start(t, prog, nil, java, "-XX:TieredStopAtLevel=1", "-jar", jar, "--port", port)
	if code := p.Wait(t, ReadyTimeout); code != 2 {
		t.Errorf("--port %s (in use): exit status %d, want 2\n%s", port, code, p.Output)
	}
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(prog) + `: .*`).MatchString(p.Output.String()) {
		t.Errorf("--port %s (in use): no line starting with %q:\n%s", port, prog+": ", p.Output)
	}
}

// CheckBadSwitches is CheckBadSwitch and CheckPortInUse for bin/jar on the
// JDK 25.
func CheckBadSwitches(t testing.TB, jar, prog string) {
	t.Helper()
	java, path := Java(t), Artifact(t, "bin/"+jar)
	CheckBadSwitch(t, java, path, prog)
	CheckPortInUse(t, java, path, prog)
}
