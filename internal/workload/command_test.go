package workload

import (
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

func TestSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"true", []string{"true"}},
		{"  stress-ng --kill 1\t--kill-ops 20000 ", []string{"stress-ng", "--kill", "1", "--kill-ops", "20000"}},
		{`sh -c 'exit 3'`, []string{"sh", "-c", "exit 3"}},
		{`echo "a b" c`, []string{"echo", "a b", "c"}},
		{`echo 'it'\''s'`, []string{"echo", "it's"}},
		{`echo "say \"hi\" \\ \x"`, []string{"echo", `say "hi" \ \x`}},
		{`echo a\ b`, []string{"echo", "a b"}},
		{`echo '' ""`, []string{"echo", "", ""}},
		{`echo '\n' "\n"`, []string{"echo", `\n`, `\n`}},
		{"echo a\\\nb", []string{"echo", "ab"}},
		{`x"y z"'w'`, []string{"xy zw"}},
		{"", nil},
		{"   ", nil},
	} {
		got, err := SplitArgs(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`echo 'abc`, `echo "abc`, `echo abc\`, `echo "a\"`} {
		if got, err := SplitArgs(bad); err == nil {
			t.Errorf("SplitArgs(%q) = %q, want an error", bad, got)
		}
	}
}

// TestSplitArgsLikeSh checks the splitter against the system shell on
// lines without expansions, where the two must agree.
func TestSplitArgsLikeSh(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		testenv.Skip(t, "no sh: ", err)
	}
	for _, line := range []string{
		`a b  c`,
		`'x y' "z w"`,
		`'it'\''s' "q\"q" back\\slash`,
		`"a\b" 'c\d' e\f`,
		`'' "" x""y`,
		`"tab	in" 'new
line'`,
	} {
		want, err := SplitArgs(line)
		if err != nil {
			t.Fatalf("SplitArgs(%q): %v", line, err)
		}
		// Let sh split the line itself: eval would expand, but these
		// lines hold nothing to expand.
		out, err := exec.Command(sh, "-c", `eval "set -- $1"; for a in "$@"; do printf '%s\0' "$a"; done`, "sh", line).Output()
		if err != nil {
			t.Fatalf("sh on %q: %v", line, err)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if len(out) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("line %q: sh splits %q, SplitArgs %q", line, got, want)
		}
	}
}

func FuzzSplitArgs(f *testing.F) {
	for _, s := range []string{"true", `sh -c 'exit 3'`, `a "b \" c" d\ e`, `'' ""`, "a\\\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args, err := SplitArgs(s)
		if err != nil {
			return
		}
		// What quoteArgv writes, SplitArgs reads back unchanged.
		again, err := SplitArgs(quoteArgv(args))
		if err != nil {
			t.Fatalf("SplitArgs(quoteArgv(%q)): %v", args, err)
		}
		if len(args) == 0 && len(again) == 0 {
			return
		}
		if !reflect.DeepEqual(again, args) {
			t.Fatalf("round trip of %q: %q", args, again)
		}
	})
}

func TestCommandValidate(t *testing.T) {
	for _, tc := range []struct {
		spec, want string // want: part of the error; "" for none
	}{
		{"command:cmd=true", ""},
		{"command:cmd='perf bench sched pipe -l 1000',parse=perf-bench", ""},
		{`command:cmd='echo x=1',regex='x=(\d+)',unit=widgets,better=higher`, ""},
		{"command:cmd='echo a | wc',shell=true", ""},
		{"command", "parameter cmd is required"},
		{"command:cmd='  '", "parameter cmd is required"},
		{"command:cmd=true,parse=fio", `bad value "fio"`},
		{"command:cmd=true,regex='x=(\\d+'", "parameter regex"},
		{"command:cmd=true,regex='x=\\d+'", "has 0 groups"},
		{"command:cmd=true,regex='(a)(b)'", "has 2 groups"},
		{"command:cmd=true,unit=ms", "regex is not set"},
		{`command:cmd="echo 'oops"`, "unterminated '"},
		{"command:cmd='echo a | wc'", `"|" is shell syntax`},
		{"command:cmd=true,better=faster", `bad value "faster"`},
	} {
		_, err := ParseSpec(tc.spec)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.spec, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one containing %q", tc.spec, err, tc.want)
		}
	}
}

func TestCommandMetricsFor(t *testing.T) {
	names := func(spec string) []string {
		s, err := ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, m := range s.Workload.(ParamMetrics).MetricsFor(s.Values) {
			n = append(n, m.Name+" "+m.Unit+" "+string(m.Better))
		}
		return n
	}
	for _, tc := range []struct {
		spec string
		want []string
	}{
		{"command:cmd=true", []string{"wall s lower"}},
		{"command:cmd=true,parse=perf-bench", []string{"wall s lower", "time s lower", "usecs/op usecs/op lower", "ops/sec ops/s higher"}},
		{"command:cmd=true,parse=stress-ng", []string{"wall s lower", "bogo-ops/s bogo-ops/s higher", "kill-calls/s calls/s higher"}},
		{"command:cmd=true,parse=hackbench,regex='x(1)',unit=MB/s,better=higher", []string{"wall s lower", "time s lower", "value MB/s higher"}},
	} {
		if got := names(tc.spec); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: metrics %q, want %q", tc.spec, got, tc.want)
		}
	}
}

// runCommand runs spec (command:...) in this process as the child would.
func runCommand(t *testing.T, spec string) (*Task, error) {
	t.Helper()
	s, err := ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	task := NewTask(s.Values, nil)
	err = s.Workload.Run(task)
	if err == nil && !task.Readied() {
		t.Error("Run never called Ready")
	}
	return task, err
}

func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		testenv.Skipf(t, "needs %s: %v", name, err)
	}
}

func TestCommandRun(t *testing.T) {
	for _, tc := range []struct {
		name, spec, tool string
		want             []string           // metrics set, besides wall
		values           map[string]float64 // exact values expected
		info             map[string]string
	}{
		{name: "true", spec: "command:cmd=true"},
		{name: "perf bench", tool: "perf", spec: "command:cmd='perf bench syscall basic -l 100000',parse=perf-bench",
			want: []string{"time", "usecs/op", "ops/sec"}},
		{name: "perf bench messaging", tool: "perf", spec: "command:cmd='perf bench sched messaging -g 1 -l 10',parse=perf-bench",
			want: []string{"time"}},
		{name: "stress-ng", tool: "stress-ng", spec: "command:cmd='stress-ng --kill 1 --kill-ops 2000 --metrics',parse=stress-ng",
			want: []string{"bogo-ops/s", "kill-calls/s"}},
		{name: "hackbench", tool: "hackbench", spec: "command:cmd='hackbench -g 1 -l 10',parse=hackbench",
			want: []string{"time"}},
		{name: "regex, last match", spec: `command:cmd="printf 'rate 1.5 MB/s\nrate 2.25 MB/s\n'",shell=true,regex='rate (\S+) MB/s',unit=MB/s,better=higher`,
			values: map[string]float64{"value": 2.25}, info: map[string]string{"value_unit": "MB/s", "value_better": "higher"}},
		{name: "stderr is read too", spec: `command:cmd='echo "Time: 0.5" >&2',shell=true,parse=hackbench`,
			values: map[string]float64{"time": 0.5}},
		{name: "same process group", spec: `command:cmd='read -r pid comm state ppid pgrp rest < /proc/self/stat; echo pgrp=$pgrp',shell=true,regex='pgrp=(\d+)'`,
			values: map[string]float64{"value": float64(syscall.Getpgrp())}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.tool != "" {
				needTool(t, tc.tool)
			}
			task, err := runCommand(t, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			r := task.Report
			if w, ok := r.Values["wall"]; !ok || w <= 0 {
				t.Errorf("wall = %v, %v", w, ok)
			}
			want := map[string]bool{"wall": true}
			for _, k := range tc.want {
				want[k] = true
			}
			for k := range tc.values {
				want[k] = true
			}
			for k, v := range r.Values {
				if !want[k] {
					t.Errorf("unexpected metric %s = %v", k, v)
				}
				if v < 0 {
					t.Errorf("metric %s = %v", k, v)
				}
			}
			for k := range want {
				if _, ok := r.Values[k]; !ok {
					t.Errorf("metric %s not set", k)
				}
			}
			for k, v := range tc.values {
				if r.Values[k] != v {
					t.Errorf("%s = %v, want %v", k, r.Values[k], v)
				}
			}
			for k, v := range tc.info {
				if r.Info[k] != v {
					t.Errorf("info %s = %q, want %q", k, r.Info[k], v)
				}
			}
			if _, ok := r.Info["output_tail"]; ok {
				t.Error("output_tail kept for a run that succeeded")
			}
			t.Logf("%v", r.Values)
		})
	}
}

func TestCommandFailures(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		want       []string // parts of the error
		tail       string   // part of Info output_tail; "" for none kept
	}{
		{"exit 3", `command:cmd="sh -c 'echo first; echo oops >&2; exit 3'"`,
			[]string{"exit status 3", "oops", "first"}, "oops"},
		{"exit 3 through the shell", `command:cmd='exit 3',shell=true`, []string{"/bin/sh: exit status 3"}, ""},
		{"killed", `command:cmd='kill -9 $$',shell=true`, []string{"signal: killed"}, ""},
		{"not found", "command:cmd=kdelta-no-such-command-here", []string{`"kdelta-no-such-command-here" not found`}, ""},
		{"parser finds nothing", "command:cmd='echo hello',parse=perf-bench", []string{"parse=perf-bench", "expected \"# Running 'SUITE/BENCH' benchmark:\" (perf bench output)", "hello"}, "hello"},
		{"regex matches nothing", "command:cmd='echo hello',regex='x=(\\d+)'", []string{"matches nothing", "hello"}, "hello"},
		{"regex captures text", "command:cmd='echo x=abc',regex='x=(\\w+)'", []string{`captured "abc", not a number`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task, err := runCommand(t, tc.spec)
			if err == nil {
				t.Fatalf("no error; values %v", task.Report.Values)
			}
			if _, skip := SkipReason(err); skip {
				t.Fatalf("a failure reported as a skip: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if tc.tail != "" && !strings.Contains(task.Report.Info["output_tail"], tc.tail) {
				t.Errorf("output_tail %q does not contain %q", task.Report.Info["output_tail"], tc.tail)
			}
		})
	}
}

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 10}
	for i := 0; i < 100; i++ {
		b.Write([]byte(strconv.Itoa(i % 10)))
	}
	if got := b.String(); got != "0123456789" {
		t.Errorf("tail = %q, want the last 10 bytes", got)
	}
	if got := lastLines("a\nb\nc\nd\n", 2); got != "c\nd" {
		t.Errorf("lastLines = %q", got)
	}
}
