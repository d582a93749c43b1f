package job

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/workload"
)

const full = `# a job using every key
description = "everything"
repeat = 7
warmup = 2
cpus = "0-1"
shield = "1"
fifo = 50
timeout = "90s"
order = "random"
seed = 3
labels = { seed = "002", n = 1 }
monitors = "schedstat@1s+1s"
events = "task-clock"
counters = "on"
until_conclusive = true
max_runs = 30
set = ["/sys/kernel/rcu_expedited=0"]
funclatency = ["synchronize_rcu", "rcu_barrier"]
funclatency_scope = "tasks"

[profile]
runs = 2
call_graph = true
event = "cpu-clock"
system_wide = false
freq = 999

[[workload]]
name = "rcu"
params = { calls = 30 }

[[workload]]
name = "messaging"
[workload.params]
groups = 2
mode = "thread"

[[variant]]
name = "on"
set = [
  "/sys/module/rcutree/parameters/rcu_normal_wake_from_gp=1",
  "smt=on",
]
labels = { note = "default" }

[[variant]]
name = "off"
set = ["/sys/module/rcutree/parameters/rcu_normal_wake_from_gp=0"]

[matrix]
loops = [10, 20]
"governor" = ["performance", "schedutil"]
`

func TestParseFull(t *testing.T) {
	j, err := Parse("full.toml", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	if j.Description != "everything" || j.Repeat != 7 || j.Warmup != 2 || j.CPUs != "0-1" || j.Shield != "1" || j.FIFO != 50 ||
		j.Timeout != 90*time.Second || j.Order != "random" || j.Seed != 3 || j.Monitors != "schedstat@1s+1s" ||
		j.Events != "task-clock" || j.Counters != "on" || !j.UntilConclusive || j.MaxRuns != 30 {
		t.Errorf("scalars: %+v", j)
	}
	if j.Labels["seed"] != "002" || j.Labels["n"] != "1" {
		t.Errorf("labels: %v", j.Labels)
	}
	if len(j.Set) != 1 || j.Set[0].Knob.Key != "sys.kernel.rcu_expedited" {
		t.Errorf("set: %+v", j.Set)
	}
	if strings.Join(j.FuncLatency, ",") != "synchronize_rcu,rcu_barrier" || j.FuncScope != "tasks" {
		t.Errorf("funclatency: %v, scope %q", j.FuncLatency, j.FuncScope)
	}
	if p := j.Profile; p == nil || p.Runs != 2 || !p.CallGraph || p.Event != "cpu-clock" || p.Freq != 999 {
		t.Errorf("profile: %+v", p)
	}
	if len(j.Workloads) != 2 || j.Workloads[0].Params["calls"] != "30" || j.Workloads[1].Params["mode"] != "thread" || j.Workloads[1].Where != "full.toml:32" {
		t.Errorf("workloads: %+v", j.Workloads)
	}
	if len(j.Variants) != 2 || len(j.Variants[0].Set) != 2 || j.Variants[0].Labels["note"] != "default" || j.Variants[1].Where != "full.toml:46" {
		t.Errorf("variants: %+v", j.Variants)
	}
	if len(j.Matrix) != 2 || j.Matrix[0].Key != "loops" || j.Matrix[0].Knob != nil || j.Matrix[1].Key != "governor" || j.Matrix[1].Knob == nil {
		t.Errorf("matrix: %+v", j.Matrix)
	}
	for _, k := range []string{"repeat", "cpus", "shield", "variant", "matrix"} {
		if !j.Given(k) {
			t.Errorf("Given(%q) = false", k)
		}
	}
	if j.Given("vm") {
		t.Errorf("Given(vm) = true")
	}
}

// TestParseErrors: every problem is one line naming file:line.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"unknown top key", "repeat = 3\nrepeats = 4\n", "j.toml:2: unknown key repeats"},
		{"unknown key in variant", "[[variant]]\nname = \"a\"\n\n[[variant]]\nname = \"b\"\nsett = []\n", "j.toml:6: unknown key variant[1].sett"},
		{"unknown key in workload params table", "[[workload]]\nname = \"rcu\"\nfoo = 1\n", "j.toml:3: unknown key workload[0].foo"},
		{"unknown key in profile", "[profile]\nrun = 1\n", "j.toml:2: unknown key profile.run"},
		{"unknown key in vm", "[vm]\nboot = 1\n", "j.toml:2: unknown key vm.boot"},
		{"type: string for int", "description = \"x\"\nrepeat = \"three\"\n", "j.toml:2: repeat: want an integer, got string"},
		{"type: int for string", "cpus = 1\n", "j.toml:1: cpus: want a string, got integer"},
		{"type: set not array", "[[variant]]\nname = \"a\"\nset = \"smt=on\"\n", "j.toml:3: variant[0].set: want an array of strings, got string"},
		{"type: set element", "[[variant]]\nname = \"a\"\nset = [\n  \"smt=on\",\n  1,\n]\n", "j.toml:3: variant[0].set[1]: want a string, got integer"},
		{"type: matrix not array", "[matrix]\ngroups = 4\n", "j.toml:2: matrix.groups: want an array of values, got integer"},
		{"type: labels", "labels = [1]\n", "j.toml:1: labels: want a table, got array"},
		{"type: variant not table", "variant = 3\n", "j.toml:1: variant: want an array of tables"},
		{"range", "repeat = 0\n", "j.toml:1: repeat: 0 out of range (at least 1)"},
		{"duration", "timeout = \"10 minutes\"\n", "j.toml:1: timeout: bad duration"},
		{"order", "order = \"zigzag\"\n", "j.toml:1: order: unknown order \"zigzag\""},
		{"bad knob in multi-line set", "[[variant]]\nname = \"a\"\nset = [\n  \"smt=on\",\n  \"turbo=on\",\n]\n", "j.toml:5: variant[0].set: unknown knob \"turbo\""},
		{"bad knob value", "set = [\"smt=forceoff\"]\n", "j.toml:1: set: smt=forceoff: bad value: forceoff cannot be undone"},
		{"variant without name", "[[variant]]\nset = []\n", "j.toml:1: variant[0]: no name"},
		{"variant name twice", "[[variant]]\nname = \"a\"\n[[variant]]\nname = \"a\"\n", "j.toml:4: variant[1]: a variant named a comes earlier"},
		{"workload without name", "[[workload]]\nparams = {}\n", "j.toml:1: workload[0]: no name"},
		{"mixed variants", "[[variant]]\nname = \"a\"\nkernel = \"bzImage\"\n[[variant]]\nname = \"b\"\nset = [\"smt=on\"]\n", "j.toml:1: variant: either every variant boots a kernel"},
		{"matrix knob also in variant", "[[variant]]\nname = \"a\"\nset = [\"smt=on\"]\n[matrix]\nsmt = [\"on\", \"off\"]\n", "j.toml:5: matrix.smt: variant a sets the same knob"},
		{"matrix knob bad value", "[matrix]\nsmt = [\"on\", \"sideways\"]\n", "j.toml:2: matrix: smt=sideways: bad value"},
		{"matrix duplicate value", "[matrix]\ngroups = [1, 1]\n", "j.toml:2: matrix: groups: value 1 twice"},
		{"max_runs below repeat", "repeat = 5\nmax_runs = 3\n", "j.toml:2: max_runs: 3 is fewer than repeat 5"},
		{"funclatency pattern", "repeat = 5\nfunclatency = \"sync*\"\n", "j.toml:2: funclatency: \"sync*\" is not a kernel function name"},
		{"funclatency type", "funclatency = 3\n", "j.toml:1: funclatency: want a string or an array of strings, got integer"},
		{"funclatency scope", "funclatency_scope = \"cpus\"\n", "j.toml:1: funclatency_scope: unknown scope \"cpus\" (system or tasks)"},
		{"syntax", "repeat = 5\nwarmup = \n", "j.toml:2: toml:"},
		{"duplicate key", "repeat = 5\nrepeat = 6\n", "j.toml:2: toml:"},
	}
	for _, tt := range tests {
		_, err := Parse("j.toml", []byte(tt.src))
		var je *Error
		if err == nil || !errors.As(err, &je) || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line starting %q", tt.name, err, tt.want)
		}
	}
}

func TestSpecsErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"[[workload]]\nname = \"nosuch\"\n", "j.toml:1: unknown workload \"nosuch\""},
		{"\n[[workload]]\nname = \"rcu\"\nparams = { calls = \"many\" }\n", "j.toml:2: workload rcu: parameter calls: bad value \"many\""},
		{"[[workload]]\nname = \"rcu\"\nparams = { bogus = 1 }\n", "j.toml:1: workload rcu: unknown parameter \"bogus\""},
	}
	for _, tt := range tests {
		j, err := Parse("j.toml", []byte(tt.src))
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		if _, err := j.Specs(); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: Specs: %v; want %q", tt.src, err, tt.want)
		}
	}
}

func TestIndexLines(t *testing.T) {
	src := `a = 1
b = """
c = 2
"""
[t]
x = [
  1,
  2,
]
"quoted.key" = 3
[[arr]]
y = 1
[arr.sub]
z = 2
[[arr]]
y = 2
d.e = 4 # comment [
w = 5
`
	ix := indexLines(src)
	tests := []struct {
		path keyPath
		line int
	}{
		{keyPath{"a"}, 1},
		{keyPath{"b"}, 2},
		{keyPath{"c"}, 0},
		{keyPath{"t", "x"}, 6},
		{keyPath{"t", "quoted.key"}, 10},
		{keyPath{"arr", "[0]", "y"}, 12},
		{keyPath{"arr", "[0]", "sub", "z"}, 14},
		{keyPath{"arr", "[1]", "y"}, 16},
		{keyPath{"arr", "[1]", "d", "e"}, 17},
		{keyPath{"arr", "[1]", "w"}, 18},
		{keyPath{"arr", "[1]", "nosuch"}, 15},
	}
	for _, tt := range tests {
		if got := ix.line(tt.path); got != tt.line {
			t.Errorf("line(%s) = %d, want %d", tt.path.display(), got, tt.line)
		}
	}
}

func TestParseVariantAndAxis(t *testing.T) {
	v, err := ParseVariant("off:/sys/module/rcutree/parameters/rcu_normal_wake_from_gp=0,smt=off")
	if err != nil || v.Name != "off" || len(v.Set) != 2 || v.Set[1].Knob.Key != "smt" {
		t.Errorf("ParseVariant: %+v, %v", v, err)
	}
	if v, err := ParseVariant("base:"); err != nil || v.Name != "base" || len(v.Set) != 0 {
		t.Errorf("ParseVariant(base:): %+v, %v", v, err)
	}
	for _, bad := range []string{"off", ":smt=on", "a b:smt=on", "x:turbo=1", "x:smt=maybe"} {
		if _, err := ParseVariant(bad); err == nil {
			t.Errorf("ParseVariant(%q): no error", bad)
		}
	}
	a, err := ParseAxis("groups=1,2,4")
	if err != nil || a.Key != "groups" || len(a.Values) != 3 || a.Knob != nil {
		t.Errorf("ParseAxis: %+v, %v", a, err)
	}
	a, err = ParseAxis("smt=on,off")
	if err != nil || a.Knob == nil || a.Knob.Path != "/sys/devices/system/cpu/smt/control" {
		t.Errorf("ParseAxis(smt): %+v, %v", a, err)
	}
	for _, bad := range []string{"groups", "=1", "groups=", "groups=1,,2", "smt=on,sideways", "Bad-Key=1"} {
		if _, err := ParseAxis(bad); err == nil {
			t.Errorf("ParseAxis(%q): no error", bad)
		}
	}
}

// TestExamplesParse is what CI checks of every shipped job file: it
// parses, its workloads resolve, and its matrix expands.
func TestExamplesParse(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.toml"))
	if len(files) < 5 {
		t.Fatalf("examples: %d job files, want one per seed mail", len(files))
	}
	for _, f := range files {
		j, err := Load(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		specs, err := j.Specs()
		if err != nil || len(specs) == 0 {
			t.Errorf("%s: specs %d, %v", f, len(specs), err)
			continue
		}
		if _, err := ExpandParams(specs, j.Matrix); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if j.Description == "" {
			t.Errorf("%s: no description", f)
		}
	}
	j, err := Load(filepath.Join("..", "..", "examples", "001-messaging-preempt-vm.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Variants) != 2 || !j.Variants[0].Booted() || j.Variants[0].Append != "preempt=none" || j.Variants[1].Append != "preempt=full" || j.VM == nil {
		t.Errorf("001: variants %+v vm %+v", j.Variants, j.VM)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(full)
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.toml"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("[[variant]]\nname = \"a\"\nset = [\n\"smt=on\",\n1]\n")
	f.Fuzz(func(t *testing.T, src string) {
		_, err := Parse("f.toml", []byte(src))
		if err == nil {
			return
		}
		var je *Error
		if !errors.As(err, &je) || je.File != "f.toml" || je.Line < 0 || je.Line > strings.Count(src, "\n")+1 {
			t.Errorf("error %v (%+v) does not name f.toml and a line of the file", err, je)
		}
	})
}

func TestWorkloadSpec(t *testing.T) {
	tests := []struct {
		w    Workload
		want string
	}{
		{Workload{Name: "rcu"}, "rcu"},
		{Workload{Name: "messaging", Params: map[string]string{"mode": "thread", "groups": "20"}}, "messaging:groups=20,mode=thread"},
		{Workload{Name: "command", Params: map[string]string{"cmd": "stress-ng --kill 1,2"}}, "command:cmd='stress-ng --kill 1,2'"},
		{Workload{Name: "command", Params: map[string]string{"cmd": "echo 'a'"}}, `command:cmd="echo 'a'"`},
	}
	for _, tt := range tests {
		if got := tt.w.Spec(); got != tt.want {
			t.Errorf("Spec() = %q, want %q", got, tt.want)
		}
		if _, err := workload.ParseSpec(tt.w.Spec()); err != nil && tt.w.Name != "command" {
			t.Errorf("%q does not parse back: %v", tt.w.Spec(), err)
		}
	}
}
