package counter

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/golden"
	"github.com/kdelta/kdelta/internal/knob"
	"github.com/kdelta/kdelta/internal/result"
)

// TestParseGraphTrace reads trace files the function_graph tracer of the
// Debian 6.1 guest wrote under --funclatency (testdata/funcgraph/README):
// calls on one line, entries and returns apart with other tasks' between,
// a call nested in another timed one, context-switch markers. Each
// function's count and latency summary is checked against its golden file;
// the count is also checked against the lines that carry a duration, which
// are the calls.
func TestParseGraphTrace(t *testing.T) {
	files, _ := filepath.Glob("testdata/funcgraph/*.txt")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			calls, err := ParseGraphTrace(f, "")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			durations := len(regexp.MustCompile(`(?m)[0-9] us +\|`).FindAllIndex(b, -1))
			var out strings.Builder
			total := 0
			names := make([]string, 0, len(calls))
			for fn := range calls {
				names = append(names, fn)
			}
			sort.Strings(names)
			for _, fn := range names {
				l := result.Summarize("us", calls[fn])
				total += l.Count
				fmt.Fprintf(&out, "%s: %d calls, mean %.3f, min %.3f, p50 %.3f, p99 %.3f, max %.3f us\n", fn, l.Count, l.Mean, l.Min, l.P50, l.P99, l.Max)
			}
			if total != durations {
				t.Errorf("%d calls parsed, %d lines with a duration", total, durations)
			}
			golden.Check(t, "funcgraph/"+name+".golden", []byte(out.String()))
		})
	}
}

// TestGraphLine: the shapes of a line, as kernels from 6.1 print them.
func TestGraphLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		fn   string
		us   float64
		ok   bool
	}{
		{" 1) # 3594.785 us |  synchronize_rcu_expedited();", "synchronize_rcu_expedited", 3594.785, true},
		{" 1) * 10045.88 us |  synchronize_rcu();", "synchronize_rcu", 10045.88, true},
		{" 0)   0.942 us    |  rcu_barrier();", "rcu_barrier", 0.942, true},
		{" 0) # 7515.102 us |    } /* synchronize_rcu_expedited */", "synchronize_rcu_expedited", 7515.102, true},
		{" 0) $ 1234567 us  |  } /* synchronize_rcu */", "synchronize_rcu", 1234567, true},
		{" 3)   1.250 us    |  br_dev_xmit [bridge]();", "br_dev_xmit", 1.25, true},
		{" 3)   1.250 us    |  } /* br_dev_xmit [bridge] */", "br_dev_xmit", 1.25, true},
		{" 2)   0.411 us    |  ksys_sync(); /* = 0x0 */", "ksys_sync", 0.411, true},
		{" 2)   5.002 us    |  } /* ksys_sync ret=0x0 */", "ksys_sync", 5.002, true},
		{" 1)   8.001 us    |  }", "", 8.001, true},
		// With funcgraph-proc and funcgraph-abstime.
		{"  123.456789 |   1)  bash-1234   |  + 12.345 us   |  synchronize_rcu();", "synchronize_rcu", 12.345, true},
		{" 0)               |  synchronize_rcu() {", "", 0, false},
		{" 1)    init-103    =>    init-102   ", "", 0, false},
		{" ------------------------------------------", "", 0, false},
		{" 0)   ==========> |", "", 0, false},
		{"CPU:1 [LOST 123 EVENTS]", "", 0, false},
		{"# CPU  DURATION                  FUNCTION CALLS", "", 0, false},
		{"# |     |   |                     |   |   |   |", "", 0, false},
		{"", "", 0, false},
	} {
		fn, us, ok := graphLine(tc.line)
		if fn != tc.fn || ok != tc.ok || math.Abs(us-tc.us) > 1e-9 {
			t.Errorf("graphLine(%q) = %q, %v, %v; want %q, %v, %v", tc.line, fn, us, ok, tc.fn, tc.us, tc.ok)
		}
	}
}

// TestParseGraphTraceUnnamedReturn: without funcgraph-tail a return does
// not name its function; with one function traced it is that one's, with
// several it is dropped rather than guessed.
func TestParseGraphTraceUnnamedReturn(t *testing.T) {
	text := " 0)               |  f() {\n 0)   8.000 us    |  }\n 0)   2.000 us    |  f();\n"
	one, _ := ParseGraphTrace(strings.NewReader(text), "f")
	if got := one["f"]; len(got) != 2 {
		t.Errorf("one function: %v, want 2 calls", got)
	}
	several, _ := ParseGraphTrace(strings.NewReader(text), "")
	if got := several["f"]; len(got) != 1 || got[0] != 2 {
		t.Errorf("several functions: %v, want only the named call", got)
	}
}

func TestLog2Hist(t *testing.T) {
	got := Log2Hist([]float64{0.2, 0.9, 1, 1.5, 3.99, 4, 7, 15000, 16384})
	b := func(lo, hi float64, n int64) result.Bucket { return result.Bucket{Lo: lo, Hi: hi, Count: n} }
	want := []result.Bucket{b(0, 1, 2), b(1, 2, 2), b(2, 4, 1), b(4, 8, 2), b(8192, 16384, 1), b(16384, 32768, 1)}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Log2Hist = %v, want %v", got, want)
	}
	if Log2Hist(nil) != nil {
		t.Error("Log2Hist(nil) is not empty")
	}
}

func TestParseFuncs(t *testing.T) {
	if got, err := ParseFuncs("synchronize_rcu, rcu_barrier,synchronize_rcu,foo.isra.0"); err != nil || strings.Join(got, " ") != "synchronize_rcu rcu_barrier foo.isra.0" {
		t.Errorf("ParseFuncs = %v, %v", got, err)
	}
	for _, bad := range []string{"", "a,,b", "sync*", "a b", "9x", "f()"} {
		if _, err := ParseFuncs(bad); err == nil {
			t.Errorf("ParseFuncs(%q) took it", bad)
		}
	}
}

func TestBufferKiB(t *testing.T) {
	for _, tc := range []struct{ avail, cpus, kernel, want int }{
		{8 << 20, 2, 1408, 64 << 10},    // 8 GiB, 2 CPUs: the cap per CPU
		{800 << 10, 2, 1408, 50 << 10},  // a 1 GiB guest: an eighth of it
		{512 << 20, 128, 1408, 8 << 10}, // a big machine: 1 GiB in all
		{4 << 10, 4, 1408, 1408},        // little memory: never below the kernel's
		{0, 2, 1408, 64 << 10},          // meminfo unreadable
	} {
		if got := bufferKiB(tc.avail, tc.cpus, tc.kernel); got != tc.want {
			t.Errorf("bufferKiB(%d, %d, %d) = %d, want %d", tc.avail, tc.cpus, tc.kernel, got, tc.want)
		}
	}
	for _, tc := range []struct {
		s             string
		cur, expanded int
		ok            bool
	}{{"7 (expanded: 1408)\n", 7, 1408, true}, {"1408\n", 1408, 1408, true}, {"X\n", 0, 0, false}} {
		cur, exp, ok := parseBufferSize(tc.s)
		if cur != tc.cur || exp != tc.expanded || ok != tc.ok {
			t.Errorf("parseBufferSize(%q) = %d, %d, %v", tc.s, cur, exp, ok)
		}
	}
}

// fakeTracefs copies testdata/tracefs, a tree of plain files shaped like
// a fresh tracefs of Linux 6.1 with the function_graph tracer, with the
// tracers given, and makes a /proc with kallsyms and meminfo. Plain files
// take what is written, so the tests check what kdelta writes and what it
// puts back, not what a kernel does with it (the guest tests do that).
func fakeTracefs(t *testing.T, tracers string) (dir, proc string) {
	t.Helper()
	root := t.TempDir()
	dir, proc = filepath.Join(root, "tracing"), filepath.Join(root, "proc")
	if err := os.CopyFS(dir, os.DirFS("testdata/tracefs")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "available_tracers"), []byte(tracers+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(proc, 0o755)
	os.WriteFile(filepath.Join(proc, "kallsyms"), []byte("ffffffff81406390 T synchronize_rcu\nffffffff81400000 t rcu_inlined_helper\nffffffff81401000 T rcu_barrier\n"), 0o644)
	os.WriteFile(filepath.Join(proc, "meminfo"), []byte("MemTotal: 1000000 kB\nMemAvailable:     800000 kB\n"), 0o644)
	return dir, proc
}

// snapshot reads every file of a tree.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

// TestOpenFuncLatencySetsAndRestores: the tracer is set up with tracing
// off, only the functions asked for named, the buffer sized and the
// options kdelta parses set; Close gives every file its value back (the
// empty lists as an empty write, the unexpanded buffer its expanded size)
// and removes the journal.
func TestOpenFuncLatencySetsAndRestores(t *testing.T) {
	dir, proc := fakeTracefs(t, "blk function_graph function nop")
	jdir := t.TempDir()
	before := snapshot(t, dir)
	f, err := OpenFuncLatency(FuncOptions{Funcs: []string{"synchronize_rcu", "rcu_barrier"}, Scope: ScopeTasks, Tracefs: dir, Proc: proc, JournalDir: jdir})
	if err != nil {
		t.Fatal(err)
	}
	now := snapshot(t, dir)
	for file, want := range map[string]string{
		"current_tracer":         "function_graph\n",
		"tracing_on":             "0\n",
		"set_ftrace_filter":      "synchronize_rcu rcu_barrier\n",
		"buffer_size_kb":         "50000\n", // an eighth of 800,000 kB over 2 CPUs
		"options/funcgraph-tail": "1\n",
		"options/function-fork":  "1\n",
		"trace":                  "",
	} {
		if now[file] != want {
			t.Errorf("after Open, %s = %q, want %q", file, now[file], want)
		}
	}
	if js, _ := filepath.Glob(filepath.Join(jdir, "*.json")); len(js) != 1 {
		t.Errorf("journals while open: %v", js)
	}
	if ms := f.Metrics(); len(ms) != 14 || ms[0].Name != "synchronize_rcu.calls" || ms[3].Name != "synchronize_rcu.p50" || ms[3].Unit != "us" || ms[3].Better != result.Lower {
		t.Errorf("metrics: %+v", ms)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, dir)
	for file, want := range before {
		got := after[file]
		switch file {
		case "set_ftrace_filter", "set_ftrace_pid", "trace":
			want = "" // emptied: the kernel prints its own comment then
		case "buffer_size_kb":
			want = "1408\n"
		}
		if strings.TrimSpace(got) != strings.TrimSpace(want) {
			t.Errorf("after Close, %s = %q, want %q", file, got, want)
		}
	}
	if js, _ := filepath.Glob(filepath.Join(jdir, "*.json")); len(js) != 0 {
		t.Errorf("journals after Close: %v", js)
	}
}

// TestFuncLatencyWindow: a run's window on the fake tree: Start empties
// the buffer and names the child's threads (tasks scope); Finish parses
// what the buffer holds into the run's functions and metrics, counts the
// events lost meanwhile, and empties the buffer and the pid list again.
func TestFuncLatencyWindow(t *testing.T) {
	dir, proc := fakeTracefs(t, "function_graph function nop")
	f, err := OpenFuncLatency(FuncOptions{Funcs: []string{"synchronize_rcu", "rcu_barrier"}, Scope: ScopeTasks, Tracefs: dir, Proc: proc, JournalDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	w := f.Window()
	if err := w.Start(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "set_ftrace_pid")); strings.TrimSpace(got) != fmt.Sprint(cmd.Process.Pid) {
		t.Errorf("set_ftrace_pid %q, want the child's one thread %d", got, cmd.Process.Pid)
	}
	// What the kernel would have written meanwhile.
	os.WriteFile(filepath.Join(dir, "trace"), []byte("# tracer: function_graph\n 0) * 15000.50 us |  synchronize_rcu();\n 1)               |  synchronize_rcu() {\n 0) * 17000.50 us |  } /* synchronize_rcu */\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "per_cpu/cpu1/stats"), []byte("overrun: 3\ncommit overrun: 0\ndropped events: 2\n"), 0o644)
	r := &result.Run{Values: map[string]float64{"ms/cycle": 1}}
	w.Finish(r)
	if len(r.Functions) != 2 || r.Functions[0].Name != "synchronize_rcu" || r.Functions[0].Calls.Count != 2 || r.Functions[0].Lost != 5 || r.Functions[0].Scope != ScopeTasks {
		t.Fatalf("functions: %+v", r.Functions)
	}
	if r.Values["synchronize_rcu.calls"] != 2 || r.Values["synchronize_rcu.p50"] != 15000.5 || r.Values["synchronize_rcu.max"] != 17000.5 {
		t.Errorf("values: %v", r.Values)
	}
	if _, ok := r.Values["rcu_barrier.p50"]; ok || r.Values["rcu_barrier.calls"] != 0 {
		t.Errorf("a function never called: %v (want 0 calls and no latency)", r.Values)
	}
	if !strings.Contains(r.Info["funclatency"], "lost 5 events") {
		t.Errorf("info does not say events were lost: %q", r.Info["funclatency"])
	}
	if read(t, filepath.Join(dir, "trace")) != "" || read(t, filepath.Join(dir, "set_ftrace_pid")) != "" {
		t.Error("the buffer or the pid list is not empty after Finish")
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOpenFuncLatencyRefuses: what the kernel cannot time is refused with
// one line that names what is missing, and nothing is written.
func TestOpenFuncLatencyRefuses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tracers string
		funcs   []string
		change  map[string]string // files changed before Open
		drop    string            // a file removed before Open
		want    string
	}{
		{name: "no function_graph", tracers: "blk function nop", funcs: []string{"synchronize_rcu"},
			want: "this kernel has no function_graph tracer (CONFIG_FUNCTION_GRAPH_TRACER; %s/available_tracers lists: blk function nop)"},
		{name: "unknown function", tracers: "function_graph nop", funcs: []string{"no_such_function"},
			want: "no_such_function: no such function in this kernel (neither in %s/available_filter_functions nor in"},
		{name: "unknown function, traceable list unreadable", tracers: "function_graph nop", funcs: []string{"no_such_function"}, drop: "available_filter_functions",
			want: "no_such_function: no such function in this kernel (not in "},
		{name: "not traceable", tracers: "function_graph nop", funcs: []string{"rcu_inlined_helper"},
			want: "rcu_inlined_helper: the kernel has it ("},
		{name: "tracer in use", tracers: "function_graph nop", funcs: []string{"synchronize_rcu"}, change: map[string]string{"current_tracer": "function\n"},
			want: "the tracer is in use: %s/current_tracer is function"},
		{name: "filter left set", tracers: "function_graph nop", funcs: []string{"synchronize_rcu"}, change: map[string]string{"set_ftrace_filter": "schedule\n"},
			want: "the tracer is in use: %s/set_ftrace_filter holds schedule"},
		{name: "scope", tracers: "function_graph nop", funcs: []string{"synchronize_rcu"},
			want: `unknown scope "cpus"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, proc := fakeTracefs(t, tc.tracers)
			for file, v := range tc.change {
				os.WriteFile(filepath.Join(dir, file), []byte(v), 0o644)
			}
			if tc.drop != "" {
				os.Remove(filepath.Join(dir, tc.drop))
			}
			before := snapshot(t, dir)
			scope := ""
			if tc.name == "scope" {
				scope = "cpus"
			}
			jdir := t.TempDir()
			_, err := OpenFuncLatency(FuncOptions{Funcs: tc.funcs, Scope: scope, Tracefs: dir, Proc: proc, JournalDir: jdir})
			want := tc.want
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, dir)
			}
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line with %q", err, want)
			}
			if after := snapshot(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("a refusal changed the tree:\nbefore %v\nafter  %v", before, after)
			}
			if js, _ := filepath.Glob(filepath.Join(jdir, "*.json")); len(js) != 0 {
				t.Errorf("a refusal left journals: %v", js)
			}
		})
	}
}

// TestOpenFuncLatencyUndoesAFailedSetup: a file the kernel refuses midway
// (here a directory where buffer_size_kb should be) puts back what was
// already written and leaves no journal.
func TestOpenFuncLatencyUndoesAFailedSetup(t *testing.T) {
	dir, proc := fakeTracefs(t, "function_graph nop")
	os.Chmod(filepath.Join(dir, "set_ftrace_filter"), 0o444)
	if os.Geteuid() == 0 {
		// Root writes a read-only file: make it a directory instead.
		os.Remove(filepath.Join(dir, "set_ftrace_filter"))
		os.MkdirAll(filepath.Join(dir, "set_ftrace_filter"), 0o755)
	}
	before := snapshot(t, dir)
	jdir := t.TempDir()
	_, err := OpenFuncLatency(FuncOptions{Funcs: []string{"synchronize_rcu"}, Tracefs: dir, Proc: proc, JournalDir: jdir})
	if err == nil {
		t.Fatal("a setup that could not write set_ftrace_filter succeeded")
	}
	after := snapshot(t, dir)
	if after["tracing_on"] != before["tracing_on"] || after["current_tracer"] != before["current_tracer"] {
		t.Errorf("not undone: tracing_on %q, current_tracer %q", after["tracing_on"], after["current_tracer"])
	}
	if js, _ := filepath.Glob(filepath.Join(jdir, "*.json")); len(js) != 0 {
		t.Errorf("journals after a failed setup: %v", js)
	}
}

// TestFuncLatencySIGKILL: a process that set the tracer up and was killed
// leaves its journal; the next kdelta's recovery (knob.Recover, which every
// kdelta start and kdelta restore run) puts every file back.
func TestFuncLatencySIGKILL(t *testing.T) {
	dir, proc := fakeTracefs(t, "function_graph nop")
	jdir := t.TempDir()
	before := snapshot(t, dir)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=funclatency", "FUNCLAT_TRACEFS="+dir, "FUNCLAT_PROC="+proc, "FUNCLAT_JOURNAL="+jdir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil || string(buf) != "ready" {
		t.Fatalf("helper: %q %v", buf, err)
	}
	if got := read(t, filepath.Join(dir, "current_tracer")); got != "function_graph\n" {
		t.Fatalf("the helper did not set the tracer up: %q", got)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// The journal names files of the fake tracefs, which recovery trusts
	// as kdelta does the tracefs it was given (KDELTA_TRACEFS).
	t.Setenv("KDELTA_TRACEFS", dir)
	deadline := time.Now().Add(5 * time.Second)
	var done []knob.Recovery
	for time.Now().Before(deadline) {
		if done, _, err = knob.Recover(jdir); err != nil {
			t.Fatal(err)
		}
		if len(done) > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(done) != 1 || done[0].Err != nil {
		t.Fatalf("recovery: %+v", done)
	}
	after := snapshot(t, dir)
	for _, file := range []string{"current_tracer", "tracing_on", "options/funcgraph-tail"} {
		if after[file] != before[file] {
			t.Errorf("after recovery %s = %q, want %q", file, after[file], before[file])
		}
	}
	if strings.TrimSpace(after["set_ftrace_filter"]) != "" || strings.TrimSpace(after["buffer_size_kb"]) != "1408" {
		t.Errorf("after recovery: filter %q, buffer %q", after["set_ftrace_filter"], after["buffer_size_kb"])
	}
}

// funcLatencyHelper sets the tracer up on the fake tree and waits to be
// killed.
func funcLatencyHelper() int {
	_, err := OpenFuncLatency(FuncOptions{Funcs: []string{"synchronize_rcu"}, Tracefs: os.Getenv("FUNCLAT_TRACEFS"),
		Proc: os.Getenv("FUNCLAT_PROC"), JournalDir: os.Getenv("FUNCLAT_JOURNAL")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.Stdout.Write([]byte("ready"))
	time.Sleep(time.Minute)
	return 0
}
