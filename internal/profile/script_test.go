package profile

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

// sampleLines counts the samples of perf script text independently of
// the parser: without call graphs every line is one; with them, every
// line that does not start with a tab.
func sampleLines(data []byte) int64 {
	var n int64
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "\t") {
			n++
		}
	}
	return n
}

func TestParseScriptCaptures(t *testing.T) {
	for _, tc := range []struct {
		file      string
		callGraph bool
		want      string // a kernel symbol it must find as a leaf
	}{
		{"perf-script-syscall.txt", false, "do_syscall_64"},
		{"perf-script-syscall-g.txt", true, "do_syscall_64"},
		{"perf-script-syscall-g-fields.txt", true, "do_syscall_64"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data := readTestdata(t, tc.file)
			p, err := ParseScript(tc.file, data)
			if err != nil {
				t.Fatal(err)
			}
			if p.Event != "cpu-clock" {
				t.Errorf("event %q", p.Event)
			}
			if want := sampleLines(data); p.Samples != want {
				t.Errorf("%d samples, want %d", p.Samples, want)
			}
			if p.CallGraph != tc.callGraph {
				t.Errorf("call graph %v, want %v", p.CallGraph, tc.callGraph)
			}
			var leaves, stacked int64
			var share float64
			found := false
			for _, s := range p.Symbols {
				leaves += s.Samples
				share += s.Overhead
				if s.Symbol == tc.want {
					found = true
					if !s.Kernel {
						t.Errorf("%s not marked kernel", s.Symbol)
					}
				}
				if strings.Contains(s.Symbol, "+0x") {
					t.Errorf("offset left in %q", s.Symbol)
				}
			}
			for _, st := range p.Stacks {
				stacked += st.Samples
			}
			if leaves != p.Samples || math.Abs(share-100) > 1e-9 {
				t.Errorf("leaves hold %d samples, %.6f%%; want %d, 100%%", leaves, share, p.Samples)
			}
			if tc.callGraph && stacked != p.Samples {
				t.Errorf("stacks hold %d samples, want %d", stacked, p.Samples)
			}
			if !found {
				t.Errorf("%s not among the leaves", tc.want)
			}
		})
	}
}

// TestScriptMatchesReport reads perf script and perf report of the same
// perf.data: the leaves' shares must be perf report's, to its rounding.
func TestScriptMatchesReport(t *testing.T) {
	sp, err := ParseScript("script", readTestdata(t, "perf-script-syscall-g.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rp, err := ParseReport("report", readTestdata(t, "perf-report-syscall-g-same-data.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if sp.Samples != rp[0].Samples {
		t.Fatalf("script %d samples, report %d", sp.Samples, rp[0].Samples)
	}
	type key struct{ comm, dso, sym string }
	byKey := map[key]result.ProfileSymbol{}
	for _, s := range sp.Symbols {
		byKey[key{s.Command, s.DSO, s.Symbol}] = s
	}
	checked := 0
	for _, r := range rp[0].Symbols {
		if strings.HasPrefix(r.Symbol, "0x") {
			continue // perf report names an unresolved address, perf script [unknown]
		}
		dso := r.DSO
		s, ok := byKey[key{r.Command, dso, r.Symbol}]
		if !ok {
			// perf script prints the object's path, perf report its
			// short name.
			for k, v := range byKey {
				if k.comm == r.Command && k.sym == r.Symbol && strings.HasSuffix(k.dso, "/"+dso) {
					s, ok = v, true
				}
			}
		}
		if !ok {
			t.Errorf("report row %+v not in the script's leaves", r)
			continue
		}
		if s.Samples != r.Samples || math.Abs(s.Overhead-r.Overhead) > 0.005 {
			t.Errorf("%s: script %d samples %.4f%%, report %d %.2f%%", r.Symbol, s.Samples, s.Overhead, r.Samples, r.Overhead)
		}
		checked++
	}
	if checked < 5 {
		t.Errorf("only %d rows compared", checked)
	}
}

func TestParseScriptShapes(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		samples    int64
		leaf       result.ProfileSymbol
		stacks     int
		warn       string
	}{
		{
			name: "inline frames, cpu and time",
			text: "   stress-ng  4242 [001]  10.000001:     250000 cpu-clock:  ffffffff81000001 avc_lookup+0x10 ([kernel.kallsyms])\n" +
				"   stress-ng  4242 [001]  10.000251:     250000 cpu-clock:  ffffffff81000001 avc_lookup+0x14 ([kernel.kallsyms])\n" +
				"   stress-ng  4242 [001]  10.000501:     250000 cpu-clock:  7f0000001000 kill+0x5 (/usr/lib/libc.so.6)\n",
			samples: 3,
			leaf:    result.ProfileSymbol{Overhead: 200.0 / 3, Samples: 2, Command: "stress-ng", DSO: "[kernel.kallsyms]", Symbol: "avc_lookup", Kernel: true},
		},
		{
			name: "pid/tid, two events, stacks",
			text: "kdelta 10/11 1.0: 100 cpu-clock: \n\tffffffff81000002 do_syscall_64+0x1 ([kernel.kallsyms])\n\t401000 main (/bin/x)\n\n" +
				"kdelta 10/11 1.1: 1 page-faults: \n\t401000 main (/bin/x)\n\n" +
				"kdelta 10/11 1.2: 300 cpu-clock: \n\t401000 main (/bin/x)\n",
			samples: 2,
			leaf:    result.ProfileSymbol{Overhead: 75, Samples: 1, Command: "kdelta", DSO: "/bin/x", Symbol: "main"},
			stacks:  2,
			warn:    "page-faults (1 samples)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParseScript("s.txt", []byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			if p.Samples != tc.samples {
				t.Errorf("%d samples, want %d", p.Samples, tc.samples)
			}
			if got := p.Symbols[0]; math.Abs(got.Overhead-tc.leaf.Overhead) > 1e-9 || got.Samples != tc.leaf.Samples ||
				got.Command != tc.leaf.Command || got.DSO != tc.leaf.DSO || got.Symbol != tc.leaf.Symbol || got.Kernel != tc.leaf.Kernel {
				t.Errorf("top leaf %+v, want %+v", got, tc.leaf)
			}
			if len(p.Stacks) != tc.stacks {
				t.Errorf("%d stacks, want %d", len(p.Stacks), tc.stacks)
			}
			if tc.warn != "" && (len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], tc.warn)) {
				t.Errorf("warnings %q, want one naming %q", p.Warnings, tc.warn)
			}
		})
	}
}

func TestParseScriptErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		line       int
	}{
		{"empty", "\n\n", 1},
		{"not script", "kdelta 1 1.0: 1 cpu-clock: \nthis is prose\n", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseScript("s.txt", []byte(tc.text))
			var se *result.SyntaxError
			if !errors.As(err, &se) || se.Line != tc.line {
				t.Errorf("error %v, want a SyntaxError at line %d", err, tc.line)
			}
		})
	}
}

// TestTrimOffset holds trimOffset to the regular expression it replaced,
// which ran once per frame.
func TestTrimOffset(t *testing.T) {
	re := regexp.MustCompile(`\+0x[0-9a-fA-F]+$`)
	for _, s := range []string{
		"avc_lookup+0x10", "avc_lookup", "x+0x", "x+0xg", "x+0x1f+0x2", "x+0x1g", "+0x1", "x+0X1",
		"x+0xAbC", "runtime.goexit.abi0+0x1", "a+0x1 b", "", "+0x", "x+0x+0x1",
	} {
		if got, want := trimOffset(s), re.ReplaceAllString(s, ""); got != want {
			t.Errorf("trimOffset(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestParseScriptStackOrder checks that stacks of equal weight come in
// one order, also when they differ only in their objects: a profile keeps
// only its heaviest stacks, so the order decides which are kept.
func TestParseScriptStackOrder(t *testing.T) {
	var b strings.Builder
	for _, dso := range []string{"/bin/b", "/bin/a", "/bin/c", "/bin/a"} {
		b.WriteString("x 1 1.0: 1 cpu-clock: \n\t1 f (" + dso + ")\n\t2 main (/bin/x)\n\n")
	}
	want := []string{"2 /bin/a", "1 /bin/b", "1 /bin/c"}
	for range 20 { // the stacks come from a map, in a new order each time
		p, err := ParseScript("s.txt", []byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, st := range p.Stacks {
			got = append(got, fmt.Sprintf("%d %s", st.Samples, st.Frames[0].DSO))
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("stacks %q, want %q", got, want)
		}
	}
}
