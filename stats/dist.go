package stats

import "math"

// NormalPDF is the standard normal density at x.
func NormalPDF(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }

// NormalCDF is the standard normal distribution function at x.
func NormalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// NormalQuantile is the standard normal's p quantile, by bisection.
func NormalQuantile(p float64) float64 {
	lo, hi := -40.0, 40.0
	for range 200 {
		mid := (lo + hi) / 2
		if NormalCDF(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// TQuantile is Student's t p quantile (p above 0.5) at df degrees of
// freedom: the t at which the regularized incomplete beta function gives
// the upper tail 1 − p, by bisection; the normal's at infinite df.
func TQuantile(p, df float64) float64 {
	if math.IsInf(df, 1) || df > 1e7 {
		return NormalQuantile(p)
	}
	df = max(df, 1)
	upper := 1 - p
	lo, hi := 0.0, 1.0
	for tTail(hi, df) > upper {
		hi *= 2
		if hi > 1e12 {
			return hi
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if tTail(mid, df) > upper {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// TTail is P(T > t) for Student's t at df degrees of freedom, t >= 0;
// the normal's at infinite df.
func TTail(t, df float64) float64 {
	if math.IsInf(df, 1) || df > 1e7 {
		return 1 - NormalCDF(t)
	}
	return tTail(t, max(df, 1))
}

// tTail is P(T > t) for Student's t at df degrees of freedom, t >= 0.
func tTail(t, df float64) float64 {
	x := df / (df + t*t)
	return 0.5 * regIncBeta(df/2, 0.5, x)
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by
// its continued fraction (Numerical Recipes' betacf).
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const eps, tiny = 1e-15, 1e-300
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	// step is one term of the continued fraction (Lentz's method).
	step := func(aa float64) float64 {
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		return d * c
	}
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		m2 := 2 * fm
		h *= step(fm * (b - fm) * x / ((qam + m2) * (a + m2)))
		del := step(-(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2)))
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}
