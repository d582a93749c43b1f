// Package profile captures and compares what the kernel did during a run:
// it drives the real perf record on a measured child (started at the
// child's ready handshake, so sampling covers the timed window), parses
// perf report --stdio and perf script text (perf's own output or a table
// pasted into a mail), diffs symbol tables between kernels, and exports
// pprof profiles.
//
// Profiles live in the result set (result.Profile, in Benchmark.Profiles):
// profiled runs are extra runs, kept out of statistics because sampling
// perturbs timing.
package profile
