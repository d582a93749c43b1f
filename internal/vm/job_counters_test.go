package vm

import (
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/counter"
)

// TestParseJobCounters: the guest takes the counters kdelta run takes
// (issue 36: `-- run messaging -e context-switches` failed with "unknown
// shorthand flag: 'e'"), checked on the host before any boot, and they
// reach the guest's job file; without any the guest counts nothing, as
// before. --quick is kdelta run's: -r stays 5.
func TestParseJobCounters(t *testing.T) {
	def := counter.DefaultEventList
	tests := []struct {
		args    []string
		want    *counter.Setup
		wantErr string
	}{
		{args: []string{"run", "messaging"}},
		{args: []string{"run", "messaging", "-e", "context-switches"},
			want: &counter.Setup{Events: "context-switches", Probes: "none", Counters: "on"}},
		{args: []string{"run", "messaging", "--events", "cs,task-clock:k", "-a"},
			want: &counter.Setup{Events: "cs,task-clock:k", Probes: "none", Counters: "on", SystemWide: true}},
		{args: []string{"run", "messaging", "-e", "sched:sched_switch,cycles:u", "--probe-events", "raw_syscalls:sys_enter"},
			want: &counter.Setup{Events: "sched:sched_switch,cycles:u", Probes: "raw_syscalls:sys_enter", Counters: "on"}},
		{args: []string{"run", "messaging", "--counters", "none"},
			want: &counter.Setup{Events: def, Probes: "none", Counters: "none"}},
		{args: []string{"run", "messaging", "-e", "no-such-event"}, wantErr: "--events: "},
		{args: []string{"run", "messaging", "-e", ""}, wantErr: "--events: empty event list"},
		{args: []string{"run", "messaging", "--counters", "some"}, wantErr: `--counters: unknown value "some"`},
		{args: []string{"run", "messaging", "--counters", "none", "-e", "cs"}, wantErr: "-e cs would be dropped"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			j, err := ParseJob(tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !sameSetup(tt.want, j.Counters) {
				t.Errorf("counters %+v, want %+v", j.Counters, tt.want)
			}
			back, err := unmarshalJob(marshalJob(j))
			if err != nil {
				t.Fatal(err)
			}
			if !sameSetup(j.Counters, back.Counters) {
				t.Errorf("the guest reads counters %+v, the host wrote %+v", back.Counters, j.Counters)
			}
		})
	}
	j, err := ParseJob([]string{"run", "--quick"})
	if err != nil || j.Repeat != 5 {
		t.Errorf("run --quick: -r %d (%v), want kdelta run's default, 5", j.Repeat, err)
	}
}

func sameSetup(a, b *counter.Setup) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
