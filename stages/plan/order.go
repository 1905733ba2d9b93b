package plan

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"yardstick/pipeline"
)

// A start is one start of a target variant: the cells of one variant and
// repeat, run back to back while the target stays up.
type start struct {
	variant int
	repeat  int
	cells   []pipeline.Cell
}

// order arranges cells (built variant-major, then repeat, then point) by
// the batch's order and numbers their starts from 0 in run order.
//
//   - sequential: each variant runs all its repeats before the next
//     variant starts (the published studies ran this way; slow drift
//     of the machine then lands on one variant: docs/methodology.md#drift);
//   - interleaved: round r runs repeat r of every variant (A B A B), so
//     slow drift of the machine spreads over all variants;
//   - random: starts, and the points inside each start, are shuffled with a
//     PCG source seeded by seed, so the order is reproducible; closed-loop
//     points still come before open-loop ones inside a start;
//   - rounds: round r runs repeat r of every variant, the variants in an
//     order shuffled per round from seed: adaptive repeats (which may stop
//     after any round) run this way, or as random with every start of
//     round r before those of round r+1.
func order(how string, seed int64, adaptive bool, variants []pipeline.Variant, cells []pipeline.Cell) ([]pipeline.Cell, error) {
	index := map[string]int{}
	for i, v := range variants {
		index[v.Label] = i
	}
	var starts []*start
	byKey := map[[2]int]*start{}
	for _, c := range cells {
		k := [2]int{index[c.Variant], c.Repeat}
		g := byKey[k]
		if g == nil {
			g = &start{variant: k[0], repeat: k[1]}
			byKey[k] = g
			starts = append(starts, g)
		}
		g.cells = append(g.cells, c)
	}
	switch how {
	case "sequential", "":
		// already variant-major
	case "interleaved":
		slices.SortStableFunc(starts, func(a, b *start) int {
			if a.repeat != b.repeat {
				return a.repeat - b.repeat
			}
			return a.variant - b.variant
		})
	case "rounds":
		rounds(seed, starts)
	case "random":
		rng := rand.New(rand.NewPCG(uint64(seed), 0x79617264))
		shuffle(rng, starts)
		for _, g := range starts {
			// Closed-loop points stay ahead of open-loop ones, so a rate
			// given as a fraction of the peak finds its peak measured.
			var closed, open []pipeline.Cell
			for _, c := range g.cells {
				if c.Point.Mode == "closed" {
					closed = append(closed, c)
				} else {
					open = append(open, c)
				}
			}
			shuffle(rng, closed)
			shuffle(rng, open)
			g.cells = append(closed, open...)
		}
	default:
		return nil, fmt.Errorf("unknown order %q (want sequential, interleaved or random)", how)
	}
	if adaptive && how == "random" {
		slices.SortStableFunc(starts, func(a, b *start) int { return a.repeat - b.repeat })
	}
	out := make([]pipeline.Cell, 0, len(cells))
	for gi, g := range starts {
		for _, c := range g.cells {
			c.StartSeq = gi
			out = append(out, c)
		}
	}
	return out, nil
}

// shuffle is Fisher-Yates on our own draw from the PCG stream, so that the
// order depends only on the seed, not on the standard library's Shuffle.
func shuffle[T any](rng *rand.Rand, s []T) {
	for i := len(s) - 1; i > 0; i-- {
		j := int(rng.Uint64() % uint64(i+1))
		s[i], s[j] = s[j], s[i]
	}
}

// rounds orders the starts by repeat, and the variants inside each round
// by a shuffle seeded by seed and the round.
func rounds(seed int64, starts []*start) {
	slices.SortStableFunc(starts, func(a, b *start) int {
		if a.repeat != b.repeat {
			return a.repeat - b.repeat
		}
		return a.variant - b.variant
	})
	for i := 0; i < len(starts); {
		j := i
		for j < len(starts) && starts[j].repeat == starts[i].repeat {
			j++
		}
		shuffle(rand.New(rand.NewPCG(uint64(seed), 0x726f756e64+uint64(starts[i].repeat))), starts[i:j])
		i = j
	}
}
