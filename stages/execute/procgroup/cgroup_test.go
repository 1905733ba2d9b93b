package procgroup

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"yardstick/stages/execute/cgroup"
)

// TestCgroupOwnsTheEscapedChild: a child that leaves the process group
// (setsid), clears its environment (so the owner mark is gone) and
// outlives its parent is still in the start's control group, and Stop
// kills it and reports it. Without root or a cgroup filesystem the test
// is skipped; as root it must run.
func TestCgroupOwnsTheEscapedChild(t *testing.T) {
	if os.Geteuid() != 0 || cgroup.Mode() == "none" {
		t.Skipf("control groups cannot be made here (euid %d, hierarchy %s)", os.Geteuid(), cgroup.Mode())
	}
	pidFile := t.TempDir() + "/child"
	script := "setsid env -i sh -c 'echo $$ > " + pidFile + "; exec sleep 60' & sleep 30"
	p, err := Start(Spec{Argv: []string{"sh", "-c", script}, Cgroup: &cgroup.Limits{}})
	if err != nil {
		t.Fatal(err)
	}
	var child int
	for deadline := time.Now().Add(5 * time.Second); child == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	if child == 0 {
		p.Stop(time.Second)
		t.Fatal("the escaped child never wrote its pid")
	}
	owned, err := p.Owned()
	if err != nil {
		t.Fatal(err)
	}
	if !hasPID(owned, child) || !hasPID(owned, p.PID()) {
		t.Errorf("Owned() = %+v: want the leader %d and the escaped child %d", owned, p.PID(), child)
	}
	rep := p.Stop(time.Second)
	if rep.CgroupErr != nil {
		t.Fatal(rep.CgroupErr)
	}
	if !hasPID(rep.Leftovers, child) {
		t.Errorf("leftovers %+v: want the escaped child %d", rep.Leftovers, child)
	}
	if err := syscall.Kill(child, 0); err == nil && !zombie(strconv.Itoa(child)) {
		t.Errorf("escaped child %d outlived Stop", child)
	}
}

func hasPID(ms []Member, pid int) bool {
	for _, m := range ms {
		if m.PID == pid {
			return true
		}
	}
	return false
}
