package workload_test

import (
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/workload"
)

func TestKillStressNG(t *testing.T) {
	for _, tc := range []struct {
		spec           string
		instances, ops int
	}{
		{"kill:ops=300,ramp=false", 1, 300},
		{"kill:ops=50,instances=2", 2, 50}, // with the 27 ms ramp
	} {
		t.Run(tc.spec, func(t *testing.T) {
			r := runSpec(t, tc.spec).Report
			bogo := float64(tc.instances * tc.ops)
			if r.Counts["bogo_ops"] != bogo || r.Ops != bogo {
				t.Errorf("bogo_ops = %v, ops = %v, want %v", r.Counts["bogo_ops"], r.Ops, bogo)
			}
			// Every call of the recorded sequence once per bogo-op, plus
			// the probes that looked for an unused pid (at least one each).
			seq := strings.Split(r.Info["sequence"], "; ")
			if len(seq) < 12 || seq[0] != "kill(self, SIGUSR1)" || seq[len(seq)-1] != "kill(unused, 0)" {
				t.Fatalf("sequence = %q", r.Info["sequence"])
			}
			probes := r.Counts["pid_probes"]
			if probes < bogo {
				t.Errorf("pid_probes = %v, want at least one per bogo-op (%v)", probes, bogo)
			}
			if got, want := r.Counts["kill_calls"], bogo*float64(len(seq))+probes; got != want {
				t.Errorf("kill_calls = %v, want %v (%d per bogo-op + %v probes)", got, want, len(seq), probes)
			}
			// Calls 1-3 are timed and succeed (kill(-1, 0) reaches at
			// least our own helper).
			if got, want := r.Counts["timed_calls"], 3*bogo; got != want {
				t.Errorf("timed_calls = %v, want %v", got, want)
			}
			for _, m := range []string{"bogo-ops/s", "kill-calls/s"} {
				if r.Values[m] <= 0 {
					t.Errorf("%s = %v, want > 0", m, r.Values[m])
				}
			}
			if _, ok := r.Values["calls/s"]; ok {
				t.Errorf("mode stress-ng set calls/s")
			}
			// The helper children are forked from the instances, so they
			// carry the instances' command line too.
			if pids := liveWorkers(t, "kill-instance"); len(pids) > 0 {
				t.Errorf("instances or helper children still running after the run: %v", pids)
			}
			if kids := liveChildren(t); len(kids) > 0 {
				t.Errorf("children still running after the run: %v", kids)
			}
		})
	}
}

func TestKillSelf(t *testing.T) {
	r := runSpec(t, "kill:mode=self,ops=2000").Report
	if r.Counts["kill_calls"] != 2000 || r.Ops != 2000 {
		t.Errorf("kill_calls = %v, ops = %v, want 2000", r.Counts["kill_calls"], r.Ops)
	}
	if r.Values["calls/s"] <= 0 {
		t.Errorf("calls/s = %v, want > 0", r.Values["calls/s"])
	}
	for _, m := range []string{"bogo-ops/s", "kill-calls/s"} {
		if _, ok := r.Values[m]; ok {
			t.Errorf("mode self set %s", m)
		}
	}
	if r.Info["sender"] == "" {
		t.Errorf("no sender info")
	}
}

func TestKillParams(t *testing.T) {
	s, err := workload.ParseSpec("kill")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"instances": "1", "ops": "20000", "ramp": "true", "mode": "stress-ng"} {
		if s.Values[k] != v {
			t.Errorf("default %s = %q, want %q", k, s.Values[k], v)
		}
	}
	for _, tc := range []struct {
		spec, wantErr string
	}{
		{"kill:instances=0", "instances"},
		{"kill:ops=0", "ops"},
		{"kill:ramp=maybe", "ramp"},
		{"kill:mode=forkbomb", "mode"},
		{"kill:mode=self,instances=2", "instances"},
	} {
		_, err := workload.ParseSpec(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("ParseSpec(%q) = %v, want an error naming %q", tc.spec, err, tc.wantErr)
		}
	}
	// The three metrics are declared once for both modes.
	var names []string
	for _, m := range s.Workload.Metrics() {
		names = append(names, m.Name)
	}
	if got := strings.Join(names, ","); got != "bogo-ops/s,kill-calls/s,calls/s" {
		t.Errorf("metrics = %s", got)
	}
}

// TestKillWorkerArgs checks that an instance started with bad arguments
// fails before it touches signals.
func TestKillWorkerArgs(t *testing.T) {
	for _, args := range [][]string{
		{"kill-instance", "0", "0", "100"},
		{"kill-instance", "0", "0", "-1", "true"},
		{"kill-instance", "0", "0", "10", "sometimes"},
	} {
		if got := workload.WorkerMain(args); got == 0 {
			t.Errorf("WorkerMain(%q) = 0, want a failure", args)
		}
	}
}
