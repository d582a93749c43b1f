package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kdelta/kdelta/internal/counter"
	"github.com/kdelta/kdelta/internal/result"
)

// counterFlags are the counter and monitor options run and stat share.
type counterFlags struct {
	events     string
	counters   string
	systemWide bool
	monitor    string
}

func (f *counterFlags) register(fs *pflag.FlagSet, monitorDefault string) {
	fs.StringVarP(&f.events, "events", "e", counter.DefaultEventList, "perf events counted on every run (perf's names; tracepoints as subsys:name)")
	fs.StringVar(&f.counters, "counters", "on", "on, or none to count nothing")
	fs.BoolVarP(&f.systemWide, "all-cpus", "a", false, "count system-wide on the run's CPUs (--cpus, else all), as perf stat -a")
	fs.StringVar(&f.monitor, "monitor", monitorDefault, "system files read around each run: stat,softirqs,schedstat,interrupts, all or none; NAME@20s+5s takes a window")
}

// hook builds the runner's OnReady hook, and says whether schedstat was
// asked for by name (then kdelta turns schedstats on for the session).
func (f *counterFlags) hook(cpus []int, enableOnExec bool) (func(int) (func(*result.Run), error), bool, error) {
	var events []counter.Event
	switch f.counters {
	case "on":
		evs, err := counter.ParseEvents(f.events)
		if err != nil {
			return nil, false, fmt.Errorf("--events: %w", err)
		}
		events = evs
	case "none":
	default:
		return nil, false, fmt.Errorf("--counters: unknown value %q (on or none)", f.counters)
	}
	mons, err := counter.ParseMonitors(f.monitor)
	if err != nil {
		return nil, false, err
	}
	schedstat := false
	for _, part := range strings.Split(f.monitor, ",") {
		schedstat = schedstat || strings.HasPrefix(strings.TrimSpace(part), "schedstat")
	}
	if len(events) == 0 && len(mons) == 0 {
		return nil, false, nil
	}
	opt := counter.Options{SystemWide: f.systemWide, CPUs: cpus, EnableOnExec: enableOnExec}
	return counter.Hook(events, opt, mons, "/"), schedstat, nil
}
