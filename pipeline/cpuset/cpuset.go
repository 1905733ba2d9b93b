// Package cpuset parses and formats Linux CPU lists ("0-1,3"), the notation
// of placement in experiment definitions and of Cpus_allowed_list in
// /proc/<pid>/status.
package cpuset

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// MaxCPU bounds the CPU numbers a list may name, so that a typo such as
// "0-99999999" is an error rather than a huge allocation.
const MaxCPU = 8191

// Set is a sorted list of distinct CPU numbers.
type Set []int

// Parse reads a CPU list such as "0", "0-3" or "0,2-3".
func Parse(s string) (Set, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty CPU list")
	}
	seen := map[int]bool{}
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := cpu(lo)
		if err != nil {
			return nil, fmt.Errorf("CPU list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = cpu(hi); err != nil {
				return nil, fmt.Errorf("CPU list %q: %w", s, err)
			}
			if b < a {
				return nil, fmt.Errorf("CPU list %q: range %s runs backwards", s, part)
			}
		}
		for c := a; c <= b; c++ {
			seen[c] = true
		}
	}
	out := make(Set, 0, len(seen))
	for c := range seen {
		out = append(out, c)
	}
	sort.Ints(out)
	return out, nil
}

func cpu(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a CPU number", s)
	}
	if n > MaxCPU {
		return 0, fmt.Errorf("CPU %d is beyond %d", n, MaxCPU)
	}
	return n, nil
}

// Of makes a Set of any CPU numbers: sorted, without duplicates.
func Of[T int | uint64](cpus []T) Set {
	out := make(Set, 0, len(cpus))
	for _, c := range cpus {
		out = append(out, int(c))
	}
	sort.Ints(out)
	return slices.Compact(out)
}

// Intersect returns the CPUs in both s and t.
func (s Set) Intersect(t Set) Set {
	in := map[int]bool{}
	for _, c := range t {
		in[c] = true
	}
	var out Set
	for _, c := range s {
		if in[c] {
			out = append(out, c)
		}
	}
	return out
}

// Max returns the highest CPU number, or -1 for an empty set.
func (s Set) Max() int {
	if len(s) == 0 {
		return -1
	}
	return s[len(s)-1]
}

// String formats s in the kernel's compact form ("0-2,5").
func (s Set) String() string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(s[j]))
		}
		i = j + 1
	}
	return b.String()
}

// Equal reports whether s and t hold the same CPUs.
func (s Set) Equal(t Set) bool { return slices.Equal(s, t) }

// MarshalText writes s in the compact form of String: a plan, a
// checkpoint or a spec holds one spelling of a set whatever the
// definition wrote ("0,1" and "0-1" are both "0-1"); the empty set is "".
func (s Set) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a CPU list in any spelling Parse accepts; the empty
// text is the empty set.
func (s *Set) UnmarshalText(b []byte) error {
	if strings.TrimSpace(string(b)) == "" {
		*s = nil
		return nil
	}
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
