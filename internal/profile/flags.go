package profile

import (
	"errors"
	"fmt"
	"strings"
)

// CheckFlags validates kdelta run's profiling flags before anything runs:
// on is --profile, changed tells whether a flag was given. The flags that
// tune profiling need --profile, and their values must make sense.
func CheckFlags(on bool, runs, freq int, event string, changed func(flag string) bool) error {
	if !on {
		for _, n := range []string{"profile-runs", "profile-call-graph", "profile-event", "profile-system-wide", "profile-freq"} {
			if changed(n) {
				return fmt.Errorf("--%s: needs --profile", n)
			}
		}
		return nil
	}
	if runs < 1 {
		return fmt.Errorf("--profile-runs: must be at least 1, got %d", runs)
	}
	if freq < 0 {
		return fmt.Errorf("--profile-freq: must not be negative, got %d", freq)
	}
	if strings.TrimSpace(event) == "" {
		return errors.New("--profile-event: empty event")
	}
	return nil
}
