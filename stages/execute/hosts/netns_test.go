//go:build netns

package hosts

import (
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"yardstick/internal/netnstest"
)

// TestNetnsDialer: a socket made through the dialer of netns:A is A's:
// it reaches a listener on A's loopback, which B's dialer does not.
func TestNetnsDialer(t *testing.T) {
	p := netnstest.Setup(t)
	var ln net.Listener
	if err := inNetns(p.A, func() error {
		var err error
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = io.WriteString(c, "from A")
			c.Close()
		}
	}()
	addr := ln.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Host{Kind: "netns", Name: p.A}.Dialer(time.Second)(ctx, "tcp", addr)
	if err != nil {
		t.Fatalf("dial %s in %s: %v", addr, p.A, err)
	}
	got, _ := io.ReadAll(c)
	c.Close()
	if string(got) != "from A" {
		t.Errorf("read %q through %s's dialer", got, p.A)
	}
	if c, err := (Host{Kind: "netns", Name: p.B}).Dialer(time.Second)(ctx, "tcp", addr); err == nil {
		c.Close()
		t.Errorf("dial %s in %s reached A's listener", addr, p.B)
	}
}

// TestNetnsResolve: the target address must be one the target's
// namespace holds.
func TestNetnsResolve(t *testing.T) {
	p := netnstest.Setup(t)
	a, b := Host{Kind: "netns", Name: p.A}, Host{Kind: "netns", Name: p.B}
	none := Env{Getenv: func(string) string { return "" }, LookupIP: net.LookupIP}
	got, err := Pair{Target: a, Loadgen: b}.Resolve(netnstest.AddrA, none)
	if err != nil || got.Addr != netnstest.AddrA {
		t.Fatalf("Resolve(%s) = %+v, %v", netnstest.AddrA, got, err)
	}
	for _, c := range []struct {
		pair Pair
		addr string
	}{
		{Pair{Target: a, Loadgen: b}, netnstest.AddrB},     // the load generator's own end
		{Pair{Target: b, Loadgen: a}, netnstest.AddrA},     // swapped: A's address is not B's
		{Pair{Target: Local, Loadgen: b}, netnstest.AddrA}, // this host does not hold it
		{Pair{Target: a, Loadgen: b}, "127.0.0.1"},         // loopback stays in the namespace
		{Pair{Target: a, Loadgen: b}, "10.213.0.3"},        // in the subnet, nobody's
	} {
		if got, err := c.pair.Resolve(c.addr, none); err == nil {
			t.Errorf("target %s, load generator %s, address %s: accepted (%+v)", c.pair.Target, c.pair.Loadgen, c.addr, got)
		}
	}
}

// TestNetnsExecKeepsThePID: `ip netns exec` execs, so the PID yardstick
// started is the target's own, in the namespace, and /proc/PID is the
// target's from the root namespace.
func TestNetnsExecKeepsThePID(t *testing.T) {
	p := netnstest.Setup(t)
	cmd := exec.Command("ip", Host{Kind: "netns", Name: p.A}.Wrap([]string{"sleep", "30"})[1:]...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	ino, err := Inode(p.A)
	if err != nil {
		t.Fatal(err)
	}
	want := "net:[" + strconv.FormatUint(ino, 10) + "]"
	pid := strconv.Itoa(cmd.Process.Pid)
	deadline := time.Now().Add(5 * time.Second)
	for {
		comm, _ := os.ReadFile("/proc/" + pid + "/comm")
		ns, _ := os.Readlink("/proc/" + pid + "/ns/net")
		if strings.TrimSpace(string(comm)) == "sleep" && ns == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %s: comm %q, ns %q; want sleep in %s", pid, comm, ns, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Inode is netnstest.Inode, here so the test reads plainly.
func Inode(name string) (uint64, error) { return netnstest.Inode(name) }
