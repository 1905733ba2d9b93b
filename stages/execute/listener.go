package execute

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"yardstick/stages/execute/procgroup"
)

// The process that answers must be the one started: two runs started at
// once on one port both pass the free-port check, and a target that stays
// up after its bind failed becomes ready on the other run's server. After
// ready, the listening socket of the port is looked up in /proc/net/tcp
// and tcp6 and must be held (an fd link socket:[inode]) by a process of
// the target's start.

// listenInodes returns the inodes of the TCP sockets listening on port,
// IPv4 and IPv6, in this network namespace.
func listenInodes(port int) (map[string]bool, error) {
	out := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		fh, err := os.Open(f)
		if err != nil {
			if os.IsNotExist(err) {
				continue // no IPv6
			}
			return nil, fmt.Errorf("read listening sockets: %w", err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) < 10 || fs[3] != "0A" { // 0A: TCP_LISTEN
				continue
			}
			_, hexPort, ok := strings.Cut(fs[1], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); ok && err == nil && int(p) == port && fs[9] != "0" {
				out[fs[9]] = true
			}
		}
		fh.Close()
	}
	return out, nil
}

// socketHolder returns the first of pids that holds one of inodes.
func socketHolder(pids []int, inodes map[string]bool) (int, bool) {
	for _, pid := range pids {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd"
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			link, err := os.Readlink(dir + "/" + e.Name())
			if ino, ok := strings.CutPrefix(link, "socket:["); err == nil && ok && inodes[strings.TrimSuffix(ino, "]")] {
				return pid, true
			}
		}
	}
	return 0, false
}

// errNoListener: nothing listens on the port (yet: a target whose ready
// URL is on another port may bind its own port a moment later).
var errNoListener = errors.New("ready, but no socket listens on port")

// listenerWait bounds how long awaitListener waits for the port to be
// bound after ready.
const listenerWait = 5 * time.Second

// awaitListener runs checkListener until a socket listens on port (for at
// most listenerWait) and returns its last answer: nil once it listens.
func awaitListener(ctx context.Context, p *procgroup.Process, port int) error {
	deadline := time.Now().Add(listenerWait)
	for {
		err := checkListener(p, port)
		if !errors.Is(err, errNoListener) || time.Now().After(deadline) || ctx.Err() != nil || p.Exited() {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkListener fails unless a process of p's start holds the socket
// listening on port.
func checkListener(p *procgroup.Process, port int) error {
	inodes, err := listenInodes(port)
	if err != nil {
		return err
	}
	if len(inodes) == 0 {
		return fmt.Errorf("%w %d in /proc/net/tcp", errNoListener, port)
	}
	owned, err := p.Owned()
	if err != nil {
		return err
	}
	var pids []int
	for _, m := range owned {
		pids = append(pids, m.PID)
	}
	if _, ok := socketHolder(pids, inodes); ok {
		return nil
	}
	who := "a process this user cannot inspect"
	if all, err := allPIDs(); err == nil {
		if pid, ok := socketHolder(all, inodes); ok {
			cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			who = fmt.Sprintf("pid %d (%s)", pid, strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " ")))
		}
	}
	return fmt.Errorf("port %d is answered by %s, not by a process of this target start (pid %d): another run or a stray server holds the port", port, who, p.PID())
}

func allPIDs() ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out, nil
}
