package profile

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rowLines counts the table rows of perf report text independently of the
// parser: lines that start with a percentage (after the padding perf
// puts before it) and hold more than the percentage.
func rowLines(data []byte) int {
	re := regexp.MustCompile(`^ +\d+\.\d+%\s+\S`)
	n := 0
	for _, l := range strings.Split(string(data), "\n") {
		if re.MatchString(l) {
			n++
		}
	}
	return n
}

// headerSamples reads "# Samples: 662  of event" (exact below 1000).
func headerSamples(data []byte) (int64, bool) {
	m := regexp.MustCompile(`# Samples: (\d+)  of event`).FindSubmatch(data)
	if m == nil {
		return 0, false
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n, true
}

func TestParseReportCaptures(t *testing.T) {
	for _, tc := range []struct {
		file string
		// what the table has
		children, samples, comm, dso, sym bool
		// a symbol it must list, and whether it is the kernel's
		want       string
		wantKernel bool
	}{
		{file: "perf-report-syscall.txt", samples: true, comm: true, dso: true, sym: true, want: "do_syscall_64", wantKernel: true},
		{file: "perf-report-syscall-children.txt", children: true, comm: true, dso: true, sym: true, want: "entry_SYSCALL_64_after_hwframe", wantKernel: true},
		{file: "perf-report-syscall-sort-dso-sym.txt", dso: true, sym: true, want: "do_syscall_64", wantKernel: true},
		{file: "perf-report-syscall-sort-sym.txt", sym: true, want: "golang.org/x/sys/unix.RawSyscallNoError.abi0"},
		{file: "perf-report-syscall-sort-pid-dso.txt", samples: true, comm: true, dso: true, want: ""},
		{file: "perf-report-messaging.txt", samples: true, comm: true, dso: true, sym: true, want: "unix_stream_read_generic", wantKernel: true},
		{file: "perf-report-messaging-children-flat.txt", children: true, comm: true, dso: true, sym: true, want: "unix_stream_sendmsg", wantKernel: true},
		{file: "perf-report-syscall-g-same-data.txt", samples: true, comm: true, dso: true, sym: true, want: "do_syscall_64", wantKernel: true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data := readTestdata(t, tc.file)
			ps, err := ParseReport(tc.file, data)
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != 1 {
				t.Fatalf("%d profiles, want 1", len(ps))
			}
			p := ps[0]
			if p.Event != "cpu-clock" {
				t.Errorf("event %q, want cpu-clock (what perf sampled here)", p.Event)
			}
			if got, want := len(p.Symbols), rowLines(data); got != want {
				t.Errorf("%d rows, want %d", got, want)
			}
			var sum float64
			var kernel int
			found := false
			for _, s := range p.Symbols {
				if s.Overhead < 0 || s.Overhead > 100 || s.Children < 0 || s.Children > 100 {
					t.Errorf("share out of range: %+v", s)
				}
				sum += s.Overhead
				if tc.sym && s.Symbol == "" {
					t.Errorf("row without symbol: %+v", s)
				}
				if !tc.sym && s.Symbol != "" {
					t.Errorf("symbol %q in a table without a Symbol column", s.Symbol)
				}
				if tc.comm != (s.Command != "") || tc.dso != (s.DSO != "") {
					t.Errorf("columns: %+v (want command %v, dso %v)", s, tc.comm, tc.dso)
				}
				if s.DSO == "[kernel.kallsyms]" && !s.Kernel || s.Kernel && s.DSO != "" && s.DSO != "[kernel.kallsyms]" {
					t.Errorf("kernel flag wrong: %+v", s)
				}
				if s.Kernel {
					kernel++
				}
				if tc.want != "" && s.Symbol == tc.want {
					found = true
					if s.Kernel != tc.wantKernel {
						t.Errorf("%s: kernel %v, want %v", s.Symbol, s.Kernel, tc.wantKernel)
					}
				}
			}
			if tc.want != "" && !found {
				t.Errorf("%s not listed", tc.want)
			}
			if kernel == 0 {
				t.Error("no kernel rows")
			}
			// Self shares add up to the whole, give or take each row's
			// rounding to 0.01%; with --children and a percent limit, to
			// at most the whole.
			if slack := 0.005 * float64(len(p.Symbols)); !tc.children && math.Abs(sum-100) > slack {
				t.Errorf("shares add up to %.2f%%", sum)
			}
			if tc.children && sum > 100.5 {
				t.Errorf("self shares add up to %.2f%%", sum)
			}
			if n, ok := headerSamples(data); ok && p.Samples != n {
				t.Errorf("samples %d, want the header's %d", p.Samples, n)
			}
			if tc.samples {
				var total int64
				for _, s := range p.Symbols {
					total += s.Samples
				}
				if n, ok := headerSamples(data); ok && total != n {
					t.Errorf("row samples add up to %d, header says %d", total, n)
				}
			}
			if p.CutOff <= 0 {
				t.Errorf("cut-off %v: a parsed table is taken as possibly cut", p.CutOff)
			}
		})
	}
}

// TestParseReportSeed004 reads the two tables of seed mail 004 as typed in:
// the first with its header, the second without, symbols wrapped onto
// their own lines.
func TestParseReportSeed004(t *testing.T) {
	for _, tc := range []struct {
		file    string
		rows    int
		cut     float64
		first   result.ProfileSymbol
		wrapped result.ProfileSymbol
	}{
		{"seed004-before.txt", 8, 2.52,
			result.ProfileSymbol{Overhead: 32.95, Samples: 46375, Command: "null_syscall", DSO: "[kernel.kallsyms]", Symbol: "DoSyscall", Kernel: true},
			result.ProfileSymbol{Overhead: 15.47, Samples: 21778, Command: "null_syscall", DSO: "libc-2.23.so", Symbol: "__GI___getppid"}},
		{"seed004-after.txt", 8, 2.54,
			result.ProfileSymbol{Overhead: 30.04, Samples: 56337, Command: "null_syscall", DSO: "[kernel.kallsyms]", Symbol: "DoSyscall", Kernel: true},
			result.ProfileSymbol{Overhead: 4.38, Samples: 8217, Command: "null_syscall", DSO: "[kernel.kallsyms]", Symbol: "ret_from_syscall", Kernel: true}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			ps, err := ParseReport(tc.file, readTestdata(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != 1 {
				t.Fatalf("%d profiles, want 1", len(ps))
			}
			p := ps[0]
			if len(p.Symbols) != tc.rows {
				t.Fatalf("%d rows, want %d: %+v", len(p.Symbols), tc.rows, p.Symbols)
			}
			if p.Symbols[0] != tc.first {
				t.Errorf("first row %+v, want %+v", p.Symbols[0], tc.first)
			}
			found := false
			for _, s := range p.Symbols {
				found = found || s == tc.wrapped
				if s.Symbol == "" || strings.ContainsAny(s.Symbol, " []") {
					t.Errorf("bad symbol %q", s.Symbol)
				}
			}
			if !found {
				t.Errorf("wrapped row %+v not found in %+v", tc.wrapped, p.Symbols)
			}
			if p.CutOff != tc.cut {
				t.Errorf("cut-off %v, want %v (the smallest share listed)", p.CutOff, tc.cut)
			}
			// The total is estimated from the rows: samples over share.
			want := float64(p.Symbols[0].Samples) / p.Symbols[0].Overhead * 100
			if !p.SamplesEstimated || math.Abs(float64(p.Samples)-want)/want > 0.002 {
				t.Errorf("samples %d (estimated %v), want about %.0f", p.Samples, p.SamplesEstimated, want)
			}
		})
	}
}

func TestParseReportShapes(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		profiles   int
		rows       []result.ProfileSymbol
	}{
		{
			name: "quoted reply, header kept",
			text: "> # Overhead  Command  Shared Object      Symbol\n" +
				"> #\n" +
				">     15.23%  stress-ng  [kernel.kallsyms]  [k] avc_lookup\n" +
				">      4.52%  stress-ng  [kernel.kallsyms]  [k] __rcu_read_lock\n",
			profiles: 1,
			rows: []result.ProfileSymbol{
				{Overhead: 15.23, Command: "stress-ng", DSO: "[kernel.kallsyms]", Symbol: "avc_lookup", Kernel: true},
				{Overhead: 4.52, Command: "stress-ng", DSO: "[kernel.kallsyms]", Symbol: "__rcu_read_lock", Kernel: true},
			},
		},
		{
			name:     "squashed to single spaces, no header",
			text:     "  24.79% stress-ng [kernel.kallsyms] [k] avc_lookup\n   3.10% stress-ng libc.so.6 [.] kill\n",
			profiles: 1,
			rows: []result.ProfileSymbol{
				{Overhead: 24.79, Command: "stress-ng", DSO: "[kernel.kallsyms]", Symbol: "avc_lookup", Kernel: true},
				{Overhead: 3.10, Command: "stress-ng", DSO: "libc.so.6", Symbol: "kill"},
			},
		},
		{
			name: "two tables in a mail, prose between",
			text: "Before:\n\n     10.00%  a  [kernel.kallsyms]  [k] x\n      5.00%  a  [kernel.kallsyms]  [k] y\n\n" +
				"After:\n\n     12.00%  a  [kernel.kallsyms]  [k] x\n",
			profiles: 2,
			rows:     []result.ProfileSymbol{{Overhead: 10, Command: "a", DSO: "[kernel.kallsyms]", Symbol: "x", Kernel: true}},
		},
		{
			name:     "command with a space, module object",
			text:     "# Overhead  Command      Shared Object  Symbol\n     7.50%  Web Content  [ext4]         [k] ext4_getattr\n",
			profiles: 1,
			rows:     []result.ProfileSymbol{{Overhead: 7.5, Command: "Web Content", DSO: "[ext4]", Symbol: "ext4_getattr", Kernel: true}},
		},
		{
			name:     "symbol with spaces",
			text:     "# Overhead  Shared Object  Symbol\n     1.00%  libfoo.so      [.] foo(int, char const*)\n",
			profiles: 1,
			rows:     []result.ProfileSymbol{{Overhead: 1, DSO: "libfoo.so", Symbol: "foo(int, char const*)"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := ParseReport("mail.txt", []byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != tc.profiles {
				t.Fatalf("%d profiles, want %d", len(ps), tc.profiles)
			}
			for i, want := range tc.rows {
				if i >= len(ps[0].Symbols) || ps[0].Symbols[i] != want {
					t.Errorf("row %d: got %+v, want %+v", i, ps[0].Symbols, want)
				}
			}
		})
	}
}

func TestParseReportErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		line       int
		msg        string
	}{
		{"nothing", "hello\nworld\n", 1, "no perf report rows"},
		{"share above 100", "# Overhead  Symbol\n  100.00%  [k] a\n  140.00%  [k] b\n", 3, "above 100%"},
		{"samples not a count", "# Overhead  Samples  Symbol\n  10.00%  12x  [k] a\n", 2, "want a count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseReport("r.txt", []byte(tc.text))
			var se *result.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a SyntaxError", err)
			}
			if se.File != "r.txt" || se.Line != tc.line || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("got %v, want r.txt:%d: ...%s...", err, tc.line, tc.msg)
			}
		})
	}
}

func TestKernelDSO(t *testing.T) {
	for dso, want := range map[string]bool{
		"[kernel.kallsyms]": true, "[ext4]": true, "/lib/modules/6.1/kernel/fs/ext4/ext4.ko": true,
		"[vdso]": false, "[unknown]": false, "libc.so.6": false, "": false, "/usr/lib/debug/boot/vmlinux": true,
	} {
		if got := KernelDSO(dso); got != want {
			t.Errorf("KernelDSO(%q) = %v, want %v", dso, got, want)
		}
	}
}
