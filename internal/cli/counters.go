package cli

import (
	"github.com/spf13/pflag"

	"github.com/kdelta/kdelta/internal/counter"
)

// counterFlags are the counter and monitor options run and stat share,
// bound to counter.Setup.
type counterFlags struct{ counter.Setup }

func (f *counterFlags) register(fs *pflag.FlagSet, monitorDefault string) {
	fs.StringVarP(&f.Events, "events", "e", counter.DefaultEventList, "perf events counted on every run (perf's names; tracepoints as subsys:name)")
	fs.StringVar(&f.Probes, "probe-events", counter.DefaultProbeList, "perf events counted on warm-up runs only, on top of -e: probes that would slow a measured run (a syscall tracepoint costs every syscall); none for no probe")
	fs.StringVar(&f.Counters, "counters", "on", "on, or none to count nothing")
	fs.BoolVarP(&f.SystemWide, "all-cpus", "a", false, "count system-wide on the run's CPUs (--cpus, else all), as perf stat -a")
	fs.StringVar(&f.Monitor, "monitor", monitorDefault, "system files read around each run: stat,softirqs,schedstat,interrupts, all or none; NAME@20s+5s takes a window")
}
