package counter

import (
	"errors"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
)

// Hook returns a function that fits runner.Options.OnReady: called with
// the pid of a child that is set up and waiting for its go-ahead, it
// attaches events to it and starts monitors (files under root); the
// function it returns, called with the finished run once the child has
// been reaped, stops the monitors and fills the run's Counters and
// Monitors. An event list in which nothing can be counted is not an error
// (the counters say why); a child that cannot be attached to at all is.
func Hook(events []Event, opt Options, monitors []MonitorSpec, root string) func(pid int) (func(*result.Run), error) {
	return func(pid int) (func(*result.Run), error) {
		var set *Set
		if len(events) > 0 {
			s, err := Attach(pid, events, opt)
			if err != nil && !errors.Is(err, ErrNothingCounted) {
				return nil, err
			}
			set = s
		}
		var mon *Running
		if len(monitors) > 0 {
			mon = StartMonitors(monitors, root)
		}
		return func(r *result.Run) {
			if mon != nil {
				r.Monitors = mon.Stop()
			}
			if set != nil {
				r.Counters = set.Read()
				if len(set.Notes) > 0 {
					if r.Info == nil {
						r.Info = map[string]string{}
					}
					r.Info["counters"] = strings.Join(set.Notes, "; ")
				}
				set.Close()
			}
		}, nil
	}
}
