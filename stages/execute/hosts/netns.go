package hosts

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// NetnsDir is where `ip netns` keeps its named namespaces.
const NetnsDir = "/var/run/netns"

// checkNetns checks that the namespace exists and that `ip` is there to
// enter it.
func checkNetns(name string) error {
	if _, err := exec.LookPath("ip"); err != nil {
		return fmt.Errorf("netns:%s: no ip command (install iproute2: apt-get install iproute2): %w", name, err)
	}
	if _, err := os.Stat(filepath.Join(NetnsDir, name)); err != nil {
		return fmt.Errorf("netns:%s: no such network namespace (ip netns list shows those there are): %w", name, err)
	}
	return nil
}

// inNetns runs f on an OS thread that has entered the network namespace
// name: sockets f creates belong to that namespace and stay there. The
// thread is handed back to the runtime only once it is in its own
// namespace again; if it cannot go back, it ends with the goroutine.
func inNetns(name string, f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		self, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("netns:%s: own namespace: %w", name, err)
			return
		}
		defer self.Close()
		ns, err := os.Open(filepath.Join(NetnsDir, name))
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("netns:%s: %w", name, err)
			return
		}
		defer ns.Close()
		if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("netns:%s: enter (needs root): %w", name, err)
			return
		}
		ferr := f()
		if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- errors.Join(ferr, fmt.Errorf("netns:%s: leave: %w", name, err))
			return // still locked: the thread exits with this goroutine
		}
		runtime.UnlockOSThread()
		errc <- ferr
	}()
	return <-errc
}

// A DialFunc dials as net.Dialer.DialContext does.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Dialer returns how yardstick reaches a process on h: the ready and
// {vary} probes, and the check that a port is free. On this host it is a
// plain dialer; in a namespace the socket is made inside the namespace,
// so 127.0.0.1 there is the namespace's own loopback.
func (h Host) Dialer(timeout time.Duration) DialFunc {
	d := &net.Dialer{Timeout: timeout}
	if h.Kind != "netns" {
		return d.DialContext
	}
	name := h.Name
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var c net.Conn
		err := inNetns(name, func() error {
			var err error
			c, err = d.DialContext(ctx, network, addr)
			return err
		})
		return c, err
	}
}

// addrs lists the addresses of h's interfaces: this host's, or the
// namespace's.
func (h Host) addrs() ([]net.IP, error) {
	var as []net.Addr
	var err error
	switch h.Kind {
	case "netns":
		err = inNetns(h.Name, func() error {
			var err error
			as, err = net.InterfaceAddrs()
			return err
		})
	default:
		as, err = net.InterfaceAddrs()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: interface addresses: %w", h, err)
	}
	var ips []net.IP
	for _, a := range as {
		if n, ok := a.(*net.IPNet); ok {
			ips = append(ips, n.IP)
		}
	}
	return ips, nil
}
