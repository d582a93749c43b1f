package report

import (
	"math"
	"sort"
)

type tmpSummary struct {
	N                                  int
	Mean, Stddev, CV, Median, Min, Max float64
}

func tmpSummarize(xs []float64) tmpSummary {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	n := float64(len(s))
	m := sum / n
	var ss float64
	for _, x := range s {
		ss += (x - m) * (x - m)
	}
	sd := 0.0
	if len(s) > 1 {
		sd = math.Sqrt(ss / (n - 1))
	}
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return tmpSummary{len(s), m, sd, 100 * sd / m, med, s[0], s[len(s)-1]}
}
