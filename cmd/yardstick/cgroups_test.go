package main

import (
	"fmt"
	"os"

	"yardstick/stages/execute/cgroup"
)

// scriptCondition answers the scripts' own conditions: [cgroups] holds
// where yardstick can make control groups for limits (root, with a
// cgroup filesystem).
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "cgroups":
		return os.Geteuid() == 0 && cgroup.Mode() != "none", nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}
