package report

// noGeoMean says why a comparison has no geometric mean: no workload's
// primary metric was measured in both sets (compare.Result.Unmeasured
// names the sides without runs), so there is no ratio to average.
const noGeoMean = "no workload measured in both sets"
