// Package procgroup starts and stops the processes a run owns: targets,
// services and the load generator. Each runs in its own process group,
// pinned to its CPU set from the moment it is forked, and dies with
// yardstick (PR_SET_PDEATHSIG) if yardstick is killed. Every process
// carries its start's owner mark in its environment, so that a descendant
// that left the group is still found, killed and reported when the start
// stops (owned.go).
//
// Start forks from an OS thread that does nothing else: that thread's CPU
// affinity is set to the CPU set first, so the child inherits it (every
// thread the child creates then inherits it too), and the thread stays
// locked until the child has been waited for, because the kernel sends the
// death signal when the forking thread exits. Then the thread's own mask is
// restored.
package procgroup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"yardstick/stages/execute/cgroup"
)

// Spec says what to start.
type Spec struct {
	Argv []string
	// Env is added to (and overrides) yardstick's own environment.
	Env []string
	Dir string
	// CPUs pins the process; empty means no pinning.
	CPUs []int
	// Stdout and Stderr receive the process's output; nil discards it.
	Stdout, Stderr io.Writer
	// Stdin, when set, is the process's standard input.
	Stdin io.Reader
	// ExtraFiles, Pipes: a caller that needs pipes sets Setup instead.
	// Setup may adjust the command before it starts (pipes, for example).
	Setup func(*exec.Cmd) error
	// Cgroup, when set, starts the process in a control group of its own
	// with these limits (zero limits: the group only owns and counts the
	// processes). Every descendant is born in it, and Stop kills them all.
	Cgroup *cgroup.Limits
}

// A Process is a started process group.
type Process struct {
	Cmd     *exec.Cmd
	Started time.Time // just before fork
	owner   string    // the OwnerEnv value of this start
	group   *cgroup.Group
	done    chan struct{}
	waitErr error
	mu      sync.Mutex
}

// Start starts the process described by s in its own process group.
func Start(s Spec) (*Process, error) {
	if len(s.Argv) == 0 {
		return nil, errors.New("start: empty command")
	}
	cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
	owner := newOwner()
	cmd.Env = append(append(os.Environ(), s.Env...), OwnerEnv+"="+owner)
	cmd.Dir = s.Dir
	cmd.Stdout, cmd.Stderr, cmd.Stdin = s.Stdout, s.Stderr, s.Stdin
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,
		Pdeathsig: syscall.SIGKILL,
	}
	if s.Setup != nil {
		if err := s.Setup(cmd); err != nil {
			return nil, fmt.Errorf("start %s: %w", s.Argv[0], err)
		}
	}
	p := &Process{Cmd: cmd, owner: owner, done: make(chan struct{})}
	if s.Cgroup != nil {
		g, err := cgroup.New(strings.ReplaceAll(owner, ".", "-"), *s.Cgroup)
		if err != nil {
			return nil, fmt.Errorf("start %s: %w", s.Argv[0], err)
		}
		p.group = g
	}
	started := make(chan error, 1)
	go func() {
		// This goroutine owns its thread until the child is reaped: the
		// kernel sends the death signal when the forking thread exits, and
		// the thread carries the child's CPU mask meanwhile. Afterwards the
		// thread gets its own mask back and returns to the pool.
		runtime.LockOSThread()
		var saved unix.CPUSet
		pinned := false
		defer func() {
			if pinned {
				if err := unix.SchedSetaffinity(0, &saved); err != nil {
					return // stay locked: the thread exits with the goroutine
				}
			}
			runtime.UnlockOSThread()
		}()
		if len(s.CPUs) > 0 {
			if err := unix.SchedGetaffinity(0, &saved); err != nil {
				started <- fmt.Errorf("read CPU affinity: %w", err)
				return
			}
			var set unix.CPUSet
			for _, c := range s.CPUs {
				set.Set(c)
			}
			if err := unix.SchedSetaffinity(0, &set); err != nil {
				started <- fmt.Errorf("pin to CPUs %v: %w", s.CPUs, err)
				return
			}
			pinned = true
		}
		p.Started = time.Now()
		if err := p.fork(); err != nil {
			started <- err
			return
		}
		started <- nil
		err := cmd.Wait()
		p.mu.Lock()
		p.waitErr = err
		p.mu.Unlock()
		close(p.done)
	}()
	if err := <-started; err != nil {
		if p.group != nil {
			_ = p.group.Delete()
		}
		return nil, fmt.Errorf("start %s: %w", s.Argv[0], err)
	}
	return p, nil
}

// fork starts the command, in its control group if it has one; it runs on
// the locked thread that waits for the child.
func (p *Process) fork() error {
	if p.group != nil {
		return p.group.Start(p.Cmd)
	}
	return p.Cmd.Start()
}

// Cgroup is the process's control group, nil without one.
func (p *Process) Cgroup() *cgroup.Group { return p.group }

// PID is the process id, also its process group id.
func (p *Process) PID() int { return p.Cmd.Process.Pid }

// Done is closed when the process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// ExitStatus describes how the process ended ("exit 0", "signal: killed"),
// or "running".
func (p *Process) ExitStatus() string {
	if !p.Exited() {
		return "running"
	}
	st := p.Cmd.ProcessState
	if st == nil {
		return "unknown"
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "signal: " + ws.Signal().String()
	}
	return fmt.Sprintf("exit %d", st.ExitCode())
}

// Signal sends sig to the whole process group.
func (p *Process) Signal(sig syscall.Signal) error {
	err := syscall.Kill(-p.PID(), sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// groupGoneWait bounds how long Stop waits for the rest of the group (the
// leader's children, reparented once it exits) to disappear.
const groupGoneWait = 5 * time.Second

// A StopReport says how a Stop went beyond the polite path, so that the
// caller can log it: a target that ignores SIGTERM, or leaves processes
// behind, is worth knowing about.
type StopReport struct {
	// Killed: the leader did not exit within grace of SIGTERM and was
	// killed.
	Killed bool
	// Lingering: processes of the group were still alive groupGoneWait
	// after the leader was reaped.
	Lingering bool
	// Leftovers are the processes of the start that outlived its group
	// (they had left it, with setsid for example) and were killed.
	Leftovers []Member
	// CgroupErr says why the start's control group could not be emptied
	// or removed; nil when it was (or there was none).
	CgroupErr error
}

// Stop ends the process group: SIGTERM, then SIGKILL after grace if the
// leader has not exited; then SIGKILL to whatever is left in the group.
// It returns once the leader has been reaped and no process of the group
// is left (or groupGoneWait has passed), so that the ports and files the
// group held are free for the next start.
func (p *Process) Stop(grace time.Duration) StopReport {
	var rep StopReport
	if !p.Exited() {
		_ = p.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
			rep.Killed = true
		}
	}
	_ = p.Signal(syscall.SIGKILL)
	<-p.done
	deadline := time.Now().Add(groupGoneWait)
	for GroupAlive(p.PID()) && time.Now().Before(deadline) {
		_ = p.Signal(syscall.SIGKILL)
		reapGroupZombies(p.PID())
		time.Sleep(5 * time.Millisecond)
	}
	rep.Lingering = GroupAlive(p.PID())
	if p.group != nil {
		rep.Leftovers, rep.CgroupErr = p.killGroup()
		return rep
	}
	rep.Leftovers = p.killLeftovers()
	return rep
}

// GroupAlive reports whether any process of process group pgid exists
// (zombies included, until their new parent reaps them).
func GroupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}

// Wait waits for the process to exit, or for ctx.
func (p *Process) Wait(ctx context.Context) error {
	select {
	case <-p.done:
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.waitErr
	case <-ctx.Done():
		return ctx.Err()
	}
}
