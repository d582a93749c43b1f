package stats

import (
	"math"
	"slices"
	"testing"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want Summary
	}{
		{"empty", nil, Summary{}},
		{"one value", []float64{7}, Summary{N: 1, Mean: 7, Median: 7, Min: 7, Max: 7}},
		{"two values", []float64{3, 1}, Summary{N: 2, Mean: 2, Stddev: math.Sqrt2, CV: 100 * math.Sqrt2 / 2, Median: 2, Min: 1, Max: 3, StdErr: 1}},
		{"odd", []float64{4, 1, 2, 9, 4}, Summary{N: 5, Mean: 4, Stddev: math.Sqrt(9.5), CV: 100 * math.Sqrt(9.5) / 4, Median: 4, Min: 1, Max: 9, StdErr: math.Sqrt(9.5 / 5)}},
		{"even", []float64{10, 40, 20, 30}, Summary{N: 4, Mean: 25, Stddev: math.Sqrt(500.0 / 3), CV: 100 * math.Sqrt(500.0/3) / 25, Median: 25, Min: 10, Max: 40, StdErr: math.Sqrt(500.0/3) / 2}},
		{"constant", []float64{5, 5, 5}, Summary{N: 3, Mean: 5, Median: 5, Min: 5, Max: 5}},
		{"mean zero", []float64{-1, 1}, Summary{N: 2, Stddev: math.Sqrt2, Min: -1, Max: 1, StdErr: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.xs)
			got := Summarize(tt.xs)
			if !slices.Equal(in, tt.xs) {
				t.Errorf("input changed to %v", tt.xs)
			}
			near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
			if got.N != tt.want.N || !near(got.Mean, tt.want.Mean) || !near(got.Stddev, tt.want.Stddev) ||
				!near(got.CV, tt.want.CV) || !near(got.Median, tt.want.Median) || got.Min != tt.want.Min ||
				got.Max != tt.want.Max || !near(got.StdErr, tt.want.StdErr) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestSummarizeLargeOffset checks that the variance survives a large common
// offset, where a one-pass sum of squares would cancel catastrophically.
func TestSummarizeLargeOffset(t *testing.T) {
	xs := []float64{1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16}
	if got := Summarize(xs).Stddev; math.Abs(got-math.Sqrt(30)) > 1e-6 {
		t.Errorf("stddev %v, want %v", got, math.Sqrt(30))
	}
}

// TestMadSorted checks the merge-based MAD against sorting the deviations.
func TestMadSorted(t *testing.T) {
	tests := [][]float64{
		{5},
		{1, 2},
		{1, 1, 1, 4},
		{1, 2, 3, 4, 100},
		{-3, -1, 0, 0, 0, 2, 7, 7},
		{8, 8, 8, 12, 12, 12, 12},
	}
	for _, xs := range tests {
		sorted := sortedCopy(xs)
		med := medianSorted(sorted)
		dev := make([]float64, len(xs))
		for i, x := range xs {
			dev[i] = math.Abs(x - med)
		}
		want := medianSorted(sortedCopy(dev))
		if got := madSorted(sorted, med); got != want {
			t.Errorf("MAD of %v = %v, want %v", xs, got, want)
		}
	}
}
