// Package netnstest makes the two "hosts" of the two-host tests on one
// machine: two network namespaces joined by a veth pair, 10.213.0.1/30 in
// the first and 10.213.0.2/30 in the second. It needs root and iproute2;
// without them a test fails and says how to get them.
//
// Names are unique per process (a prefix, YARDSTICK_NETNS_PREFIX or
// "ys" and the PID, and a counter), so namespaces left by a crashed run
// never collide with the next. They are removed by the test's cleanup,
// on SIGINT and SIGTERM, and by `make netns-test`'s trap for whatever a
// killed test binary left.
package netnstest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// The addresses of the two ends of the veth pair.
const (
	AddrA = "10.213.0.1"
	AddrB = "10.213.0.2"
)

// A Pair is two network namespaces joined by a veth pair.
type Pair struct {
	A, B string // namespace names
	once sync.Once
	err  error
}

var (
	counter atomic.Int64
	liveMu  sync.Mutex
	live    = map[*Pair]bool{}
	sigOnce sync.Once
)

// Require fails t unless this process can make network namespaces.
func Require(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("the two-host tests make network namespaces and need root: run `make netns-test` as root (or in a privileged container)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatalf("the two-host tests need the ip command: apt-get install iproute2 (%v)", err)
	}
}

// Prefix is the prefix of every namespace this process makes.
func Prefix() string {
	if p := os.Getenv("YARDSTICK_NETNS_PREFIX"); p != "" {
		return p
	}
	return "ys" + strconv.Itoa(os.Getpid())
}

// Setup makes a Pair and removes it when t ends.
func Setup(t testing.TB) *Pair {
	t.Helper()
	Require(t)
	n := counter.Add(1)
	p := &Pair{A: fmt.Sprintf("%sa%d", Prefix(), n), B: fmt.Sprintf("%sb%d", Prefix(), n)}
	if len(p.A) > 14 {
		t.Fatalf("namespace name %q too long for its veth name (YARDSTICK_NETNS_PREFIX at most 10 characters)", p.A)
	}
	watchSignals()
	liveMu.Lock()
	live[p] = true
	liveMu.Unlock()
	t.Cleanup(func() {
		if err := p.Teardown(); err != nil {
			t.Error(err)
		}
	})
	va, vb := "v"+p.A, "v"+p.B
	steps := [][]string{
		{"netns", "add", p.A},
		{"netns", "add", p.B},
		{"link", "add", va, "type", "veth", "peer", "name", vb},
		{"link", "set", va, "netns", p.A},
		{"link", "set", vb, "netns", p.B},
		{"-n", p.A, "addr", "add", AddrA + "/30", "dev", va},
		{"-n", p.B, "addr", "add", AddrB + "/30", "dev", vb},
		{"-n", p.A, "link", "set", "lo", "up"},
		{"-n", p.B, "link", "set", "lo", "up"},
		{"-n", p.A, "link", "set", va, "up"},
		{"-n", p.B, "link", "set", vb, "up"},
	}
	for _, s := range steps {
		if out, err := exec.Command("ip", s...).CombinedOutput(); err != nil {
			_ = exec.Command("ip", "link", "del", va).Run() // a veth not yet moved
			t.Fatalf("ip %s: %v: %s", strings.Join(s, " "), err, out)
		}
	}
	return p
}

// Teardown removes both namespaces (and with them the veth pair); it may
// be called again.
func (p *Pair) Teardown() error {
	p.once.Do(func() {
		var errs []error
		for _, ns := range []string{p.A, p.B} {
			if !Exists(ns) {
				continue
			}
			if out, err := exec.Command("ip", "netns", "del", ns).CombinedOutput(); err != nil {
				errs = append(errs, fmt.Errorf("ip netns del %s: %v: %s", ns, err, out))
			}
		}
		p.err = errors.Join(errs...)
		liveMu.Lock()
		delete(live, p)
		liveMu.Unlock()
	})
	return p.err
}

// Exists reports whether the named namespace is there.
func Exists(name string) bool {
	_, err := os.Stat(filepath.Join("/var/run/netns", name))
	return err == nil
}

// Inode is the namespace's inode number, as /proc/PID/ns/net names it
// ("net:[INODE]").
func Inode(name string) (uint64, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join("/var/run/netns", name), &st); err != nil {
		return 0, fmt.Errorf("netns %s: %w", name, err)
	}
	return st.Ino, nil
}

// watchSignals tears every live pair down on SIGINT or SIGTERM, then
// exits: a test binary stopped by hand leaves nothing behind.
func watchSignals() {
	sigOnce.Do(func() {
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
		go func() {
			s := <-c
			liveMu.Lock()
			pairs := make([]*Pair, 0, len(live))
			for p := range live {
				pairs = append(pairs, p)
			}
			liveMu.Unlock()
			for _, p := range pairs {
				_ = p.Teardown()
			}
			fmt.Fprintf(os.Stderr, "netnstest: %s: removed %d namespace pair(s)\n", s, len(pairs))
			os.Exit(1)
		}()
	})
}
