package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"yardstick/pipeline/cpuset"
)

// Placement roles, as named in placement and in share.
const (
	RoleTarget   = "target"
	RoleServices = "services"
	RoleLoadgen  = "loadgen"
)

// A Share is a declared overlap of two placement roles' CPU sets: on a
// machine too small for disjoint sets (2 CPUs cannot give the target, an
// upstream and the load generator one each), the definition says which two
// may share and why. It is never silent: plan prints it, the fairness
// table records a placement row, the report says it in words.
type Share struct {
	Roles  [2]string `json:"roles"`
	Reason string    `json:"reason"`
}

// Shares reports whether the placement declares that roles a and b may
// share CPUs.
func (p Placement) Shares(a, b string) bool {
	return slices.ContainsFunc(p.Share, func(s Share) bool {
		return (s.Roles[0] == a && s.Roles[1] == b) || (s.Roles[0] == b && s.Roles[1] == a)
	})
}

// Set returns the CPU set of role (empty when the role has none).
func (p Placement) Set(role string) cpuset.Set {
	switch role {
	case RoleTarget:
		return p.Target
	case RoleServices:
		return p.Services
	case RoleLoadgen:
		return p.Loadgen
	}
	return nil
}

// SharedCPUs returns the CPUs the two roles of s have in common, nil when
// a set is missing.
func (p Placement) SharedCPUs(s Share) cpuset.Set {
	return p.Set(s.Roles[0]).Intersect(p.Set(s.Roles[1]))
}

// ShareText says one declared share in words: "services and loadgen share
// CPU 1 (the machine has 2 CPUs)".
func (p Placement) ShareText(s Share) string {
	both := p.SharedCPUs(s)
	cpus := "no CPU"
	if len(both) > 0 {
		cpus = "CPU " + both.String()
	}
	return fmt.Sprintf("%s and %s share %s (declared: %s)", s.Roles[0], s.Roles[1], cpus, strings.TrimSpace(s.Reason))
}
