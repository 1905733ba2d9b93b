package procgroup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Ownership: a process that leaves its group (setsid, setpgid) is out of
// reach of the group's SIGKILL, and once its parent exits it is reparented
// away from its start. Every started process therefore carries OwnerEnv in
// its environment, which its descendants inherit, and yardstick is made
// the subreaper of its descendants, so that an orphan becomes yardstick's
// child (and zombie, to reap) instead of init's. Owned walks /proc for the
// members of a start: its group, the descendants of its leader, and every
// process that carries its OwnerEnv value. (A process that both leaves the
// group and clears its environment after its parent exits is not found
// this way.) A start with a control group (Spec.Cgroup) closes that gap:
// its members are the group's processes, each born in it, and Stop kills
// the whole group.

// OwnerEnv names the environment variable that marks the processes of one
// start.
const OwnerEnv = "YARDSTICK_OWNER"

var owners atomic.Int64

// newOwner returns a token no other start of this process has.
func newOwner() string { return fmt.Sprintf("%d.%d", os.Getpid(), owners.Add(1)) }

// EnableSubreaper makes the calling process the reaper of its orphaned
// descendants (PR_SET_CHILD_SUBREAPER).
func EnableSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("become the subreaper of started processes: %w", err)
	}
	return nil
}

// A Member is one process of a start, found in /proc.
type Member struct {
	PID  int
	PPID int
	PGID int
	Cmd  string // the command line, arguments joined by spaces
}

// Owned lists the live processes of p's start, the leader included while
// it runs: its process group, the descendants of any of them, and the
// processes that carry p's OwnerEnv value.
func (p *Process) Owned() ([]Member, error) {
	if p.group != nil {
		return p.groupMembers()
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	marker := []byte(OwnerEnv + "=" + p.owner + "\x00")
	all := map[int]Member{}
	in := map[int]bool{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		m, ok := readMember(pid)
		if !ok {
			continue
		}
		all[pid] = m
		env, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		in[pid] = m.PGID == p.PID() || pid == p.PID() || bytes.Contains(env, marker)
	}
	// Descendants of members are members: walk up each parent chain.
	var out []Member
	for pid, m := range all {
		for q, hops := pid, 0; q > 1 && hops < len(all); hops++ {
			if in[q] {
				in[pid] = true
				break
			}
			q = all[q].PPID
		}
		if in[pid] {
			out = append(out, m)
		}
	}
	return out, nil
}

// groupMembers lists the live processes of p's control group.
func (p *Process) groupMembers() ([]Member, error) {
	pids, err := p.group.PIDs()
	if err != nil {
		return nil, fmt.Errorf("list the processes of cgroup %s: %w", p.group.Where(), err)
	}
	var out []Member
	for _, pid := range pids {
		if m, ok := readMember(pid); ok && pid != os.Getpid() {
			out = append(out, m)
		}
	}
	return out, nil
}

// killGroup kills what is left in p's control group once its process
// group is gone (the processes that left it), reports them, and removes
// the control group.
func (p *Process) killGroup() ([]Member, error) {
	left, _ := p.groupMembers()
	_, err := p.group.Kill()
	for _, m := range left {
		if m.PPID == os.Getpid() {
			reapIfChild(m.PID) // a zombie is out of the group, not yet gone
		}
	}
	if err != nil {
		return left, err
	}
	return left, p.group.Delete()
}

// readMember reads a live (not zombie) process's ids and command line.
func readMember(pid int) (Member, bool) {
	state, ppid, pgid, ok := readStat(pid)
	if !ok || state == "Z" || state == "X" {
		return Member{}, false
	}
	cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return Member{PID: pid, PPID: ppid, PGID: pgid, Cmd: strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))}, true
}

// readStat reads a process's state, parent and process group from
// /proc/<pid>/stat (the command name, in parentheses, may hold anything).
func readStat(pid int) (state string, ppid, pgid int, ok bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(stat, ')')
	if err != nil || i < 0 {
		return "", 0, 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 3 {
		return "", 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	pgid, _ = strconv.Atoi(f[2])
	return f[0], ppid, pgid, true
}

// killLeftovers kills the processes of p's start that outlived its group
// and reaps those that were reparented to this process.
func (p *Process) killLeftovers() []Member {
	owned, err := p.Owned()
	if err != nil {
		return nil
	}
	var left []Member
	for _, m := range owned {
		if m.PID != p.PID() {
			left = append(left, m)
		}
	}
	for _, m := range left {
		_ = syscall.Kill(m.PID, syscall.SIGKILL)
	}
	for _, m := range left {
		if m.PPID == os.Getpid() {
			reapIfChild(m.PID)
		}
	}
	return left
}

// reapGroupZombies reaps the exited members of group pgid that were
// reparented to this process (the subreaper) when their leader exited:
// until reaped they keep the group alive.
func reapGroupZombies(pgid int) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == pgid {
			continue
		}
		if state, ppid, g, ok := readStat(pid); ok && state == "Z" && ppid == os.Getpid() && g == pgid {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		}
	}
}

// reapIfChild waits (briefly) for pid if it is this process's child: a
// killed orphan reparented here stays a zombie until reaped.
func reapIfChild(pid int) {
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		var ws unix.WaitStatus
		got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		if got == pid || errors.Is(err, unix.ECHILD) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}
