package changepoint

import (
	"fmt"
	"testing"
)

// BenchmarkDetect times the search at the default penalty on 600 and
// 6000 intervals (a minute and ten minutes at 100 ms): of pure noise, the
// worst case (nothing is pruned), and of a level that changes every 100
// intervals, where pruning keeps the work near linear.
func BenchmarkDetect(b *testing.B) {
	for _, n := range []int{600, 6000} {
		noise := flatSeries(1, n)
		steps := levels(newRand(2), n, 30, func(i int) float64 { return 1000 + 150*float64(i/100%2) })
		for _, s := range []struct {
			name string
			x    []float64
		}{{"noise", noise}, {"steps", steps}} {
			b.Run(fmt.Sprintf("%s/n=%d", s.name, n), func(b *testing.B) {
				for b.Loop() {
					if _, err := Detect(s.x, Config{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
