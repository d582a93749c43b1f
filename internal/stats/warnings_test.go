package stats

import (
	"math"
	"strings"
	"testing"
)

// twoLevels returns eight runs alternating around 100 whose CV is cv
// percent: four at 100−d, four at 100+d, low first.
func twoLevels(cv float64) []float64 {
	d := cv / math.Sqrt(8.0/7)
	xs := make([]float64, 8)
	for i := range xs {
		xs[i] = 100 - d
		if i%2 == 1 {
			xs[i] = 100 + d
		}
	}
	return xs
}

func TestSampleWarnings(t *testing.T) {
	clean := []float64{10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 10.1, 9.9}
	tests := []struct {
		name   string
		xs     []float64
		better Better
		want   []string // substrings the warnings must contain
		not    []string // substrings they must not contain
	}{
		{"clean", clean, Lower, nil, []string{"A:"}},
		{"none at all", nil, Lower, []string{"A: no runs"}, nil},
		{"few runs", []float64{10, 10.1, 9.9}, Lower, []string{"only 3 runs"}, []string{"outlier", "CV", "warm-up"}},
		{"outlier", []float64{10.0, 10.1, 9.9, 10.2, 9.8, 14, 10.1, 9.9}, Lower, []string{"1 outliers", "run 6 (14.00)"}, []string{"warm-up"}},
		{"outlier with MAD 0", []float64{8, 8, 8, 8, 8, 8, 8, 12}, Lower, []string{"1 outliers", "run 8 (12.00)"}, nil},
		{"two levels, MAD 0", []float64{8, 12, 8, 12, 8, 12, 8, 8, 8}, Lower, []string{"CV 21.4%"}, []string{"outlier"}},
		{"constant", []float64{8, 8, 8, 8, 8}, Lower, nil, []string{"A:"}},
		{"noisy", []float64{10, 13, 8, 11, 7, 12, 9, 10}, Lower, []string{"CV 20.0% is over 10%"}, []string{"outlier"}},
		{"cold first run", []float64{11, 10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 10.1}, Lower, []string{"first run is worse than every other by 8.0%: warm-up missing?"}, nil},
		{"cold first run, higher is better", []float64{9, 10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 10.1}, Higher, []string{"first run is worse than every other by 8.0%"}, nil},
		{"fast first run is not a warm-up", []float64{9, 10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 10.1}, Lower, []string{"run 1 (9.000)"}, []string{"warm-up"}},
		// Values are printed as every table prints them, never as 1.306e+05.
		{"large outlier", []float64{100100, 100200, 99900, 100000, 130600, 100100, 99800, 100000}, Lower,
			[]string{"run 5 (130,600)"}, []string{"e+"}},
		// The CV is judged as printed: 10.04% reads 10.0%, which is not
		// over 10%; 10.06% reads 10.1%, which is.
		{"CV 10.04% is not over 10%", twoLevels(10.04), Lower, nil, []string{"CV"}},
		{"CV 10.06% is over 10%", twoLevels(10.06), Lower, []string{"A: CV 10.1% is over 10%"}, nil},
		{"slightly slow first run", []float64{10.3, 10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 10.1}, Lower, nil, []string{"warm-up"}},
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

// TestCompareNamesSamples checks that the warnings of a comparison name
// its samples as Options.Names says: the third set of a comparison of
// three is C, not B.
func TestCompareNamesSamples(t *testing.T) {
	base := []float64{10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 10.1, 9.9}
	cold := []float64{11, 10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 10.1}
	c := Compare(base, cold, Options{Names: [2]string{"A", "C"}})
	joined := strings.Join(c.Warnings, "\n")
	if !strings.Contains(joined, "C: the first run is worse") || strings.Contains(joined, "B:") {
		t.Errorf("warnings %q: want the cold first run named C", c.Warnings)
	}
	c = Compare(base, cold, Options{})
	if joined := strings.Join(c.Warnings, "\n"); !strings.Contains(joined, "B: the first run is worse") {
		t.Errorf("warnings %q: without names the second sample is B", c.Warnings)
	}
}
