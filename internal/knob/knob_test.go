package knob

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in         string
		key, path  string
		kind       kind
		value, err string
	}{
		{in: "/sys/module/rcutree/parameters/rcu_normal_wake_from_gp=1", key: "rcutree.rcu_normal_wake_from_gp", path: "/sys/module/rcutree/parameters/rcu_normal_wake_from_gp", value: "1"},
		{in: "/sys/kernel/rcu_expedited=1", key: "sys.kernel.rcu_expedited", path: "/sys/kernel/rcu_expedited", value: "1"},
		{in: "/sys/kernel/mm/transparent_hugepage/enabled=never", key: "sys.kernel.mm.transparent_hugepage.enabled", path: "/sys/kernel/mm/transparent_hugepage/enabled", value: "never"},
		{in: "/proc/sys/kernel/sched_autogroup_enabled=0", key: "sysctl.kernel.sched_autogroup_enabled", path: "/proc/sys/kernel/sched_autogroup_enabled", value: "0"},
		{in: "sysctl.kernel.sched_autogroup_enabled=0", key: "sysctl.kernel.sched_autogroup_enabled", path: "/proc/sys/kernel/sched_autogroup_enabled", value: "0"},
		{in: "sysctl kernel.sched_autogroup_enabled=0", key: "sysctl.kernel.sched_autogroup_enabled", path: "/proc/sys/kernel/sched_autogroup_enabled", value: "0"},
		{in: "sysctl:kernel/sched_rt_runtime_us=-1", key: "sysctl.kernel.sched_rt_runtime_us", path: "/proc/sys/kernel/sched_rt_runtime_us", value: "-1"},
		{in: "/sys/kernel/debug/sched/base_slice_ns=3000000", key: "debugfs.sched.base_slice_ns", path: "/sys/kernel/debug/sched/base_slice_ns", value: "3000000"},
		{in: "smt=off", key: "smt", path: SMTPath, kind: smt, value: "off"},
		{in: "smt=4", key: "smt", path: SMTPath, kind: smt, value: "4"},
		{in: SMTPath + "=on", key: "smt", path: SMTPath, kind: smt, value: "on"},
		{in: "governor=performance", key: "governor", path: governorGlob, kind: governor, value: "performance"},
		{in: "selinux=permissive", key: "selinux", path: SELinuxPath, kind: selinux, value: "permissive"},
		{in: "preempt=full", key: "preempt", path: PreemptPath, kind: preempt, value: "full"},
		{in: " preempt=lazy ", key: "preempt", path: PreemptPath, kind: preempt, value: "lazy"},
		{in: "/sys/x=a=b", key: "sys.x", path: "/sys/x", value: "a=b"},

		{in: "smt", err: "not KNOB=VALUE"},
		{in: "=1", err: "not KNOB=VALUE"},
		{in: "smt=forceoff", err: "cannot be undone"},
		{in: "smt=maybe", err: "bad value"},
		{in: "selinux=disabled", err: "bad value"},
		{in: "preempt=rt", err: "bad value"},
		{in: "governor=Perf ormance", err: "not a governor name"},
		{in: "/sys/kernel/rcu_expedited=", err: "empty"},
		{in: "turbo=on", err: "unknown knob"},
		{in: "/etc/passwd=x", err: "only writes files under /sys and /proc/sys"},
		{in: "/proc/self/oom_score_adj=1", err: "only writes files under /sys and /proc/sys"},
		{in: "/sys/../etc/passwd=x", err: "not a clean absolute path"},
		{in: "/sys/kernel//x=1", err: "not a clean absolute path"},
		{in: "sysctl.kernel..x=1", err: "not a sysctl name"},
		{in: "sysctl.=1", err: "not a sysctl name"},
		{in: "sys/kernel/x=1", err: "unknown knob"},
	}
	for _, tt := range tests {
		st, err := Parse(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Parse(%q) = %+v, %v; want error with %q", tt.in, st, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if st.Knob.Key != tt.key || st.Knob.Path != tt.path || st.Knob.kind != tt.kind || st.Value != tt.value {
			t.Errorf("Parse(%q) = key %q path %q kind %d value %q; want %q %q %d %q", tt.in, st.Knob.Key, st.Knob.Path, st.Knob.kind, st.Value, tt.key, tt.path, tt.kind, tt.value)
		}
	}
}

func TestParseErrorsAreSentinels(t *testing.T) {
	if _, err := Parse("turbo=on"); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown knob: %v is not ErrUnknown", err)
	}
	if _, err := Parse("smt=maybe"); !errors.Is(err, ErrBadValue) {
		t.Errorf("bad value: %v is not ErrBadValue", err)
	}
}

func TestParseList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{in: "smt=off", want: []string{"smt=off"}},
		{in: "smt=off,governor=performance", want: []string{"smt=off", "governor=performance"}},
		{in: "/sys/kernel/irq_affinity=0,1,governor=performance", want: []string{"/sys/kernel/irq_affinity=0,1", "governor=performance"}},
		{in: "smt=off,,", err: "bad value"},
		{in: "x,smt=off", err: "not KNOB=VALUE"},
	}
	for _, tt := range tests {
		got, err := ParseList(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseList(%q) = %v, %v; want error with %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseList(%q): %v", tt.in, err)
			continue
		}
		var s []string
		for _, st := range got {
			s = append(s, st.String())
		}
		if strings.Join(s, " ") != strings.Join(tt.want, " ") {
			t.Errorf("ParseList(%q) = %q, want %q", tt.in, s, tt.want)
		}
	}
}

func TestParseValue(t *testing.T) {
	tests := []struct {
		in, sel string
		choices []string
		err     bool
	}{
		{in: "always [madvise] never\n", sel: "madvise", choices: []string{"always", "madvise", "never"}},
		{in: "[mq-deadline] kyber bfq none\n", sel: "mq-deadline", choices: []string{"mq-deadline", "kyber", "bfq", "none"}},
		{in: "none voluntary (full) lazy \n", sel: "full", choices: []string{"none", "voluntary", "full", "lazy"}},
		{in: "full (lazy) \n", sel: "lazy", choices: []string{"full", "lazy"}},
		{in: "(full) lazy \n", sel: "full", choices: []string{"full", "lazy"}},
		{in: "1\n", sel: "1"},
		{in: "Y\n", sel: "Y"},
		{in: "4\t4\t1\t7\n", sel: "4\t4\t1\t7"},
		{in: "performance\n", sel: "performance"},
		{in: "", sel: ""},
		{in: "[a] [b]", sel: "[a] [b]"},
		{in: "f(x) y", sel: "f(x) y"},
		{in: "[]", sel: "[]"},
		{in: "a\nb\n", err: true},
	}
	for _, tt := range tests {
		v, err := ParseValue(tt.in)
		if tt.err {
			if err == nil {
				t.Errorf("ParseValue(%q) = %+v, want an error", tt.in, v)
			}
			continue
		}
		if err != nil || v.Selected != tt.sel || strings.Join(v.Choices, " ") != strings.Join(tt.choices, " ") {
			t.Errorf("ParseValue(%q) = %q %q, %v; want %q %q", tt.in, v.Selected, v.Choices, err, tt.sel, tt.choices)
		}
	}
}

// TestParseValuePreemptCaptures reads the real debugfs sched/preempt
// outputs quoted in mails (../../../shared/fixtures/preempt/captures): the
// mode in parentheses is the value a preempt= knob restores.
func TestParseValuePreemptCaptures(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "fixtures", "preempt", "captures")
	want := map[string]string{
		"fedora38-based-6.5.0-rc1-debug-x86_64.txt":                     "full",
		"opensuse-tumbleweed-6.16.3-1-PREEMPT_VOLUNTARY.txt":            "voluntary",
		"powerpc-power10-lpar-dev-kernel-2024-11.after-echo-full.txt":   "full",
		"powerpc-power10-lpar-dev-kernel-2024-11.after-echo-lazy.txt":   "lazy",
		"powerpc-power10-lpar-dev-kernel-2024-11.boot-default-none.txt": "none",
		"sles-6.4-and-5.14-PREEMPT_VOLUNTARY.txt":                       "none",
	}
	for name, sel := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			testenv.Skipf(t, "fixtures not present: %v", err)
		}
		v, err := ParseValue(string(b))
		if err != nil || v.Selected != sel {
			t.Errorf("%s: %q, %v; want %q", name, v.Selected, err, sel)
		}
	}
}

func FuzzParseValue(f *testing.F) {
	for _, s := range []string{"always [madvise] never\n", "none voluntary (full) lazy \n", "full (lazy) ", "1\n", "[a] [b]", "a\nb", "((x))", "[x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseValue(s)
		if err != nil {
			return
		}
		if v.Choices != nil && !v.has(v.Selected) {
			t.Errorf("ParseValue(%q): selected %q not among choices %q", s, v.Selected, v.Choices)
		}
		if strings.ContainsAny(v.Selected, "\n\x00") {
			t.Errorf("ParseValue(%q): selected value %q spans lines", s, v.Selected)
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"smt=off", "/sys/kernel/rcu_expedited=1", "sysctl.kernel.x=1", "sysctl:a/b=2", "/sys/../x=1", "governor=performance", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := Parse(s)
		if err != nil {
			return
		}
		// Only files under /sys and /proc/sys are ever written.
		p := st.Knob.Path
		if filepath.Clean(p) != p || !(under(p, "/sys") || under(p, "/proc/sys")) || strings.Contains(p+"/", "/../") {
			t.Errorf("Parse(%q) reaches %q", s, p)
		}
		again, err := Parse(st.String())
		if err != nil || again.Knob.Path != st.Knob.Path || again.Value != st.Value {
			t.Errorf("Parse(%q) = %q does not parse back: %+v, %v", s, st, again, err)
		}
	})
}
