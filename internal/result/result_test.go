package result

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestRunFiguresJSON checks that a figure a run lacks is absent from its
// JSON, never 0, that a measured 0 stays, and that reading gives back
// which figures a run has.
func TestRunFiguresJSON(t *testing.T) {
	measured := &Run{Status: StatusOK, ExitCode: 0, WallSec: 0.5, UserSec: 0, SysSec: 0.25, VolCtxSw: 12, InvolCtxSw: 0, MaxRSSKiB: 2048}
	for _, tt := range []struct {
		name      string
		run       *Run
		has, lack []string
	}{
		{"measured, with zeros", measured,
			[]string{`"exit_code":0`, `"wall_s":0.5`, `"user_s":0`, `"involuntary_ctxsw":0`, `"maxrss_kib":2048`}, nil},
		{"a pasted table", &Run{Status: StatusOK, Values: map[string]float64{"mean": 10.088}, Lacks: FigAll},
			[]string{`"values":{"mean":10.088}`}, figureKeys},
		{"perf stat: times only", &Run{Status: StatusOK, WallSec: 0.047, UserSec: 0.027, SysSec: 0.02, Lacks: FigExitCode | FigCtxSw | FigMaxRSS},
			[]string{`"status":"ok","wall_s":0.047,"user_s":0.027,"sys_s":0.02}`}, []string{"exit_code", "ctxsw", "maxrss"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(tt.run)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range tt.has {
				if !strings.Contains(string(data), h) {
					t.Errorf("%s lacks %s", data, h)
				}
			}
			for _, l := range tt.lack {
				if strings.Contains(string(data), l) {
					t.Errorf("%s has %s", data, l)
				}
			}
			var back Run
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			if back.Lacks != tt.run.Lacks || back.WallSec != tt.run.WallSec || back.VolCtxSw != tt.run.VolCtxSw || back.SysSec != tt.run.SysSec {
				t.Errorf("read back as %+v, want %+v", back, *tt.run)
			}
		})
	}
}

// TestDecodeOldImport reads sets written before a run could lack a
// figure: an import then wrote 0 for what its tool never printed, which
// now reads as lacking; a run kdelta measured keeps its zeros.
func TestDecodeOldImport(t *testing.T) {
	old := func(tool, run string) *Run {
		t.Helper()
		data := `{"schema":"kdelta/result/v1","id":"x","tool":"` + tool + `","labels":{},"complete":true,
			"benchmarks":[{"workload":"w","params":{},"metrics":[{"name":"m","unit":"","better":"lower"}],"runs":[` + run + `]}]}`
		s, err := Decode("old.json", []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return s.Benchmarks[0].Runs[0]
	}
	zeros := `{"index":0,"status":"ok","exit_code":0,"wall_s":0,"user_s":0,"sys_s":0,"voluntary_ctxsw":0,"involuntary_ctxsw":0,"maxrss_kib":0,"values":{"m":1}}`
	if r := old("import table", zeros); r.Lacks != FigAll {
		t.Errorf("an old table import lacks %07b, want every figure", r.Lacks)
	}
	stressng := `{"index":0,"status":"ok","exit_code":0,"wall_s":60.01,"user_s":0,"sys_s":1.5,"voluntary_ctxsw":0,"involuntary_ctxsw":0,"maxrss_kib":3476,"values":{"m":1}}`
	if r := old("import stress-ng", stressng); r.Lacks != FigExitCode|FigCtxSw || r.UserSec != 0 || r.WallSec != 60.01 {
		t.Errorf("an old stress-ng import lacks %07b (user %v wall %v), want the exit code and context switches only", r.Lacks, r.UserSec, r.WallSec)
	}
	if r := old("kdelta test", zeros); r.Lacks != 0 {
		t.Errorf("a run kdelta measured lacks %07b, want nothing", r.Lacks)
	}
	if r := old("import table", `{"index":0,"status":"ok","values":{"m":1}}`); r.Lacks != FigAll {
		t.Errorf("a new table import lacks %07b, want every figure", r.Lacks)
	}
}

// TestMetricWorse drives the one direction rule with the case that used to
// disagree: an empty Better was lower-is-better in compare and job, and
// higher-is-better in the store's history.
func TestMetricWorse(t *testing.T) {
	for _, tt := range []struct {
		better Better
		change float64
		worse  bool
	}{
		{Lower, +0.1, true},
		{Lower, -0.1, false},
		{Higher, +0.1, false},
		{Higher, -0.1, true},
		{"", +0.1, true},
		{"", -0.1, false},
		{Lower, 0, false},
		{Higher, 0, false},
		{"", 0, false},
	} {
		if got := (Metric{Name: "m", Better: tt.better}).Worse(tt.change); got != tt.worse {
			t.Errorf("better %q, change %+.2f: worse %v, want %v", tt.better, tt.change, got, tt.worse)
		}
	}
}

// TestSessionValues checks the grouping of runs into sessions: in the
// order of their first run, runs without a session in the set's own, and
// warm-ups, failed runs and runs without the metric left out.
func TestSessionValues(t *testing.T) {
	run := func(session string, v float64) *Run {
		return &Run{Status: StatusOK, Session: session, Values: map[string]float64{"m": v}}
	}
	b := &Benchmark{Runs: []*Run{
		run("s2", 1), run("s1", 2), {Status: StatusOK, Warmup: true, Session: "s3", Values: map[string]float64{"m": 9}},
		run("s2", 3), {Status: StatusFailed, Session: "s4"}, run("", 4), {Status: StatusOK, Session: "s5"},
	}}
	vals, ids := b.SessionValues("m")
	want := [][]float64{{1, 3}, {2}, {4}}
	if len(vals) != 3 || strings.Join(ids, ",") != "s2,s1," {
		t.Fatalf("sessions %q values %v, want s2, s1 and the set's own", ids, vals)
	}
	for i := range want {
		if fmt.Sprint(vals[i]) != fmt.Sprint(want[i]) {
			t.Errorf("session %q: %v, want %v", ids[i], vals[i], want[i])
		}
	}
	// A run's session survives JSON; an old run without one reads as "".
	data, err := json.Marshal(run("20260727T090000-ab12", 1))
	if err != nil || !strings.Contains(string(data), `"session":"20260727T090000-ab12"`) {
		t.Fatalf("%s, %v", data, err)
	}
	var back Run
	if err := json.Unmarshal([]byte(`{"status":"ok","values":{"m":1}}`), &back); err != nil || back.Session != "" {
		t.Errorf("old run: session %q, %v", back.Session, err)
	}
}
