package result

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestImportStressNG(t *testing.T) {
	type figures struct {
		ops, real, usr, sys, rate, cpuRate, kill float64
		rss                                      int64
		cpu                                      string
	}
	for _, tc := range []struct {
		file string
		want figures
	}{
		{"stress-ng-kill-metrics.txt", figures{2000, 0.38, 0.01, 0.03, 5217.77, 53697.04, 250730.54, 2556, "9.72"}},
		{"stress-ng-kill-metrics-brief.txt", figures{2000, 0.09, 0.02, 0.02, 22822.29, 44779.80, 433706.57, 0, ""}},
		{"stress-ng-kill-yaml-run.txt", figures{2000, 0.07, 0.01, 0.03, 27196.62, 47525.13, 465800.88, 2556, "57.23"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s := importFile(t, tc.file, "")
			if s.Tool != "import stress-ng" || len(s.Benchmarks) != 1 {
				t.Fatalf("tool %q, %d benchmarks", s.Tool, len(s.Benchmarks))
			}
			b := bench(t, s, "stress-ng-kill")
			if len(b.Runs) != 1 || len(b.Params) != 0 {
				t.Fatalf("%d runs, params %v", len(b.Runs), b.Params)
			}
			r, w := b.Runs[0], tc.want
			vals := map[string]float64{"real-time": w.real, "usr-time": w.usr, "sys-time": w.sys,
				"bogo-ops/s": w.rate, "bogo-ops/s-usr-sys": w.cpuRate, "kill-calls/s": w.kill}
			for k, v := range vals {
				if r.Values[k] != v {
					t.Errorf("%s = %v, want %v", k, r.Values[k], v)
				}
			}
			if len(r.Values) != len(vals) {
				t.Errorf("values %v", r.Values)
			}
			if r.Ops != w.ops || r.Counts["bogo-ops"] != w.ops || r.WallSec != w.real || r.UserSec != w.usr || r.SysSec != w.sys ||
				r.MaxRSSKiB != w.rss || r.Info["cpu_used_pct"] != w.cpu || r.Info["instances"] != "1" {
				t.Errorf("run %+v", r)
			}
			for name, want := range map[string]Metric{
				"bogo-ops/s":   {Name: "bogo-ops/s", Unit: "bogo-ops/s", Better: Higher},
				"kill-calls/s": {Name: "kill-calls/s", Unit: "calls/s", Better: Higher},
				"real-time":    {Name: "real-time", Unit: "s", Better: Lower},
			} {
				if m := metric(t, b, name); m.Unit != want.Unit || m.Better != want.Better {
					t.Errorf("metric %+v, want %+v", m, want)
				}
			}
		})
	}
}

// TestImportStressNGRuns reads three concatenated runs: one run per
// stress-ng process, checked against the metrics lines read by fields.
func TestImportStressNGRuns(t *testing.T) {
	const file = "stress-ng-kill-metrics-brief-x3.txt"
	s := importFile(t, file, "stress-ng")
	b := bench(t, s, "stress-ng-kill")
	data, err := os.ReadFile(filepath.Join(importDir, file))
	if err != nil {
		t.Fatal(err)
	}
	var rates, kills []float64
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) == 10 && f[1] == "metrc:" && f[3] == "kill" {
			v, _ := strconv.ParseFloat(f[8], 64)
			rates = append(rates, v)
		}
		if len(f) > 5 && f[3] == "kill" && f[5] == "kill" {
			v, _ := strconv.ParseFloat(f[4], 64)
			kills = append(kills, v)
		}
	}
	if len(rates) != 3 || len(kills) != 3 {
		t.Fatalf("the test read %v and %v from the file", rates, kills)
	}
	if got := b.Values("bogo-ops/s"); !equalFloats(got, rates) {
		t.Errorf("bogo-ops/s %v, want %v", got, rates)
	}
	if got := b.Values("kill-calls/s"); !equalFloats(got, kills) {
		t.Errorf("kill-calls/s %v, want %v", got, kills)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestImportStressNGTwoStressors(t *testing.T) {
	s := importFile(t, "stress-ng-kill-get-metrics.txt", "")
	if len(s.Benchmarks) != 2 {
		t.Fatalf("%d benchmarks", len(s.Benchmarks))
	}
	kill, get := bench(t, s, "stress-ng-kill"), bench(t, s, "stress-ng-get")
	if v := kill.Values("bogo-ops/s"); len(v) != 1 || v[0] != 1565.09 {
		t.Errorf("kill %v", v)
	}
	if v := kill.Values("kill-calls/s"); len(v) != 1 || v[0] != 138460.91 {
		t.Errorf("kill calls %v", v)
	}
	if v := get.Values("bogo-ops/s"); len(v) != 1 || v[0] != 379.01 || get.Runs[0].MaxRSSKiB != 3476 {
		t.Errorf("get %v rss %d", v, get.Runs[0].MaxRSSKiB)
	}
	if hasMetric(get, "kill-calls/s") {
		t.Error("get has kill's metric")
	}
}

// TestImportStressNGLogBrief reads --log-brief output: the lines without
// their "stress-ng: metrc: [PID]" prefix.
func TestImportStressNGLogBrief(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(importDir, "stress-ng-kill-metrics.txt"))
	if err != nil {
		t.Fatal(err)
	}
	brief := regexp.MustCompile(`(?m)^stress-ng: \w+: +\[\d+\] `).ReplaceAll(data, nil)
	s, err := Import("brief.txt", brief, "stress-ng")
	if err != nil {
		t.Fatal(err)
	}
	checkSet(t, "brief.txt", s)
	r := bench(t, s, "stress-ng-kill").Runs[0]
	if r.Values["bogo-ops/s"] != 5217.77 || r.Values["kill-calls/s"] != 250730.54 {
		t.Errorf("values %v", r.Values)
	}
}

func TestImportStressNGYAML(t *testing.T) {
	s := importFile(t, "stress-ng-kill.yaml", "")
	if s.Tool != "import stress-ng-yaml" {
		t.Errorf("tool %q", s.Tool)
	}
	if want := time.Unix(1796025347, 0).UTC(); !s.Created.Equal(want) {
		t.Errorf("created %v, want %v (epoch-secs)", s.Created, want)
	}
	if s.Labels["host"] != "vm" || s.Labels["kernel"] != "6.18.44-fc-v657" {
		t.Errorf("labels %v", s.Labels)
	}
	if s.Env != nil {
		t.Errorf("env %+v: a partial fingerprint from system-info", s.Env)
	}
	b := bench(t, s, "stress-ng-kill")
	r := b.Runs[0]
	want := map[string]float64{"bogo-ops/s": 27196.623039, "bogo-ops/s-usr-sys": 47525.128912, "real-time": 0.073539,
		"usr-time": 0.010520, "sys-time": 0.031563, "kill-calls/s": 465800.877339}
	for k, v := range want {
		if r.Values[k] != v {
			t.Errorf("%s = %v, want %v", k, r.Values[k], v)
		}
	}
	if len(r.Values) != len(want) || r.Ops != 2000 || r.MaxRSSKiB != 2556 || r.Info["cpu_used_pct"] != "57.225774" || !r.Start.Equal(s.Created) ||
		r.Info["stress-ng-version"] != "0.15.06" || r.Info["version"] != "#1 SMP PREEMPT_DYNAMIC @0" || r.Info["machine"] != "x86_64" || r.Info["cpus"] != "2" {
		t.Errorf("run %+v", r)
	}
	// The text output of the same run prints the same figures rounded to
	// two decimals, under the same metric names.
	txt := importFile(t, "stress-ng-kill-yaml-run.txt", "")
	tb := bench(t, txt, "stress-ng-kill")
	for _, m := range b.Metrics {
		yv, tv := r.Values[m.Name], tb.Runs[0].Values[m.Name]
		if math.Abs(yv-tv) > 0.005+1e-9 {
			t.Errorf("%s: yaml %v, text %v", m.Name, yv, tv)
		}
		if tm := metric(t, tb, m.Name); tm != m {
			t.Errorf("metric %+v in yaml, %+v in text", m, tm)
		}
	}
}

func TestImportStressNGYAMLRuns(t *testing.T) {
	s := importFile(t, "stress-ng-kill-x2.yaml", "")
	b := bench(t, s, "stress-ng-kill")
	if len(b.Runs) != 2 {
		t.Fatalf("%d runs, want 2", len(b.Runs))
	}
	if !b.Runs[0].Start.Equal(s.Created) || !b.Runs[1].Start.After(b.Runs[0].Start) {
		t.Errorf("starts %v %v, created %v", b.Runs[0].Start, b.Runs[1].Start, s.Created)
	}
	// Without epoch-secs the date and time lines give the start.
	in := "---\nsystem-info:\n      date-yyyy-mm-dd: 2026:11:30\n      time-hh-mm-ss: 07:55:47\nmetrics:\n    - stressor: kill\n      bogo-ops-per-second-real-time: 5.5\n...\n"
	s, err := Import("d.yaml", []byte(in), "")
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 11, 30, 7, 55, 47, 0, time.Local).UTC(); !s.Created.Equal(want) {
		t.Errorf("created %v, want %v", s.Created, want)
	}
}

func TestStressNGMisc(t *testing.T) {
	for _, tc := range []struct {
		desc    string
		want    Metric
		guessed bool
	}{
		{"kill calls per sec", Metric{Name: "kill-calls/s", Unit: "calls/s", Better: Higher}, false},
		{"Context Switches per second", Metric{Name: "context-switches/s", Unit: "switches/s", Better: Higher}, false},
		{"nanosecs per kill call", Metric{Name: "nanosecs/kill-call", Unit: "nanosecs/kill-call", Better: Lower}, false},
		{"pages per fault", Metric{Name: "pages/fault", Unit: "pages/fault", Better: Higher}, false},
		{"cache  misses", Metric{Name: "cache-misses", Better: Higher}, true},
	} {
		got, guessed := sngMisc(tc.desc)
		if got.Name != tc.want.Name || got.Unit != tc.want.Unit || got.Better != tc.want.Better || guessed != tc.guessed {
			t.Errorf("sngMisc(%q) = %+v %v, want %+v %v", tc.desc, got, guessed, tc.want, tc.guessed)
		}
	}
}
