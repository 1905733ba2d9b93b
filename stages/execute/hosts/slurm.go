package hosts

import (
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
)

// maxNodes bounds a node list's expansion.
const maxNodes = 65536

// ExpandHostlist expands a Slurm node list as SLURM_JOB_NODELIST writes
// it ("n[01-03,7],gpu1") into node names ("n01", "n02", "n03", "n7",
// "gpu1"), keeping the zero padding of each range.
func ExpandHostlist(s string) ([]string, error) {
	var out []string
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '[':
				depth++
				continue
			case ']':
				depth--
				if depth < 0 {
					return nil, fmt.Errorf("node list %q: ']' without '['", s)
				}
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		part := s[start:i]
		start = i + 1
		if part == "" {
			continue
		}
		names, err := expandOne(part, maxNodes-len(out))
		if err != nil {
			return nil, fmt.Errorf("node list %q: %w", s, err)
		}
		out = append(out, names...)
	}
	if depth != 0 {
		return nil, fmt.Errorf("node list %q: '[' without ']'", s)
	}
	return out, nil
}

// expandOne expands one name with bracketed ranges, at most limit names.
func expandOne(p string, limit int) ([]string, error) {
	i := strings.IndexByte(p, '[')
	if i < 0 {
		if strings.ContainsAny(p, "]") {
			return nil, fmt.Errorf("%q: ']' without '['", p)
		}
		return []string{p}, nil
	}
	j := strings.IndexByte(p[i:], ']')
	if j < 0 {
		return nil, fmt.Errorf("%q: '[' without ']'", p)
	}
	j += i
	prefix, ranges, rest := p[:i], p[i+1:j], p[j+1:]
	tails, err := expandOne(rest, limit)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range strings.Split(ranges, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return nil, fmt.Errorf("%q: bad range %q", p, r)
		}
		if (b-a+1)*len(tails)+len(out) > limit {
			return nil, fmt.Errorf("%q: more than %d nodes", p, maxNodes)
		}
		for n := a; n <= b; n++ {
			num := fmt.Sprintf("%0*d", len(lo), n)
			for _, t := range tails {
				out = append(out, prefix+num+t)
			}
		}
	}
	return out, nil
}

// checkSrun checks that h can start a task: srun is installed and
// yardstick runs inside a Slurm job with that het-job component.
func checkSrun(h Host, getenv func(string) string) error {
	if getenv("SLURM_JOB_ID") == "" {
		return fmt.Errorf("%s: not inside a Slurm job (no SLURM_JOB_ID): submit a heterogeneous job whose script runs yardstick on component 0", h)
	}
	g, _ := strconv.Atoi(h.Name)
	size, err := strconv.Atoi(getenv("SLURM_HET_SIZE"))
	if err != nil {
		return fmt.Errorf("%s: not a heterogeneous job (no SLURM_HET_SIZE): submit one with a component for the load generator (#SBATCH hetjob)", h)
	}
	if g >= size {
		return fmt.Errorf("%s: the job has %d components (0..%d)", h, size, size-1)
	}
	if _, err := exec.LookPath("srun"); err != nil {
		return fmt.Errorf("%s: no srun command (install the Slurm client: apt-get install slurm-client): %w", h, err)
	}
	return nil
}

// JobNodes lists the nodes of the Slurm job yardstick runs in: every
// het-job component's (SLURM_JOB_NODELIST_HET_GROUP_N), or the job's
// SLURM_JOB_NODELIST.
func JobNodes(getenv func(string) string) ([]string, error) {
	lists := []string{getenv("SLURM_JOB_NODELIST")}
	if size, err := strconv.Atoi(getenv("SLURM_HET_SIZE")); err == nil {
		for g := 0; g < size && g < 128; g++ {
			lists = append(lists, getenv("SLURM_JOB_NODELIST_HET_GROUP_"+strconv.Itoa(g)))
		}
	}
	seen := map[string]bool{}
	var nodes []string
	for _, l := range lists {
		names, err := ExpandHostlist(l)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				nodes = append(nodes, n)
			}
		}
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("the Slurm job's node list is empty (SLURM_JOB_NODELIST)")
	}
	return nodes, nil
}

// nodeAddrs resolves node names to their addresses; a name that does not
// resolve adds none.
func nodeAddrs(nodes []string, lookup func(string) ([]net.IP, error)) map[string][]net.IP {
	out := map[string][]net.IP{}
	for _, n := range nodes {
		if ips, err := lookup(n); err == nil {
			out[n] = ips
		}
	}
	return out
}
