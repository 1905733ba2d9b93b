package execute

import (
	"errors"
	"slices"
	"testing"

	"yardstick/loadgen"
	"yardstick/pipeline"
	"yardstick/pipeline/cpuset"
	"yardstick/stages/execute/hosts"
)

func TestCheckHosts(t *testing.T) {
	p := &pipeline.Plan{
		Batches: []pipeline.Batch{{Name: "one"}, {Name: "two", Placement: pipeline.Placement{Hosts: pipeline.HostsSeparate}}},
		Cells:   []pipeline.Cell{{ID: "a", Name: "one/x/c1/r1", Batch: "one"}, {ID: "b", Name: "two/x/c1/r1", Batch: "two"}},
	}
	pair := &hosts.Pair{Target: hosts.Host{Kind: "netns", Name: "a"}, Loadgen: hosts.Host{Kind: "netns", Name: "b"}, Addr: "10.213.0.1"}
	only, err := pipeline.ParseOnly("one/*/*/*")
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckHosts(p, pipeline.Only{}, nil); !errors.Is(err, hosts.ErrNoHosts) {
		t.Errorf("two-host batch, no hosts: %v", err)
	}
	if err := CheckHosts(p, only, nil); err != nil {
		t.Errorf("only the one-host batch, no hosts: %v", err)
	}
	if err := CheckHosts(p, only, pair); err == nil {
		t.Errorf("hosts, but only the one-host batch selected: accepted")
	}
	if err := CheckHosts(p, pipeline.Only{}, pair); err != nil {
		t.Errorf("two-host batch with hosts: %v", err)
	}
	unresolved := *pair
	unresolved.Addr = ""
	if err := CheckHosts(p, pipeline.Only{}, &unresolved); err == nil {
		t.Errorf("hosts without a resolved address: accepted")
	}
}

func TestTargetURL(t *testing.T) {
	one := &pipeline.Batch{}
	two := &pipeline.Batch{Placement: pipeline.Placement{Hosts: pipeline.HostsSeparate}}
	for _, c := range []struct {
		b     *pipeline.Batch
		addr  string
		url   string
		allow []string
	}{
		{one, "10.213.0.1", "http://127.0.0.1:8080", nil},
		{two, "10.213.0.1", "http://10.213.0.1:8080", []string{"10.213.0.1"}},
		{two, "fd00::1", "http://[fd00::1]:8080", []string{"fd00::1"}},
	} {
		r := &planRun{opts: Options{Hosts: &hosts.Pair{Addr: c.addr}}}
		u, allow := r.targetURL(c.b, 8080)
		if u != c.url || !slices.Equal(allow, c.allow) {
			t.Errorf("two-host %v, addr %s: %s %v; want %s %v", c.b.Placement.TwoHost(), c.addr, u, allow, c.url, c.allow)
		}
		s := loadgen.Spec{URL: u + "/x", Allow: allow, Connections: 1, Duration: loadgen.Duration(1e9)}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: the load generator refuses what the executor builds: %v", u, err)
		}
	}
}

func TestLoadgenMasks(t *testing.T) {
	res := &loadgen.Result{Affinity: pipeline.ThreadMasks{{CPUs: cpuset.Set{1}, Threads: 5}}}
	a := &pipeline.Affinity{LoadgenDeclared: cpuset.Set{1}}
	loadgenMasks(a, res)
	if len(a.Loadgen) != 1 || !a.Loadgen[0].CPUs.Equal(cpuset.Set{1}) || a.Loadgen[0].Threads != 5 {
		t.Errorf("masks not taken from the result: %+v", a.Loadgen)
	}
	read := &pipeline.Affinity{Loadgen: pipeline.ThreadMasks{{CPUs: cpuset.Set{0, 1}, Threads: 3}}}
	loadgenMasks(read, res)
	if len(read.Loadgen) != 1 || read.Loadgen[0].Threads != 3 {
		t.Errorf("masks read from /proc were replaced: %+v", read.Loadgen)
	}
	loadgenMasks(nil, res) // no affinity: nothing to fill, no panic
}
