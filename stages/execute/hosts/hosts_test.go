package hosts

import (
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	ok := map[string]Host{
		"":              Local,
		"local":         Local,
		"netns:ysA":     {Kind: "netns", Name: "ysA"},
		"netns:a.b_c-1": {Kind: "netns", Name: "a.b_c-1"},
		"srun:1":        {Kind: "srun", Name: "1"},
	}
	for in, want := range ok {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if again, err := Parse(got.String()); err != nil || again != got {
			t.Errorf("Parse(%q.String()=%q) = %+v, %v", in, got.String(), again, err)
		}
	}
	for _, in := range []string{"netns:", "netns:../etc", "netns:a/b", "netns:-x", "srun:", "srun:x", "srun:-1", "srun:01", "srun:128", "ssh:host", "local:x", "10.0.0.1"} {
		if h, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", in, h)
		}
	}
}

func TestWrap(t *testing.T) {
	t.Parallel()
	argv := []string{"bin/yardstick", "loadgen", "--stdio", "--cpus", "1"}
	cases := map[string][]string{
		"local":     argv,
		"netns:ysB": append([]string{"ip", "netns", "exec", "ysB"}, argv...),
		"srun:1":    append([]string{"srun", "--het-group=1", "--nodes=1", "--ntasks=1", "--cpu-bind=none", "--kill-on-bad-exit=1", "--quiet"}, argv...),
	}
	for in, want := range cases {
		h, _ := Parse(in)
		if got := h.Wrap(argv); !slices.Equal(got, want) {
			t.Errorf("%s: Wrap = %q, want %q", in, got, want)
		}
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	a, b, s := Host{Kind: "netns", Name: "a"}, Host{Kind: "netns", Name: "b"}, Host{Kind: "srun", Name: "1"}
	for _, p := range []Pair{{Target: a, Loadgen: b}, {Target: Local, Loadgen: s}, {Target: Local, Loadgen: a}, {Target: a, Loadgen: Local}} {
		if err := p.Check(); err != nil {
			t.Errorf("%v: %v", p, err)
		}
	}
	for _, p := range []Pair{{Target: a, Loadgen: a}, {Target: Local, Loadgen: Local}, {Target: Host{}, Loadgen: Local}, {Target: s, Loadgen: Local}} {
		if err := p.Check(); err == nil {
			t.Errorf("%v: accepted", p)
		}
	}
}

func TestExpandHostlist(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"node1":           {"node1"},
		"n[1-3]":          {"n1", "n2", "n3"},
		"n[01-03,7],gpu1": {"n01", "n02", "n03", "n7", "gpu1"},
		"r[1-2]-n[1-2]":   {"r1-n1", "r1-n2", "r2-n1", "r2-n2"},
		"a,b[009-011]x,c": {"a", "b009x", "b010x", "b011x", "c"},
		"":                nil,
	}
	for in, want := range cases {
		got, err := ExpandHostlist(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ExpandHostlist(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"n[1-", "n]1[", "n[3-1]", "n[a-b]", "n[1-2]]", "n[0-99999999]"} {
		if got, err := ExpandHostlist(in); err == nil {
			t.Errorf("ExpandHostlist(%q) = %q, want an error", in, got)
		}
	}
}

func env(vars map[string]string, names map[string][]string) Env {
	return Env{
		Getenv: func(k string) string { return vars[k] },
		LookupIP: func(n string) ([]net.IP, error) {
			var ips []net.IP
			for _, s := range names[n] {
				ips = append(ips, net.ParseIP(s))
			}
			if len(ips) == 0 {
				return nil, errors.New("no such host")
			}
			return ips, nil
		},
	}
}

func ips(ss ...string) []net.IP {
	var out []net.IP
	for _, s := range ss {
		out = append(out, net.ParseIP(s))
	}
	return out
}

// TestResolveAddr: the load goes to an address the target host holds, and
// in a Slurm job to one of the job's own nodes; anything else is refused.
func TestResolveAddr(t *testing.T) {
	t.Parallel()
	nsPair := Pair{Target: Host{Kind: "netns", Name: "ysA"}, Loadgen: Host{Kind: "netns", Name: "ysB"}}
	held := ips("127.0.0.1", "10.213.0.1")
	none := env(nil, nil)
	if p, err := nsPair.resolveAddr("10.213.0.1", held, none); err != nil || p.Addr != "10.213.0.1" {
		t.Errorf("held address: %+v, %v", p, err)
	}
	for given, want := range map[string]string{
		"10.213.0.2":    "not an address of the target host",
		"192.0.2.1":     "not an address of the target host",
		"127.0.0.1":     "loopback address does not leave",
		"":              "--target-addr is required",
		"ysA":           "want an IP address",
		"10.213.0.1/30": "want an IP address",
	} {
		if _, err := nsPair.resolveAddr(given, held, none); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("given %q: err = %v, want %q", given, err, want)
		}
	}

	// A Slurm het job: yardstick and the target on n1 (component 0), the
	// load generator on n2 (component 1).
	slurm := Pair{Target: Local, Loadgen: Host{Kind: "srun", Name: "1"}}
	job := env(map[string]string{
		"SLURM_JOB_ID": "7", "SLURM_HET_SIZE": "2", "SLURMD_NODENAME": "n1",
		"SLURM_JOB_NODELIST": "n1", "SLURM_JOB_NODELIST_HET_GROUP_0": "n1", "SLURM_JOB_NODELIST_HET_GROUP_1": "n2",
	}, map[string][]string{"n1": {"192.0.2.11"}, "n2": {"192.0.2.12"}, "other": {"192.0.2.99"}})
	n1 := ips("127.0.0.1", "192.0.2.11", "192.0.2.99")
	if p, err := slurm.resolveAddr("", n1, job); err != nil || p.Addr != "192.0.2.11" {
		t.Errorf("derived from SLURMD_NODENAME: %+v, %v", p, err)
	}
	if p, err := slurm.resolveAddr("192.0.2.11", n1, job); err != nil || p.Addr != "192.0.2.11" {
		t.Errorf("given, a node of the job: %+v, %v", p, err)
	}
	// 192.0.2.99 is held by this host but is no node of the job.
	if _, err := slurm.resolveAddr("192.0.2.99", n1, job); err == nil || !strings.Contains(err.Error(), "not an address of the Slurm job's own nodes") {
		t.Errorf("held, but not the job's: err = %v", err)
	}
	// 192.0.2.12 is a node of the job, but not the target's host.
	if _, err := slurm.resolveAddr("192.0.2.12", n1, job); err == nil || !strings.Contains(err.Error(), "not an address of the target host") {
		t.Errorf("the load generator's node: err = %v", err)
	}
	// Slurm nodes on one machine (NodeAddr 127.0.0.1) share its loopback.
	if p, err := slurm.resolveAddr("127.0.0.1", n1, job); err != nil || p.Addr != "127.0.0.1" {
		t.Errorf("loopback in a one-machine cluster: %+v, %v", p, err)
	}
}

func TestCheckSrun(t *testing.T) {
	t.Parallel()
	h := Host{Kind: "srun", Name: "1"}
	for vars, want := range map[*map[string]string]string{
		{}:                    "not inside a Slurm job",
		{"SLURM_JOB_ID": "3"}: "not a heterogeneous job",
		{"SLURM_JOB_ID": "3", "SLURM_HET_SIZE": "1"}: "the job has 1 components",
	} {
		if err := checkSrun(h, env(*vars, nil).Getenv); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: err = %v, want %q", *vars, err, want)
		}
	}
}

func TestResolveMissingNetns(t *testing.T) {
	t.Parallel()
	p := Pair{Target: Host{Kind: "netns", Name: "yardstick-no-such-ns"}, Loadgen: Local}
	if _, err := p.Resolve("10.213.0.1", env(nil, nil)); err == nil || !strings.Contains(err.Error(), "no such network namespace") {
		t.Errorf("err = %v", err)
	}
}
