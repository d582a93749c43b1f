package cli

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/kdelta/kdelta/internal/counter"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

// counterFlags are the counter and monitor options run and stat share.
type counterFlags struct {
	events     string
	probes     string
	counters   string
	systemWide bool
	monitor    string
}

func (f *counterFlags) register(fs *pflag.FlagSet, monitorDefault string) {
	fs.StringVarP(&f.events, "events", "e", counter.DefaultEventList, "perf events counted on every run (perf's names; tracepoints as subsys:name)")
	fs.StringVar(&f.probes, "probe-events", counter.DefaultProbeList, "perf events counted on warm-up runs only, on top of -e: probes that would slow a measured run (a syscall tracepoint costs every syscall); none for no probe")
	fs.StringVar(&f.counters, "counters", "on", "on, or none to count nothing")
	fs.BoolVarP(&f.systemWide, "all-cpus", "a", false, "count system-wide on the run's CPUs (--cpus, else all), as perf stat -a")
	fs.StringVar(&f.monitor, "monitor", monitorDefault, "system files read around each run: stat,softirqs,schedstat,interrupts, all or none; NAME@20s+5s takes a window")
}

// hooks builds the runner's OnReady hooks for measured and warm-up runs
// (monitors explained by env, the fingerprint), and says whether schedstat
// was named and can be had (then kdelta turns it on for the session).
func (f *counterFlags) hooks(cpus []int, enableOnExec bool, env *sysinfo.Fingerprint) (measured, warmup func(int) (func(*result.Run), error), schedstat bool, err error) {
	var events, probes []counter.Event
	switch f.counters {
	case "on":
		evs, err := counter.ParseEvents(f.events)
		if err != nil {
			return nil, nil, false, fmt.Errorf("--events: %w", err)
		}
		events = evs
		if f.probes != "none" && f.probes != "" {
			if probes, err = counter.ParseEvents(f.probes); err != nil {
				return nil, nil, false, fmt.Errorf("--probe-events: %w", err)
			}
		}
	case "none":
	default:
		return nil, nil, false, fmt.Errorf("--counters: unknown value %q (on or none)", f.counters)
	}
	mons, err := counter.ParseMonitors(f.monitor)
	if err != nil {
		return nil, nil, false, err
	}
	mons = counter.CheckMonitors(mons, "/", env)
	schedstat = counter.EnablesSchedstats(f.monitor, mons)
	opt := counter.Options{SystemWide: f.systemWide, CPUs: cpus, EnableOnExec: enableOnExec}
	if len(events) > 0 || len(mons) > 0 {
		measured = counter.Hook(events, opt, mons, "/")
	}
	if len(events)+len(probes) > 0 || len(mons) > 0 {
		warmup = counter.Hook(append(append([]counter.Event(nil), events...), probes...), opt, mons, "/")
	}
	return measured, warmup, schedstat, nil
}
