package sys

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ParseCPUList parses a CPU list in the kernel's format ("0-3,8,10-11"), as
// taskset -c and /sys/devices/system/cpu/online write it. The result is
// sorted and free of duplicates.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty CPU list")
	}
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("bad CPU %q in list %q", part, s)
		}
		b := a
		if isRange {
			b, err = strconv.Atoi(hi)
			if err != nil || b < a {
				return nil, fmt.Errorf("bad CPU range %q in list %q", part, s)
			}
		}
		if b >= 8192 {
			return nil, fmt.Errorf("CPU %d out of range in list %q", b, s)
		}
		for c := a; c <= b; c++ {
			seen[c] = true
		}
	}
	cpus := make([]int, 0, len(seen))
	for c := range seen {
		cpus = append(cpus, c)
	}
	sort.Ints(cpus)
	return cpus, nil
}

// FormatCPUList writes cpus in the kernel's list format, folding runs into
// ranges: [0 1 2 5] is "0-2,5".
func FormatCPUList(cpus []int) string {
	c := append([]int(nil), cpus...)
	sort.Ints(c)
	var b strings.Builder
	for i := 0; i < len(c); {
		j := i
		for j+1 < len(c) && c[j+1] == c[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", c[i], c[j])
		} else {
			fmt.Fprintf(&b, "%d", c[i])
		}
		i = j + 1
	}
	return b.String()
}
