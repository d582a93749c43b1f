// Package profile captures and compares what the kernel did during a run:
// it drives the real perf record on a measured child (started at the
// child's ready handshake, so sampling covers the timed window), parses
// perf report --stdio, perf script and perf annotate --stdio text (perf's
// own output or what a user pasted into a mail), diffs symbol tables and
// annotations between kernels, and exports pprof profiles.
//
// Profiles live in the result set (result.Profile, in Benchmark.Profiles):
// profiled runs are extra runs, kept out of statistics because sampling
// perturbs timing.
//
// # Annotations
//
// kdelta profile annotate needs where each hot symbol's samples landed,
// instruction by instruction. A profile keeps that itself
// (result.Profile.Annotations), taken when the perf.data is read at
// record time: for the hottest symbols (Options.MaxAnnotated), their
// samples by offset from perf script and, where perf annotate --stdio can
// disassemble the symbol, its instructions and the source lines perf
// interleaves. The perf.data is not kept. It holds addresses that mean
// something only with the very binaries and kernel it was recorded on
// (perf annotate of a copied perf.data on another machine disassembles
// whatever is there under those names), it is megabytes a run where the
// annotations are kilobytes, and a store row is JSON that a lab's other
// machines and the dashboard read without perf. The price: only the
// symbols hot at record time can be annotated later, and a kernel
// without vmlinux or /proc/kcore at record time (this is common in VMs)
// keeps offsets and samples without instruction text. A perf.data that a
// user kept can still be annotated whole (Annotate, with a vmlinux).
package profile
