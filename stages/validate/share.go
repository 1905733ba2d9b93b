package validate

import (
	"strconv"

	"yardstick/pipeline"
)

// checkShares: each declared share (placement.share) names two different
// roles that have CPU sets, and no pair twice. A share whose sets do not
// overlap is a warning (it declares a compromise the placement does not
// make); a share with the target is a warning too: the target then
// competes for its CPUs with what it is measured against, and its
// placement row will fail.
func checkShares(c *checker) {
	pl := c.b.Placement
	seen := map[[2]string]bool{}
	for i, s := range pl.Share {
		pos := c.pos("placement", "share", strconv.Itoa(i))
		a, b := s.Roles[0], s.Roles[1]
		if a == b {
			c.add(Error, "placement", pos, "placement.share: %s shares with itself; name two different roles", a)
			continue
		}
		key := [2]string{min(a, b), max(a, b)}
		if seen[key] {
			c.add(Error, "placement", pos, "placement.share: %s and %s are declared twice", a, b)
			continue
		}
		seen[key] = true
		missing := false
		for _, r := range s.Roles {
			if c.b.CPULists.List(r) == "" {
				c.add(Error, "placement", pos, "placement.share names %s, which has no CPU set (add placement.%s)", r, r)
				missing = true
			}
		}
		if missing {
			continue
		}
		if len(pl.SharedCPUs(s)) == 0 {
			c.add(Warning, "placement", pos, "placement.share: %s %s and %s %s do not overlap; drop the share or the sets are not what was meant", a, c.b.CPULists.List(a), b, c.b.CPULists.List(b))
			continue
		}
		if a == pipeline.RoleTarget || b == pipeline.RoleTarget {
			c.add(Warning, "placement", pos, "%s: the target competes for its own CPUs; its placement row will fail and every cell of the batch is unfair", pl.ShareText(s))
		}
	}
}
