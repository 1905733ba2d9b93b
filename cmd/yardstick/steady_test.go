package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { scriptCmds["series"] = cmdSeries }

// cmdSeries writes a seeded synthetic throughput series, one number a
// line: series FILE flat|warmup|spikes|slowdown N SEED. The level is
// 1000 per interval with 5% normal noise; warmup ramps up from half of it
// over the first quarter, spikes has 5x spikes at 1% of the intervals,
// slowdown drops by a fifth at the middle.
func cmdSeries(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: series FILE flat|warmup|spikes|slowdown N SEED")
	}
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	seed, err := strconv.ParseUint(args[3], 10, 64)
	ts.Check(err)
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var b strings.Builder
	for i := range n {
		level := 1000.0
		switch args[1] {
		case "flat":
		case "warmup":
			level *= 0.5 + 0.5*math.Min(float64(i)/float64(n/4), 1)
		case "spikes":
			if r.Float64() < 0.01 {
				level *= 5
			}
		case "slowdown":
			if i >= n/2 {
				level *= 0.8
			}
		default:
			ts.Fatalf("series: unknown kind %q", args[1])
		}
		fmt.Fprintf(&b, "%.2f\n", level+50*r.NormFloat64())
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}
