// Package counter measures what the kernel did during a run: perf events
// counted over the run's child and every task it creates (or system-wide),
// and monitors, the change of the kernel's own statistics files
// (/proc/stat, /proc/softirqs, /proc/schedstat, /proc/interrupts) over the
// run or over a window of it.
//
// Events are named as perf names them (ParseEvents) and opened with
// Attach, which returns a Set to Read once the child has exited. An event
// that cannot be counted here, such as cycles in a virtual machine without
// a PMU or any kernel-side event under perf_event_paranoid 2 without
// privilege, becomes a counter with Unsupported set and no value: it never
// reads as 0 and never fails the run.
//
// Monitors are named by ParseMonitors, checked against the machine by
// CheckMonitors (a file the kernel was built without is said from the
// fingerprint's config, once, instead of read on every run), snapshotted
// by StartMonitors and turned into result.Monitor deltas by
// (*Running).Stop. Every reader takes a root path, so tests run on fixture
// trees. Hook wires both into the runner's OnReady.
//
// Kernel-function latency (FuncLatency, kdelta run --funclatency) times
// named kernel functions in the kernel, with tracefs's function_graph
// tracer, over each run's timed part (runner.Window): every call's count
// and duration, read after the run, as a result.Function and as metrics.
package counter
