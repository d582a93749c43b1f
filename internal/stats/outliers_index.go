package stats

// Outliers returns the indices, in order, of the values of xs that the
// sample warnings call outliers (modified z-score over 3.5, see
// outliers): the runs a plot marks are the runs a warning names.
func Outliers(xs []float64) []int {
	sorted := sortedCopy(xs)
	return outliers(xs, sorted, summarizeSorted(xs, sorted).Median)
}
