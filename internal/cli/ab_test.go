package cli_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/knob"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/testenv"
)

// wakeKnob is the knob of seed mail 002: on this machine (6.18, HZ 250)
// membarrier(MEMBARRIER_CMD_GLOBAL) takes about 8 ms with it at 1 and
// about 16 ms at 0.
const wakeKnob = "/sys/module/rcutree/parameters/rcu_normal_wake_from_gp"

// thpKnob lists its choices: the value in brackets is what is restored.
const thpKnob = "/sys/kernel/mm/transparent_hugepage/enabled"

// liveKnob skips unless path is a knob this test can write, and writes
// its value back when the test ends, whatever happens in it. It returns
// the value in effect.
func liveKnob(t *testing.T, path string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Skip(t, "needs root to write kernel knobs")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		testenv.Skipf(t, "no %s here: %v", path, err)
	}
	v, err := knob.ParseValue(string(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if got := knobValue(t, path); got != v.Selected {
			t.Errorf("%s is %s after the test, was %s; writing it back", path, got, v.Selected)
			os.WriteFile(path, []byte(v.Selected+"\n"), 0)
		}
	})
	return v.Selected
}

func knobValue(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := knob.ParseValue(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return v.Selected
}

// ownJournal points the restore journal at a directory of the test's own.
func ownJournal(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	return filepath.Join(dir, "kdelta", "restore.d")
}

func journalsIn(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	return m
}

func needMembarrier(t *testing.T) {
	t.Helper()
	mask, err := sys.Membarrier(sys.MembarrierQuery, 0)
	if err != nil || mask&sys.MembarrierGlobal == 0 {
		testenv.Skipf(t, "no MEMBARRIER_CMD_GLOBAL here (%v, mask %#x)", err, mask)
	}
	// These tests measure membarrier at normal grace periods.
	testenv.NormalGracePeriods(t)
}

// membarrierMedians times membarrier(GLOBAL) directly under each value
// of the knob, alternating blocks of calls, and returns the median
// latency in ms under 1 and under 0.
func membarrierMedians(t *testing.T, calls int) (on, off float64) {
	t.Helper()
	var lat [2][]float64
	for round := 0; round < 3; round++ {
		for i, v := range []string{"1", "0"} {
			if err := os.WriteFile(wakeKnob, []byte(v+"\n"), 0); err != nil {
				t.Fatal(err)
			}
			// The first two calls after a write warm up, as kdelta's
			// warm-up run does: a grace period begun under the old value
			// can still be in flight.
			for k := -2; k < calls/3; k++ {
				start := time.Now()
				if _, err := sys.Membarrier(sys.MembarrierGlobal, 0); err != nil {
					t.Fatal(err)
				}
				if k >= 0 {
					lat[i] = append(lat[i], float64(time.Since(start).Nanoseconds())/1e6)
				}
			}
		}
	}
	return median(lat[0]), median(lat[1])
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// compareJSON is the part of kdelta's compare JSON the tests read.
type compareJSON struct {
	Names []string   `json:"names"`
	Env   [][]string `json:"env_differences"`
	Rows  []struct {
		Workload string `json:"workload"`
		Metric   struct {
			Name string `json:"name"`
		} `json:"metric"`
		Vs []struct {
			Change  float64 `json:"change"`
			Verdict string  `json:"verdict"`
			Design  struct {
				Shared bool `json:"shared"`
			} `json:"design"`
		} `json:"vs_baseline"`
	} `json:"rows"`
}

// TestABWakeFromGP is issue 9's acceptance test 1: off regresses against
// on for the latency metrics, by about the change a plain membarrier loop
// measures, and the parameter is left as it was.
func TestABWakeFromGP(t *testing.T) {
	orig := liveKnob(t, wakeKnob)
	needMembarrier(t)
	jdir := ownJournal(t)
	// The claim is about kdelta beside a direct measurement taken just
	// before it. A shared VM's host can change how long a grace period
	// takes between the two (a fresh CI machine once saw the same p50 under
	// both values in kdelta's runs right after the direct loop saw +99.8%),
	// so a disagreement is measured again, direct loop and all, with each
	// set's run medians logged. The host can also take the knob's effect away for a while (another
	// CI run's second attempt saw 15.98 against 15.99 ms directly, a
	// minute after 8 against 16 in kdelta's runs), so a direct loop that
	// sees nothing to detect is measured again too. The third attempt
	// decides.
	const attempts = 3
	for attempt := 1; ; attempt++ {
		problems, flat := wakeFromGPAttempt(t, orig, jdir)
		if len(problems) == 0 {
			return
		}
		if attempt == attempts {
			if flat {
				testenv.Skipf(t, "%s", problems[0])
			}
			for _, p := range problems {
				t.Error(p)
			}
			return
		}
		t.Logf("attempt %d disagreed (%s); measuring again", attempt, strings.Join(problems, "; "))
		time.Sleep(2 * time.Second)
	}
}

// wakeFromGPAttempt measures membarrier directly under both values, runs
// kdelta ab over the same two values and returns what disagrees between
// the two in the p50 and mean verdicts; flat when the direct loop saw the
// knob move nothing, and kdelta did not run. Everything else it checks
// (the knob put back, labels, fingerprint, journals) fails the test at
// once.
func wakeFromGPAttempt(t *testing.T, orig, jdir string) (problems []string, flat bool) {
	t.Helper()
	on, off := membarrierMedians(t, 30)
	if err := os.WriteFile(wakeKnob, []byte(orig+"\n"), 0); err != nil {
		t.Fatal(err)
	}
	direct := off/on - 1
	t.Logf("membarrier(GLOBAL) directly: median %.2f ms with wake_from_gp=1, %.2f ms with 0: %+.1f%%", on, off, 100*direct)
	if direct < 0.2 {
		return []string{fmt.Sprintf("rcu_normal_wake_from_gp moves membarrier by only %+.1f%% here: nothing to detect", 100*direct)}, true
	}

	prefix := filepath.Join(t.TempDir(), "wake")
	code, stdout, stderr := kd(t, "ab", "--no-store", "--format", "json", "-o", prefix,
		"--variant", "on:"+wakeKnob+"=1", "--variant", "off:"+wakeKnob+"=0", "-r", "6", "--", "rcu:calls=30")
	if code != 0 {
		t.Fatalf("kdelta ab: exit %d: %s", code, stderr)
	}
	if got := knobValue(t, wakeKnob); got != orig {
		t.Errorf("after kdelta ab: %s=%s, want %s", wakeKnob, got, orig)
	}
	if js := journalsIn(jdir); len(js) != 0 {
		t.Errorf("journals left: %v", js)
	}
	var cmp compareJSON
	if err := json.Unmarshal([]byte(stdout), &cmp); err != nil {
		t.Fatalf("compare JSON: %v\n%s", err, stdout)
	}
	if strings.Join(cmp.Names, " ") != "on off" {
		t.Errorf("names %v, want on off", cmp.Names)
	}
	if len(cmp.Env) != 1 || !strings.Contains(strings.Join(cmp.Env[0], "\n"), "rcutree.rcu_normal_wake_from_gp: 1 -> 0") {
		t.Errorf("environment differences do not show the knob: %q", cmp.Env)
	}
	verdicts := map[string]string{}
	for _, r := range cmp.Rows {
		v := r.Vs[0]
		verdicts[r.Metric.Name] = v.Verdict
		// The variants alternate in every session: judged run by run.
		if !v.Design.Shared {
			t.Errorf("%s: not judged as interleaved in shared sessions", r.Metric.Name)
		}
		if v.Verdict == "improved" {
			problems = append(problems, fmt.Sprintf("%s: off improved on on (%+.1f%%)", r.Metric.Name, 100*v.Change))
		}
		if r.Metric.Name == "p50" {
			ratio := v.Change / direct
			t.Logf("kdelta: p50 %+.1f%% (%s); ratio to the direct change %.2f", 100*v.Change, v.Verdict, ratio)
			if ratio < 1/1.5 || ratio > 1.5 || math.IsNaN(ratio) {
				problems = append(problems, fmt.Sprintf("p50 change %+.1f%% is not within a factor 1.5 of the direct %+.1f%%", 100*v.Change, 100*direct))
			}
		}
	}
	for _, m := range []string{"mean", "p50"} {
		if verdicts[m] != "regressed" {
			problems = append(problems, fmt.Sprintf("%s: verdict %q, want regressed (all: %v)", m, verdicts[m], verdicts))
		}
	}
	// Each set carries its knob in labels, runs and fingerprint.
	for _, v := range []struct{ name, val string }{{"on", "1"}, {"off", "0"}} {
		s, err := result.Load(prefix + "-" + v.name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		if s.Labels["variant"] != v.name || s.Labels["rcutree.rcu_normal_wake_from_gp"] != v.val || !s.Complete {
			t.Errorf("%s: labels %v complete %v", v.name, s.Labels, s.Complete)
		}
		if s.Env == nil || s.Env.RCU.Tree["rcu_normal_wake_from_gp"] != v.val {
			t.Errorf("%s: fingerprint does not hold the knob's value", v.name)
		}
		for _, r := range s.Benchmarks[0].Runs {
			if r.Info["knob.rcutree.rcu_normal_wake_from_gp"] != v.val {
				t.Errorf("%s run %d: knob %q in Info", v.name, r.Index, r.Info["knob.rcutree.rcu_normal_wake_from_gp"])
			}
		}
		if len(problems) > 0 {
			t.Logf("%s: run p50s %v ms", v.name, s.Benchmarks[0].Values("p50"))
		}
	}
	return problems, false
}

// TestABAA is acceptance test 2: two variants that set the same value.
// "No metric" is a claim about the family of six latency metrics, so it is
// tested at a family-wise 5%: α = 0.05/6 per metric (Bonferroni).
func TestABAA(t *testing.T) {
	liveKnob(t, wakeKnob)
	needMembarrier(t)
	ownJournal(t)
	// Random order within each round: with A always first, anything that
	// depends on the position in a round (the grace-period phase left by
	// the run before) would pass for a difference. A 5% band: a
	// membarrier latency is whole jiffies, so the runs' means move in
	// steps of several percent.
	code, stdout, stderr := kd(t, "ab", "--no-store", "--format", "json", "--alpha", "0.0083", "--threshold", "5%",
		"--order", "random", "--seed", "1",
		"--variant", "a:"+wakeKnob+"=1", "--variant", "b:"+wakeKnob+"=1", "-r", "6", "--", "rcu:calls=20")
	if code != 0 {
		t.Fatalf("kdelta ab: exit %d: %s", code, stderr)
	}
	var cmp compareJSON
	if err := json.Unmarshal([]byte(stdout), &cmp); err != nil {
		t.Fatal(err)
	}
	if len(cmp.Rows) == 0 {
		t.Fatalf("no rows: %s", stdout)
	}
	for _, r := range cmp.Rows {
		if v := r.Vs[0]; v.Verdict == "improved" || v.Verdict == "regressed" {
			t.Errorf("A/A: %s %s %+.1f%%", r.Metric.Name, v.Verdict, 100*v.Change)
		}
	}
}

// TestABUsageErrors is acceptance test 4: one line naming the knob, flag
// or file:line, exit 2, and every knob as it was.
func TestABUsageErrors(t *testing.T) {
	orig := liveKnob(t, wakeKnob)
	jdir := ownJournal(t)
	dir := t.TempDir()
	file := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unknownKey := file("unknown.toml", "repeat = 2\n\n[[variant]]\nname = \"a\"\nsett = [\"smt=on\"]\n")
	typeErr := file("type.toml", "[[workload]]\nname = \"rcu\"\n\n[[variant]]\nname = \"a\"\nset = \""+wakeKnob+"=0\"\n")
	badKnob := file("badknob.toml", "[[workload]]\nname = \"rcu\"\n[[variant]]\nname = \"a\"\nset = [\n  \""+wakeKnob+"=0\",\n  \"turbo=on\",\n]\n")
	refused := file("refused.toml", "[[workload]]\nname = \"rcu\"\nparams = { calls = 1 }\n[[variant]]\nname = \"a\"\nset = [\""+wakeKnob+"=0\"]\n[[variant]]\nname = \"b\"\nset = [\""+wakeKnob+"=nonsense\"]\n")
	vmJob := file("vm.toml", "[[workload]]\nname = \"rcu\"\n[[variant]]\nname = \"a\"\nkernel = \"bzImage\"\n[[variant]]\nname = \"b\"\nkernel = \"bzImage\"\n")
	ab := func(variants ...string) []string {
		args := []string{"ab", "--no-store", "-r", "1"}
		for _, v := range variants {
			args = append(args, "--variant", v)
		}
		return append(args, "--", "rcu:calls=1")
	}
	tests := []struct {
		args []string
		want string
	}{
		{ab("a:/sys/module/rcutree/parameters/blimit=5", "b:"), "/sys/module/rcutree/parameters/blimit: cannot be opened for writing: permission denied"},
		{ab("a:/sys/kernel/nosuch_knob=1", "b:"), "/sys/kernel/nosuch_knob: no such knob"},
		{ab("a:turbo=on", "b:"), `--variant: variant a: unknown knob "turbo"`},
		{ab("a:/etc/passwd=x", "b:"), "kdelta only writes files under /sys and /proc/sys"},
		{ab("a:smt=maybe", "b:"), `smt=maybe: bad value "maybe"`},
		{ab("a:"+wakeKnob+"=0", "b:"+wakeKnob+"=nonsense"), wakeKnob + `=nonsense: the kernel refused "nonsense": invalid argument`},
		{ab("a:" + wakeKnob + "=0"), "ab: give two variants or more"},
		{ab("a:"+wakeKnob+"=0", "a:"), "--variant: a given twice"},
		{ab("nocolon", "b:"), `--variant: "nocolon" is not NAME:KNOB=VALUE`},
		{append([]string{"ab", "--matrix", "nosuch=1,2"}, ab("a:"+wakeKnob+"=0", "b:")[1:]...), "--matrix nosuch: nosuch is neither a knob nor a parameter of rcu"},
		{append([]string{"ab", "--order", "zigzag"}, ab("a:"+wakeKnob+"=0", "b:")[1:]...), `--order: unknown order "zigzag"`},
		{[]string{"ab", "-f", unknownKey}, unknownKey + ":5: unknown key variant[0].sett"},
		{[]string{"ab", "-f", typeErr}, typeErr + ":6: variant[0].set: want an array of strings, got string"},
		{[]string{"ab", "-f", badKnob}, badKnob + `:7: variant[0].set: unknown knob "turbo"`},
		{[]string{"ab", "--no-store", "-f", refused}, wakeKnob + `=nonsense: the kernel refused "nonsense"`},
		{[]string{"ab", "-f", vmJob}, "its variants boot kernels (kernel, append): run it with kdelta vm -f"},
		{[]string{"ab", "-f", filepath.Join(dir, "missing.toml")}, "missing.toml: no such file"},
		{[]string{"run", "--no-store", "--set", wakeKnob + "=nonsense", "rcu:calls=1"}, wakeKnob + `=nonsense: the kernel refused "nonsense"`},
		{[]string{"run", "--set", "selinux=sideways", "rcu:calls=1"}, `--set: selinux=sideways: bad value "sideways"`},
	}
	for _, tt := range tests {
		code, stdout, stderr := kd(t, tt.args...)
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("kdelta %s: exit %d, stderr %q; want exit 2 and one line with %q", strings.Join(tt.args, " "), code, stderr, tt.want)
		}
		if stdout != "" {
			t.Errorf("kdelta %s: stdout %q", strings.Join(tt.args, " "), stdout)
		}
		if got := knobValue(t, wakeKnob); got != orig {
			t.Fatalf("kdelta %s left %s=%s, was %s", strings.Join(tt.args, " "), wakeKnob, got, orig)
		}
		if js := journalsIn(jdir); len(js) != 0 {
			t.Fatalf("kdelta %s left journals: %v", strings.Join(tt.args, " "), js)
		}
	}
}

// TestRunSetAndMatrix: kdelta run with --set records the knob and puts it
// back; with a knob in --matrix it runs one set per value, interleaved,
// and prints the sweep table.
func TestRunSetAndMatrix(t *testing.T) {
	orig := liveKnob(t, wakeKnob)
	needMembarrier(t)
	ownJournal(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "set.json")
	code, _, stderr := kd(t, "run", "--no-store", "-r", "2", "--warmup", "0", "--set", wakeKnob+"=0", "-o", out, "rcu:calls=3")
	if code != 0 {
		t.Fatalf("run --set: exit %d: %s", code, stderr)
	}
	s, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Labels["rcutree.rcu_normal_wake_from_gp"] != "0" || s.Env.RCU.Tree["rcu_normal_wake_from_gp"] != "0" ||
		s.Benchmarks[0].Runs[0].Info["knob.rcutree.rcu_normal_wake_from_gp"] != "0" {
		t.Errorf("run --set: labels %v, fingerprint %v, info %v", s.Labels, s.Env.RCU.Tree, s.Benchmarks[0].Runs[0].Info)
	}
	if got := knobValue(t, wakeKnob); got != orig {
		t.Errorf("after run --set: %s, want %s", got, orig)
	}

	prefix := filepath.Join(dir, "m")
	code, stdout, stderr := kd(t, "run", "--no-store", "-r", "2", "--warmup", "0", "--matrix", wakeKnob+"=1,0", "--matrix", "calls=2,3", "-o", prefix, "rcu")
	if code != 0 {
		t.Fatalf("run --matrix: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"sweep: rcu mean (ms, lower is better)", "rcutree.rcu_normal_wake_from_gp  calls  median"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run --matrix output lacks %q:\n%s", want, stdout)
		}
	}
	for _, v := range []string{"1", "0"} {
		s, err := result.Load(prefix + "-rcutree.rcu_normal_wake_from_gp=" + v + ".json")
		if err != nil {
			t.Fatalf("matrix cell %s: %v", v, err)
		}
		if len(s.Benchmarks) != 2 || s.Labels["rcutree.rcu_normal_wake_from_gp"] != v {
			t.Errorf("matrix cell %s: %d benchmarks, labels %v", v, len(s.Benchmarks), s.Labels)
		}
	}
	if got := knobValue(t, wakeKnob); got != orig {
		t.Errorf("after run --matrix: %s, want %s", got, orig)
	}
}
