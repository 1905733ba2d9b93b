package sample

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxCPU bounds the CPU numbers parseCPUList accepts, so a typo cannot ask
// for a huge mask.
const maxCPU = 4095

// parseCPUList parses a Linux CPU list such as "0-1,3" (the format of
// taskset -c and Cpus_allowed_list) into sorted, distinct CPU numbers.
func parseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty CPU list")
	}
	var cpus []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := parseCPU(lo)
		if err != nil {
			return nil, fmt.Errorf("CPU list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = parseCPU(hi); err != nil {
				return nil, fmt.Errorf("CPU list %q: %w", s, err)
			}
			if b < a {
				return nil, fmt.Errorf("CPU list %q: range %q runs backwards", s, part)
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

func parseCPU(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n > maxCPU {
		return 0, fmt.Errorf("bad CPU number %q", s)
	}
	return n, nil
}
