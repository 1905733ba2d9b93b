package execute

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// A reaper is a small child process (`yardstick reap`) that outlives
// yardstick by a moment: yardstick tells it, over its stdin, each process
// group it starts ("+pgid") and stops ("-pgid"). When the pipe closes,
// because yardstick exited or was killed, even by SIGKILL, the reaper kills
// every group still registered. PDEATHSIG only reaches the processes
// yardstick started itself; a wrapper target's own children would survive
// without this.
type reaper struct {
	mu  sync.Mutex
	w   io.WriteCloser
	cmd *exec.Cmd
}

// startReaper starts `self reap`. It runs in a process group of its own, so
// that a Ctrl-C at the terminal reaches yardstick (which stops its groups
// itself) and not the reaper.
func startReaper(self string) (*reaper, error) {
	cmd := exec.Command(self, "reap")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the reaper: %w", err)
	}
	return &reaper{w: w, cmd: cmd}, nil
}

func (r *reaper) send(sign string, pgid int) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = io.WriteString(r.w, sign+strconv.Itoa(pgid)+"\n")
}

// add registers a started process group; remove one that is gone.
func (r *reaper) add(pgid int)    { r.send("+", pgid) }
func (r *reaper) remove(pgid int) { r.send("-", pgid) }

// close ends the reaper normally: every group it knows is killed (none,
// after a clean run) and it exits.
func (r *reaper) close() {
	if r == nil {
		return
	}
	r.w.Close()
	_ = r.cmd.Wait()
}

// Reap is the reaper's side: it reads "+pgid" and "-pgid" lines from in
// until EOF, then sends SIGKILL to every process group still registered.
// It returns the groups it killed.
func Reap(in io.Reader) []int {
	live := map[int]bool{}
	var order []int
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if len(line) < 2 {
			continue
		}
		pgid, err := strconv.Atoi(line[1:])
		if err != nil || pgid <= 1 {
			continue // never kill(-1) or kill(0): only real groups
		}
		switch line[0] {
		case '+':
			if !live[pgid] {
				order = append(order, pgid)
			}
			live[pgid] = true
		case '-':
			delete(live, pgid)
		}
	}
	var killed []int
	for _, pgid := range order {
		if live[pgid] {
			if syscall.Kill(-pgid, syscall.SIGKILL) == nil {
				killed = append(killed, pgid)
			}
		}
	}
	return killed
}
