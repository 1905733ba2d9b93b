package fairness

import (
	"fmt"
	"strings"

	"yardstick/pipeline"
)

// WarningPrefix starts the detail of a row that passed with a warning: a
// declared compromise that the reader must know, which does not make the
// cells unfair (pipeline.FairnessRow.Pass stays true).
const WarningPrefix = "warning: "

// placement records one batch row per declared CPU share
// (placement.share): the run was made on a machine too small for
// disjoint CPU sets, and the definition said so. A share that keeps the
// target's CPUs its own (services beside the load generator) is warned:
// the target was measured alone on its cores, but its helpers and its
// load competed with each other. A share that includes the target fails:
// the target competed for its own CPUs with what measures it, so no
// number of the batch is the target's alone. Measured is the number of
// CPUs shared, Expected 0 (disjoint sets).
func (bc *batchCheck) placement() {
	pl := bc.b.Placement
	for _, s := range pl.Share {
		shared := pl.SharedCPUs(s)
		withTarget := s.Roles[0] == pipeline.RoleTarget || s.Roles[1] == pipeline.RoleTarget
		var detail string
		if withTarget {
			detail = fmt.Sprintf("%s: the target competed for its own CPUs, so every cell of the batch measured the machine as much as the target", pl.ShareText(s))
		} else {
			detail = WarningPrefix + fmt.Sprintf("%s: the target kept CPU %s to itself; %s competed with each other, so the load generator's and the services' headroom is smaller than on disjoint sets",
				pl.ShareText(s), pl.Target, strings.Join(s.Roles[:], " and "))
		}
		bc.add(pipeline.FairnessRow{Check: "placement", Scope: "batch", Expected: num(0), Measured: num(float64(len(shared))), Unit: str("shared CPUs"),
			Pass: !withTarget, Detail: str(detail)})
	}
}

// IsWarning reports whether a passed row carries a warning (WarningPrefix).
func IsWarning(r pipeline.FairnessRow) bool {
	return r.Pass && r.Detail != nil && strings.HasPrefix(*r.Detail, WarningPrefix)
}
