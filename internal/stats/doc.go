// Package stats holds the statistics behind kdelta's verdicts: summaries of
// a sample, the Mann-Whitney U test (exact and tie-aware for small samples),
// the Hodges–Lehmann estimate of a relative change with its distribution-free
// confidence interval, Welch's t-test with a Fieller interval, and Compare,
// which turns two samples into a verdict.
//
// The confidence interval of the default test is the one that inverts the
// test itself (the k-th smallest and largest pairwise differences, k taken
// from the distribution of U) rather than a bootstrap: it is exact for any
// continuous distribution, needs no random numbers, and agrees with the test,
// so a verdict never rests on a p-value and an interval that contradict each
// other.
//
// Runs are independent only within one session (one kdelta run, one
// boot): CompareSessions judges samples measured in separate sessions with
// a two-level model, runs nested in sessions, whose session term comes
// from the samples' own sessions or, for a single session a side, from
// the host's SessionNoise (kdelta calibrate); without it such a comparison
// claims nothing. sessions.go derives it.
//
// Samples are given in run order; the warm-up warning relies on it. No
// function modifies the slices it is given.
//
// Num, kdelta's one formatter of figures, lives here too, at the bottom of
// the packages that print numbers, so that the warnings of a comparison
// print a value as report's tables do.
package stats
