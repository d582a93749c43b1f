package counter

import (
	"strings"
	"testing"
)

// TestSetupErrors checks that a bad setup is refused before anything
// runs, naming the flag at fault, and that "none" builds no hook.
func TestSetupErrors(t *testing.T) {
	for _, tt := range []struct {
		s    Setup
		want string
	}{
		{Setup{Counters: "maybe", Monitor: "none"}, `--counters: unknown value "maybe"`},
		{Setup{Counters: "on", Events: "no-such-event!", Monitor: "none"}, "--events:"},
		{Setup{Counters: "on", Events: "context-switches", Probes: "bad event!", Monitor: "none"}, "--probe-events:"},
		{Setup{Counters: "none", Monitor: "nosuchfile"}, "nosuchfile"},
	} {
		if _, _, _, err := tt.s.Hooks(nil, false, nil); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want an error with %q", tt.s, err, tt.want)
		}
	}
	m, w, sched, err := Setup{Counters: "none", Monitor: "none"}.Hooks(nil, false, nil)
	if err != nil || m != nil || w != nil || sched {
		t.Errorf("nothing to count: hooks %v %v, schedstat %v, %v", m != nil, w != nil, sched, err)
	}
}
