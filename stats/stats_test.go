package stats

import (
	"math"
	"testing"
)

// TestTQuantile checks Student's t quantiles against the tables'.
func TestTQuantile(t *testing.T) {
	for _, c := range []struct{ p, df, want float64 }{
		{0.975, 1, 12.706}, {0.975, 2, 4.303}, {0.975, 9, 2.262}, {0.975, 30, 2.042}, {0.975, math.Inf(1), 1.960}, {0.975, 11, 2.201},
		{0.995, 5, 4.032}, {0.995, 20, 2.845}, {0.99, 8, 2.896}, {0.9995, 10, 4.587}, {0.95, 3, 2.353},
	} {
		if got := TQuantile(c.p, c.df); math.Abs(got-c.want) > 0.002 {
			t.Errorf("t(%g, %g) = %.4f, want %.3f", c.p, c.df, got, c.want)
		}
	}
}

// TestNormal checks the standard normal's distribution function and
// quantile against the tables' and each other.
func TestNormal(t *testing.T) {
	for _, c := range []struct{ p, z float64 }{{0.975, 1.95996}, {0.5, 0}, {0.995, 2.57583}, {0.025, -1.95996}} {
		if got := NormalQuantile(c.p); math.Abs(got-c.z) > 1e-4 {
			t.Errorf("z(%g) = %.5f, want %.5f", c.p, got, c.z)
		}
		if got := NormalCDF(c.z); math.Abs(got-c.p) > 1e-5 {
			t.Errorf("Phi(%g) = %.6f, want %g", c.z, got, c.p)
		}
	}
}

// TestMedianSpreadMean: the figures of a repeat set.
func TestMedianSpreadMean(t *testing.T) {
	xs := []float64{3, 1, 2, 10}
	if m := Median(xs); m != 2.5 {
		t.Errorf("median %g", m)
	}
	if m := Mean(xs); m != 4 {
		t.Errorf("mean %g", m)
	}
	if s := Spread([]float64{90, 100, 110}); math.Abs(s-0.2) > 1e-12 {
		t.Errorf("spread %g, want (110-90)/100", s)
	}
	if xs[0] != 3 {
		t.Error("Median sorted its input in place")
	}
}
