// Package hosts says where the processes of a two-host batch run: the
// target (and its services) on one host, the load generator on another.
// Who the hosts are is not in the definition but given at run time, as a
// launcher for each side:
//
//   - "local": this host, as in a one-host batch;
//   - "netns:NAME": the network namespace NAME on this host, entered with
//     `ip netns exec NAME` (which execs: the process keeps its PID, so the
//     target's /proc is sampled from the root namespace as usual);
//   - "srun:N": component N of the Slurm heterogeneous job yardstick runs
//     in, through `srun --het-group=N --ntasks=1` (load generator only).
//
// The load then goes to the target host's address, and to nothing else:
// [Pair.Resolve] accepts only an address the target host itself holds
// (an interface of its namespace, or of this node), and in a Slurm job only
// one of the addresses the job's own nodes resolve to. The load generator
// is told that one address in its spec's allow-list and refuses any other.
package hosts

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A Host is where a process runs: this host, a network namespace, or a
// Slurm het-job component.
type Host struct {
	// Kind is "local", "netns" or "srun".
	Kind string
	// Name is the namespace's name (netns) or the het group (srun).
	Name string
}

// Local is this host.
var Local = Host{Kind: "local"}

var netnsName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// Parse reads a launcher as given on the command line: "local" (or ""),
// "netns:NAME" or "srun:N".
func Parse(s string) (Host, error) {
	kind, name, _ := strings.Cut(s, ":")
	switch kind {
	case "", "local":
		if name != "" {
			return Host{}, fmt.Errorf("host %q: local takes no name", s)
		}
		return Local, nil
	case "netns":
		if !netnsName.MatchString(name) {
			return Host{}, fmt.Errorf("host %q: want netns:NAME, NAME letters, digits, '.', '_' and '-' (as `ip netns list` shows it)", s)
		}
		return Host{Kind: "netns", Name: name}, nil
	case "srun":
		n, err := strconv.Atoi(name)
		if err != nil || n < 0 || n > 127 || strconv.Itoa(n) != name {
			return Host{}, fmt.Errorf("host %q: want srun:N, N the het-job component (0..127) the process runs on", s)
		}
		return Host{Kind: "srun", Name: name}, nil
	}
	return Host{}, fmt.Errorf("host %q: want local, netns:NAME or srun:N", s)
}

// String is the launcher as Parse reads it.
func (h Host) String() string {
	if h.Kind == "" || h.Kind == "local" {
		return "local"
	}
	return h.Kind + ":" + h.Name
}

// IsLocal reports whether h is this host itself.
func (h Host) IsLocal() bool { return h.Kind == "" || h.Kind == "local" }

// Wrap returns the command line that runs argv on h. The wrapper execs
// argv (ip netns exec) or runs it as one remote task whose standard
// input and output are forwarded (srun), so the driver protocol runs over
// the wrapper's stdin and stdout unchanged.
func (h Host) Wrap(argv []string) []string {
	switch h.Kind {
	case "netns":
		return append([]string{"ip", "netns", "exec", h.Name}, argv...)
	case "srun":
		return append(SrunArgs(h.Name), argv...)
	}
	return slices.Clone(argv)
}

// SrunArgs is the srun command line that starts one task on het-job
// component group: one node, one task, no CPU binding of its own (the
// load generator pins itself to its --cpus), the step killed if the task
// fails, srun's own messages kept off the protocol's stdout.
func SrunArgs(group string) []string {
	return []string{"srun", "--het-group=" + group, "--nodes=1", "--ntasks=1", "--cpu-bind=none", "--kill-on-bad-exit=1", "--quiet"}
}

// A Pair is the two hosts of a two-host batch and the address the load
// goes to: the target host's.
type Pair struct {
	Target, Loadgen Host
	// Addr is the target host's address, an IP literal, once resolved.
	Addr string
}

// ErrNoHosts says a two-host batch was given no hosts.
var ErrNoHosts = errors.New("the batch declares placement.hosts: \"separate\" (the load generator on another host than the target), " +
	"but no hosts were given: run with --target-host and --loadgen-host (local, netns:NAME or srun:N) and --target-addr, " +
	"or declare the batch on one host")

// Check checks the pair's shape: two different hosts, the target on this
// node or in one of its namespaces (yardstick samples its /proc and probes
// it), the load generator anywhere.
func (p Pair) Check() error {
	if p.Target.Kind == "srun" {
		return fmt.Errorf("--target-host %s: the target runs where yardstick runs (its /proc is sampled there); in a Slurm het job run yardstick on component 0 and give the load generator srun:N", p.Target)
	}
	if p.Target == p.Loadgen || (p.Target.IsLocal() && p.Loadgen.IsLocal()) {
		return fmt.Errorf("--target-host and --loadgen-host are both %s: a two-host batch needs two hosts", p.Target)
	}
	return nil
}

// Env is what Resolve reads of the world: the environment (Slurm's
// variables) and name resolution (a Slurm job's node names).
type Env struct {
	Getenv   func(string) string
	LookupIP func(string) ([]net.IP, error)
}

// Resolve checks the pair and settles the address the load goes to. given
// is an IP literal, or "" inside a Slurm job for this node's own address
// (SLURMD_NODENAME resolved). The address must be one the target host
// holds (an interface of its namespace, or of this node); inside a Slurm
// job it must also be one that a node of the job resolves to. A loopback
// address is refused when a side is a namespace: it would not leave it.
func (p Pair) Resolve(given string, env Env) (Pair, error) {
	if err := p.Check(); err != nil {
		return p, err
	}
	for _, h := range []Host{p.Target, p.Loadgen} {
		var err error
		switch h.Kind {
		case "netns":
			err = checkNetns(h.Name)
		case "srun":
			err = checkSrun(h, env.Getenv)
		}
		if err != nil {
			return p, err
		}
	}
	held, err := p.Target.addrs()
	if err != nil {
		return p, err
	}
	return p.resolveAddr(given, held, env)
}

// resolveAddr is Resolve's choice of address among held, the target
// host's own.
func (p Pair) resolveAddr(given string, held []net.IP, env Env) (Pair, error) {
	var err error
	inJob := env.Getenv("SLURM_JOB_ID") != ""
	var job map[string][]net.IP
	var nodes []string
	if inJob {
		if nodes, err = JobNodes(env.Getenv); err != nil {
			return p, err
		}
		job = nodeAddrs(nodes, env.LookupIP)
	}
	if given == "" {
		if !inJob {
			return p, fmt.Errorf("--target-addr is required: the address of the target host %s that the load generator on %s reaches it at", p.Target, p.Loadgen)
		}
		node := env.Getenv("SLURMD_NODENAME")
		for _, ip := range job[node] {
			if hasIP(held, ip) {
				given = ip.String()
				break
			}
		}
		if given == "" {
			return p, fmt.Errorf("this node (SLURMD_NODENAME %q) resolves to no address it holds (%s): give --target-addr", node, ipList(held))
		}
	}
	ip := net.ParseIP(given)
	if ip == nil {
		return p, fmt.Errorf("--target-addr %q: want an IP address (names are not resolved)", given)
	}
	if ip.IsLoopback() && (p.Target.Kind == "netns" || p.Loadgen.Kind == "netns") {
		return p, fmt.Errorf("--target-addr %s: a loopback address does not leave a network namespace; give the address of the target's interface", ip)
	}
	if !hasIP(held, ip) {
		return p, fmt.Errorf("--target-addr %s: not an address of the target host %s (it holds %s); load goes only to the target host", ip, p.Target, ipList(held))
	}
	if inJob && !ip.IsLoopback() && !jobHas(job, ip) {
		return p, fmt.Errorf("--target-addr %s: not an address of the Slurm job's own nodes (%s); load goes only to the job's nodes", ip, strings.Join(nodes, ","))
	}
	p.Addr = ip.String()
	return p, nil
}

func hasIP(ips []net.IP, ip net.IP) bool {
	return slices.ContainsFunc(ips, ip.Equal)
}

func jobHas(job map[string][]net.IP, ip net.IP) bool {
	for _, ips := range job {
		if hasIP(ips, ip) {
			return true
		}
	}
	return false
}

func ipList(ips []net.IP) string {
	if len(ips) == 0 {
		return "no address"
	}
	s := make([]string, len(ips))
	for i, ip := range ips {
		s[i] = ip.String()
	}
	return strings.Join(s, ", ")
}
