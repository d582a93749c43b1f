package stats

import (
	"strings"
	"testing"
)

func TestSampleWarnings(t *testing.T) {
	clean := []float64{10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 10.1, 9.9}
	tests := []struct {
		name   string
		xs     []float64
		better string
		want   []string // substrings the warnings must contain
		not    []string // substrings they must not contain
	}{
		{"clean", clean, LowerIsBetter, nil, []string{"A:"}},
		{"none at all", nil, LowerIsBetter, []string{"A: no runs"}, nil},
		{"few runs", []float64{10, 10.1, 9.9}, LowerIsBetter, []string{"only 3 runs"}, []string{"outlier", "CV", "warm-up"}},
		{"outlier", []float64{10.0, 10.1, 9.9, 10.2, 9.8, 14, 10.1, 9.9}, LowerIsBetter, []string{"1 outliers", "run 6 (14)"}, []string{"warm-up"}},
		{"outlier with MAD 0", []float64{8, 8, 8, 8, 8, 8, 8, 12}, LowerIsBetter, []string{"1 outliers", "run 8 (12)"}, nil},
		{"two levels, MAD 0", []float64{8, 12, 8, 12, 8, 12, 8, 8, 8}, LowerIsBetter, []string{"CV 21.4%"}, []string{"outlier"}},
		{"constant", []float64{8, 8, 8, 8, 8}, LowerIsBetter, nil, []string{"A:"}},
		{"noisy", []float64{10, 13, 8, 11, 7, 12, 9, 10}, LowerIsBetter, []string{"CV 20.0% is over 10%"}, []string{"outlier"}},
		{"cold first run", []float64{11, 10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 10.1}, LowerIsBetter, []string{"first run is worse than every other by 8.0%: warm-up missing?"}, nil},
		{"cold first run, higher is better", []float64{9, 10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 10.1}, HigherIsBetter, []string{"first run is worse than every other by 8.0%"}, nil},
		{"fast first run is not a warm-up", []float64{9, 10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 10.1}, LowerIsBetter, []string{"run 1 (9)"}, []string{"warm-up"}},
		{"slightly slow first run", []float64{10.3, 10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 10.1}, LowerIsBetter, nil, []string{"warm-up"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sorted := sortedCopy(tt.xs)
			got := sampleWarnings("A", tt.xs, sorted, summarizeSorted(tt.xs, sorted), tt.better)
			joined := strings.Join(got, "\n")
			for _, w := range tt.want {
				if !strings.Contains(joined, w) {
					t.Errorf("warnings %q lack %q", got, w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(joined, w) {
					t.Errorf("warnings %q contain %q", got, w)
				}
			}
		})
	}
}
