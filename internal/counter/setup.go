package counter

import (
	"fmt"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

// Setup is what a session counts and reads around each run, as kdelta
// run, ab and stat take it on the command line: perf events on every run
// (Events) and on warm-ups only (Probes), "on" or "none" (Counters),
// system-wide or the run's tasks, and the monitors.
type Setup struct {
	Events, Probes, Counters, Monitor string
	SystemWide                        bool
}

// Conditions are the run conditions the setup makes: the events counted
// on every run ("none" without counters; " system-wide" with -a) and the
// probes counted on warm-up runs, when there are warm-up runs (kdelta
// stat has none).
func (f Setup) Conditions(warmups bool) map[string]string {
	c := map[string]string{result.CondCounters: "none", result.CondProbes: "none"}
	if f.Counters == "on" {
		if f.Events != "" {
			c[result.CondCounters] = f.Events
			if f.SystemWide {
				c[result.CondCounters] += " system-wide"
			}
		}
		if f.Probes != "" && warmups {
			c[result.CondProbes] = f.Probes
		}
	}
	return c
}

// Hooks builds the runner's OnReady hooks for measured and warm-up runs
// (monitors explained by env, the fingerprint), and says whether schedstat
// was named and can be had (then kdelta turns it on for the session).
// Its errors name the flag at fault.
func (f Setup) Hooks(cpus []int, enableOnExec bool, env *sysinfo.Fingerprint) (measured, warmup func(int) (func(*result.Run), error), schedstat bool, err error) {
	var events, probes []Event
	switch f.Counters {
	case "on":
		evs, err := ParseEvents(f.Events)
		if err != nil {
			return nil, nil, false, fmt.Errorf("--events: %w", err)
		}
		events = evs
		if f.Probes != "none" && f.Probes != "" {
			if probes, err = ParseEvents(f.Probes); err != nil {
				return nil, nil, false, fmt.Errorf("--probe-events: %w", err)
			}
		}
	case "none":
		// -e or --probe-events given with it would be dropped unsaid.
		if f.Events != "" && f.Events != DefaultEventList {
			return nil, nil, false, fmt.Errorf("--counters none counts nothing, so -e %s would be dropped: give one or the other", f.Events)
		}
		if f.Probes != "" && f.Probes != DefaultProbeList && f.Probes != "none" {
			return nil, nil, false, fmt.Errorf("--counters none counts nothing, so --probe-events %s would be dropped: give one or the other", f.Probes)
		}
	default:
		return nil, nil, false, fmt.Errorf("--counters: unknown value %q (on or none)", f.Counters)
	}
	mons, err := ParseMonitors(f.Monitor)
	if err != nil {
		return nil, nil, false, err
	}
	mons = CheckMonitors(mons, "/", env)
	schedstat = EnablesSchedstats(f.Monitor, mons)
	opt := Options{SystemWide: f.SystemWide, CPUs: cpus, EnableOnExec: enableOnExec}
	if len(events) > 0 || len(mons) > 0 {
		measured = Hook(events, opt, mons, "/")
	}
	if len(events)+len(probes) > 0 || len(mons) > 0 {
		warmup = Hook(append(append([]Event(nil), events...), probes...), opt, mons, "/")
	}
	return measured, warmup, schedstat, nil
}
