package mail

import (
	"math"
	"strings"
	"testing"
)

// stressFigure returns metric m of benchmark workload in output o's
// sets, NaN when it is not there.
func stressFigure(o *Output, workload, m string) float64 {
	for _, st := range o.Sets {
		for _, b := range st.Benchmarks {
			if b.Workload == workload {
				if vs := b.Values(m); len(vs) == 1 {
					return vs[0]
				}
			}
		}
	}
	return math.NaN()
}

// TestStressNGMail reads stress-ng --metrics-brief output pasted in a
// mail: this machine's stress-ng 0.15.06 (its "metrc:" lines, captured
// with stress-ng --cpu 1 --switch 1 --timeout 2s --metrics-brief) before
// and after, and, quoted two levels down, an older stress-ng's lines at
// level info. Each run's figures stay with its variant and level; the
// tool's log lines are not taken for the mail's setup; the quoted claim
// of "14% more switches per second" is checked against the rates, not
// against the times beside them.
func TestStressNGMail(t *testing.T) {
	a := analyzeFile(t, "stressng.txt")
	var own, quoted *Section
	for _, s := range a.Sections {
		switch s.Level {
		case 0:
			own = s
		case 2:
			quoted = s
		}
	}
	if own == nil || quoted == nil {
		t.Fatalf("sections %+v", a.Sections)
	}
	if len(own.Commands) != 1 || !strings.HasPrefix(own.Commands[0].Map.Spec, "command:parse=stress-ng,") {
		t.Errorf("commands %+v", own.Commands)
	}
	cases := []struct {
		s           *Section
		i           int
		variant     string
		workload, m string
		want        float64
	}{
		{own, 0, "Before", "stress-ng-switch", "bogo-ops/s", 42906.88},
		{own, 0, "Before", "stress-ng-switch", "bogo-ops/s-usr-sys", 84024.22},
		{own, 0, "Before", "stress-ng-cpu", "bogo-ops/s", 145.24},
		{own, 0, "Before", "stress-ng-switch", "sys-time", 0.91},
		{own, 0, "Before", "stress-ng-switch", "nanosecs/context-switch-pipe-method", 21275.65},
		{own, 1, "After", "stress-ng-switch", "bogo-ops/s", 11106.03},
		{own, 1, "After", "stress-ng-cpu", "real-time", 2.00},
		{quoted, 0, "", "stress-ng-switch", "bogo-ops/s", 18004.20},
		{quoted, 1, "and with the patch", "stress-ng-switch", "bogo-ops/s", 20551.70},
		{quoted, 1, "and with the patch", "stress-ng-switch", "usr-time", 1.61},
	}
	for _, c := range cases {
		if len(c.s.Outputs) != 2 {
			t.Fatalf("level %d: %d outputs, want 2", c.s.Level, len(c.s.Outputs))
		}
		o := c.s.Outputs[c.i]
		if o.Format != "stress-ng" || o.Variant != c.variant {
			t.Errorf("level %d output %d: %s, variant %q, want stress-ng, %q", c.s.Level, c.i+1, o.Format, o.Variant, c.variant)
		}
		if got := stressFigure(o, c.workload, c.m); got != c.want {
			t.Errorf("level %d output %d: %s %s = %v, want %v", c.s.Level, c.i+1, c.workload, c.m, got, c.want)
		}
	}
	for _, l := range own.Setup {
		if strings.Contains(l.Text, "stress-ng: ") {
			t.Errorf("setup holds stress-ng's own line %d: %q", l.N, l.Text)
		}
	}
	if len(quoted.Claims) != 1 {
		t.Fatalf("quoted claims %+v", quoted.Claims)
	}
	c := quoted.Claims[0]
	if c.Stated != 14 || len(c.Checks) != 2 {
		t.Fatalf("claim %q: stated %v, %d checks, want 14 against the two rates", c.Text, c.Stated, len(c.Checks))
	}
	for _, k := range c.Checks {
		if !strings.Contains(k.What, "bogo-ops/s") {
			t.Errorf("claim checked against %s", k.What)
		}
	}
	if k := c.Checks[0]; math.Abs(k.Change-100*(20551.70/18004.20-1)) > 1e-9 || !k.Agrees {
		t.Errorf("bogo-ops/s: %+v, want an agreeing %.2f%%", k, 100*(20551.70/18004.20-1))
	}
}
