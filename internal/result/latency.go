package result

import (
	"math"
	"sort"
)

// Summarize computes the latency summary of raw. Percentiles are taken as
// rcuscale's kvm-recheck script takes them: the sorted value at index
// max(1, floor(N*p/100)), counting from 1.
func Summarize(unit string, raw []float64) *Latency {
	if len(raw) == 0 {
		return &Latency{Unit: unit}
	}
	s := append([]float64(nil), raw...)
	sort.Float64s(s)
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	l := &Latency{
		Unit:  unit,
		Count: len(s),
		Mean:  sum / float64(len(s)),
		Min:   s[0],
		P50:   Percentile(s, 50),
		P90:   Percentile(s, 90),
		P99:   Percentile(s, 99),
		Max:   s[len(s)-1],
	}
	if len(raw) <= MaxRaw {
		l.Raw = append([]float64(nil), raw...)
	}
	return l
}

// Percentile returns the p-th percentile of sorted, rcuscale style.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	i := int(math.Floor(float64(n) * p / 100))
	if i < 1 {
		i = 1
	}
	if i > n {
		i = n
	}
	return sorted[i-1]
}
