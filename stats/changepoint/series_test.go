package changepoint

import (
	"math"
	"math/rand/v2"
)

// Known series for the tests, from seeded noise.

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// levels returns the series level(i) + sd·N(0,1).
func levels(r *rand.Rand, n int, sd float64, level func(i int) float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = level(i) + sd*r.NormFloat64()
	}
	return x
}

// ar1 returns the series level(i) + e_i, e an AR(1) process of
// coefficient phi and stationary deviation sd, started stationary.
func ar1(r *rand.Rand, n int, phi, sd float64, level func(i int) float64) []float64 {
	x := make([]float64, n)
	e := r.NormFloat64()
	for i := range x {
		if i > 0 {
			e = phi*e + math.Sqrt(1-phi*phi)*r.NormFloat64()
		}
		x[i] = level(i) + sd*e
	}
	return x
}

// flatSeries is pure noise around 1000.
func flatSeries(seed uint64, n int) []float64 {
	return levels(newRand(seed), n, 30, func(int) float64 { return 1000 })
}

// stepSeries jumps from lo to hi at index at.
func stepSeries(seed uint64, n, at int, lo, hi, sd float64) []float64 {
	return levels(newRand(seed), n, sd, func(i int) float64 {
		if i < at {
			return lo
		}
		return hi
	})
}

// rampSeries climbs linearly from lo to hi over [0, knee), then stays.
func rampSeries(seed uint64, n, knee int, lo, hi, sd float64) []float64 {
	return levels(newRand(seed), n, sd, func(i int) float64 {
		if i >= knee {
			return hi
		}
		return lo + (hi-lo)*float64(i)/float64(knee)
	})
}

// jitWarmup is a synthetic, real-looking throughput series of a JIT
// runtime: requests per 100 ms interval over 60 s. It starts interpreted
// at about 45% of its peak, approaches the first compiled tier
// exponentially (time constant 2.5 s), steps up when the optimising tier
// replaces the hot methods at 8 s, loses a fifth for 0.8 s at 14 s (a
// deoptimisation and recompilation), and drops by a third for one
// interval at every young collection (every 4.7 s); the noise is 2.5% of
// the level.
func jitWarmup(seed uint64) []float64 {
	r := newRand(seed)
	const peak = 2000.0
	x := make([]float64, 600)
	for i := range x {
		level := peak * 0.88 * (1 - 0.5*math.Exp(-float64(i)/25))
		if i >= 80 {
			level = peak
		}
		if i >= 140 && i < 148 {
			level *= 0.8
		}
		if i%47 == 46 {
			level *= 0.67
		}
		x[i] = level * (1 + 0.025*r.NormFloat64())
	}
	return x
}
