package counter

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/knob"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/sys"
)

// Kernel-function latency (kdelta run --funclatency) is timed by the
// kernel's function_graph tracer, through tracefs: set_ftrace_filter
// names the functions, so only they are patched and a function a run never
// calls costs it nothing; every call records an entry and a return event
// in the per-CPU ring buffer, the return with the call's duration, taken
// by the kernel from entry to return, time asleep included (sleep-time).
// No compiler and no BPF program are needed, and each call is counted and
// timed exactly, by the clock the tracer uses (sched_clock, per CPU).
//
// Nothing is read during a run: the child itself opens the window
// (tracing_on) when its timed part starts and closes it when it ends
// (runner.Window), and the buffer, sized beforehand, is read and cleared
// after the run; events the buffer could not keep are counted (the
// per-CPU stats' overruns and drops) and said with the figures.
//
// The tracer is the top-level instance's, the only one with
// function_graph before Linux 6.9, so kdelta refuses it when anything else
// uses it; everything kdelta writes in tracefs is journalled (knob.Hold)
// and put back at Close, and after a crash or SIGKILL by the next kdelta
// (or kdelta restore).

// Scopes of FuncLatency: which tasks' calls are timed.
const (
	// ScopeSystem times the calls of every task, as the seed mail's
	// measurement did: synchronize_rcu() called by a kworker on the
	// workload's behalf counts.
	ScopeSystem = "system"
	// ScopeTasks times only the calls of the measured child's tasks and
	// of those they create (set_ftrace_pid with function-fork).
	ScopeTasks = "tasks"
)

// Scopes lists the scopes, the default first.
var Scopes = []string{ScopeSystem, ScopeTasks}

// FuncTracer names what times the functions, as recorded in each run.
const FuncTracer = "function_graph"

// FuncOptions say which kernel functions FuncLatency times and where
// tracefs and /proc are.
type FuncOptions struct {
	// Funcs are the functions, as the kernel names them (ParseFuncs).
	Funcs []string
	// Scope is ScopeSystem (the default, for "") or ScopeTasks.
	Scope string
	// Tracefs is the tracefs directory; "" finds it, mounting tracefs as
	// perf does when kdelta is root.
	Tracefs string
	// Proc is where kallsyms and meminfo are read; "" is /proc.
	Proc string
	// BufferKiB is the trace buffer per CPU; 0 sizes it from the memory
	// available (bufferKiB).
	BufferKiB int
	// JournalDir and Command are the restore journal's (knob.Options).
	JournalDir string
	Command    []string
}

// funcName is what a kernel function's name may hold: C identifiers with
// the compiler's suffixes (.isra.0, .cold). Patterns are refused: each
// function is timed by its own name.
var funcName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)

// ParseFuncs reads a comma-separated list of kernel function names,
// dropping repeats.
func ParseFuncs(list string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
			return nil, fmt.Errorf("empty function name in %q", list)
		case !funcName.MatchString(f):
			return nil, fmt.Errorf("%q is not a kernel function name (letters, digits, _ and .; no patterns)", f)
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// A FuncLatency is the function_graph tracer set up to time some kernel
// functions, and the window that times them over each run's timed part.
type FuncLatency struct {
	o      FuncOptions
	dir    string
	held   *knob.Session
	sw     *os.File // tracing_on, the window's switch
	perCPU int      // trace buffer, KiB per CPU
	tail   bool     // returns name their function (funcgraph-tail)
	base   int64    // events lost before the window, read by Start
}

// OpenFuncLatency checks, before anything runs, that the kernel can time
// o.Funcs — each is a function it knows and can trace, it has the
// function_graph tracer, and nothing else uses the tracer — and then sets
// the tracer up, every file it changes journalled first, with tracing
// off. The error says in one line what is missing; nothing is left
// changed when there is one.
func OpenFuncLatency(o FuncOptions) (*FuncLatency, error) {
	if len(o.Funcs) == 0 {
		return nil, errors.New("no kernel function given")
	}
	if o.Scope == "" {
		o.Scope = ScopeSystem
	}
	if !slices.Contains(Scopes, o.Scope) {
		return nil, fmt.Errorf("unknown scope %q (%s)", o.Scope, strings.Join(Scopes, " or "))
	}
	if o.Proc == "" {
		o.Proc = "/proc"
	}
	dir, err := tracefsDir(o.Tracefs)
	if err != nil {
		return nil, err
	}
	f := &FuncLatency{o: o, dir: dir}
	if err := f.checkNames(); err != nil {
		return nil, err
	}
	tracers, err := f.read("available_tracers")
	if err != nil {
		return nil, err
	}
	if !slices.Contains(strings.Fields(tracers), FuncTracer) {
		return nil, fmt.Errorf("this kernel has no function_graph tracer (CONFIG_FUNCTION_GRAPH_TRACER; %s lists: %s), which kdelta times kernel functions with",
			f.path("available_tracers"), strings.Join(strings.Fields(tracers), " "))
	}
	if err := f.checkFree(); err != nil {
		return nil, err
	}
	plan, err := f.plan()
	if err != nil {
		return nil, err
	}
	// Journalled in reverse: the tracer goes back to nop first, tracing_on
	// last.
	var entries []knob.Entry
	for i := len(plan) - 1; i >= 0; i-- {
		p := plan[i]
		entries = append(entries, knob.Entry{Key: "tracefs." + strings.ReplaceAll(p.file, "/", "."), Path: f.path(p.file), Value: p.restore})
	}
	if f.held, err = knob.Hold(entries, knob.Options{JournalDir: o.JournalDir, Command: o.Command}); err != nil {
		return nil, err
	}
	for _, p := range plan {
		if err := f.write(p.file, p.set); err != nil {
			return nil, f.undo(fmt.Errorf("%s: cannot be set to %q: %w", f.path(p.file), p.set, err))
		}
	}
	if err := f.checkFilter(); err != nil {
		return nil, f.undo(err)
	}
	if f.sw, err = os.OpenFile(f.path("tracing_on"), os.O_WRONLY, 0); err != nil {
		return nil, f.undo(err)
	}
	return f, nil
}

// undo puts back what OpenFuncLatency changed and returns err.
func (f *FuncLatency) undo(err error) error {
	if rerr := f.held.Restore(); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// Close puts tracefs back as it was. It may be called more than once.
func (f *FuncLatency) Close() error {
	if f == nil {
		return nil
	}
	if f.sw != nil {
		f.sw.Close()
		f.sw = nil
	}
	return f.held.Restore()
}

// Window is the window that times the functions over each run's timed
// part, for runner.Options.Window.
func (f *FuncLatency) Window() *runner.Window {
	return &runner.Window{Switch: f.sw, On: []byte("1"), Off: []byte("0"), Start: f.start, Finish: f.finish}
}

// Describe says how the functions are timed, for the record.
func (f *FuncLatency) Describe() string {
	return fmt.Sprintf("%s tracer through %s, %s scope, trace buffer %d KiB per CPU", FuncTracer, f.dir, f.o.Scope, f.perCPU)
}

// Metrics are the figures every run reports per function: its calls, and
// their latency in microseconds.
func (f *FuncLatency) Metrics() []result.Metric {
	who := "by any task"
	if f.o.Scope == ScopeTasks {
		who = "by the workload's tasks"
	}
	var ms []result.Metric
	for _, fn := range f.o.Funcs {
		ms = append(ms, result.Metric{Name: fn + ".calls", Unit: "calls", Better: result.Lower,
			Doc: fmt.Sprintf("calls of %s() %s that returned during the timed part", fn, who)})
		for _, s := range funcStats {
			ms = append(ms, result.Metric{Name: fn + "." + s.name, Unit: "us", Better: result.Lower,
				Doc: fmt.Sprintf("%s latency of a call of %s(), timed in the kernel", s.doc, fn)})
		}
	}
	return ms
}

// funcStats are the latency figures of FuncLatency's metrics.
var funcStats = []struct {
	name, doc string
	get       func(*result.Latency) float64
}{
	{"mean", "mean", func(l *result.Latency) float64 { return l.Mean }},
	{"min", "least", func(l *result.Latency) float64 { return l.Min }},
	{"p50", "median", func(l *result.Latency) float64 { return l.P50 }},
	{"p90", "90th percentile", func(l *result.Latency) float64 { return l.P90 }},
	{"p99", "99th percentile", func(l *result.Latency) float64 { return l.P99 }},
	{"max", "greatest", func(l *result.Latency) float64 { return l.Max }},
}

func (f *FuncLatency) path(name string) string { return filepath.Join(f.dir, name) }

func (f *FuncLatency) read(name string) (string, error) {
	b, err := os.ReadFile(f.path(name))
	if err != nil {
		return "", fmt.Errorf("%s: %w", f.path(name), unwrapPath(err))
	}
	return string(b), nil
}

// write writes v in one write, truncating first: an empty v empties a
// filter list or the trace buffer.
func (f *FuncLatency) write(name, v string) error {
	w, err := os.OpenFile(f.path(name), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return unwrapPath(err)
	}
	if v != "" {
		_, err = w.Write([]byte(v + "\n"))
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return unwrapPath(err)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// tracefsDir finds tracefs: dir when given, else where it is mounted,
// after mounting it as perf does (root only).
func tracefsDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	_, _ = sys.MountTracefs()
	for _, d := range []string{sys.TracefsDir, sys.DebugfsDir + "/tracing"} {
		_, err := os.Stat(filepath.Join(d, "available_tracers"))
		switch {
		case err == nil:
			return d, nil
		case errors.Is(err, fs.ErrPermission):
			return "", fmt.Errorf("%s: %w (tracing needs root)", d, unwrapPath(err))
		}
	}
	if os.Geteuid() != 0 {
		return "", fmt.Errorf("tracefs is not mounted (%s), and mounting it needs root", sys.TracefsDir)
	}
	return "", fmt.Errorf("no tracefs: neither %s nor %s/tracing holds it (a kernel without CONFIG_FTRACE?)", sys.TracefsDir, sys.DebugfsDir)
}

// checkNames checks that the kernel knows every function: in the list of
// functions it can trace when that can be read, else in kallsyms.
func (f *FuncLatency) checkNames() error {
	traceable, terr := symbolNames(f.path("available_filter_functions"), 0)
	kallsyms := filepath.Join(f.o.Proc, "kallsyms")
	var known map[string]bool
	for _, fn := range f.o.Funcs {
		if terr == nil && traceable[fn] {
			continue
		}
		if known == nil {
			var err error
			if known, err = symbolNames(kallsyms, 2); err != nil {
				if terr != nil {
					return fmt.Errorf("cannot tell which functions this kernel has: %v; %v", terr, err)
				}
				known = map[string]bool{}
			}
		}
		switch {
		case terr != nil && known[fn]:
			// Traceability cannot be read here; set_ftrace_filter
			// will tell.
		case known[fn]:
			return fmt.Errorf("%s: the kernel has it (%s) but cannot trace it (not in %s: notrace, or inlined)", fn, kallsyms, f.path("available_filter_functions"))
		case terr == nil:
			return fmt.Errorf("%s: no such function in this kernel (neither in %s nor in %s)", fn, f.path("available_filter_functions"), kallsyms)
		default:
			return fmt.Errorf("%s: no such function in this kernel (not in %s)", fn, kallsyms)
		}
	}
	return nil
}

// symbolNames reads the names in field col of each line of path (0 for
// available_filter_functions, "name [module]"; 2 for kallsyms, "addr
// type name [module]").
func symbolNames(path string, col int) (map[string]bool, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	defer file.Close()
	names := map[string]bool{}
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > col {
			names[fields[col]] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	return names, nil
}

// checkFree refuses a tracer that something else is using: another tracer
// current, or functions or tasks already chosen, which kdelta would
// overwrite and could not put back.
func (f *FuncLatency) checkFree() error {
	cur, err := f.read("current_tracer")
	if err != nil {
		return err
	}
	if cur = strings.TrimSpace(cur); cur != "nop" {
		return fmt.Errorf("the tracer is in use: %s is %s (another tracing session runs; kdelta times functions only with the tracer free)", f.path("current_tracer"), cur)
	}
	for _, name := range []string{"set_ftrace_filter", "set_graph_function", "set_ftrace_pid"} {
		v, err := f.read(name)
		if errors.Is(err, fs.ErrNotExist) && name == "set_graph_function" {
			continue
		}
		if err != nil {
			return err
		}
		if l := listed(v); len(l) > 0 {
			return fmt.Errorf("the tracer is in use: %s holds %s (left by another tracing session; empty it first)", f.path(name), strings.Join(l, " "))
		}
	}
	return nil
}

// listed returns the entries of a tracefs list file, without its comments
// ("#### all functions enabled ####") and "no pid".
func listed(content string) []string {
	var out []string
	for _, l := range strings.Split(content, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") || l == "no pid" {
			continue
		}
		out = append(out, l)
	}
	return out
}

// A tracefsWrite is one file OpenFuncLatency sets, with the value to give
// it back.
type tracefsWrite struct{ file, set, restore string }

// graphOptions are the tracer's options kdelta needs: returns that name
// their function, durations, time asleep counted, calls in interrupts
// counted (system scope), and nothing else on a line that would need
// parsing.
var graphOptions = []struct{ name, want string }{
	{"funcgraph-tail", "1"},
	{"funcgraph-duration", "1"},
	{"sleep-time", "1"},
	{"funcgraph-irqs", "1"},
	{"funcgraph-abstime", "0"},
	{"funcgraph-proc", "0"},
	{"funcgraph-retval", "0"},
}

// plan says what OpenFuncLatency writes, in order, and the value each file
// had. Tracing is switched off first and the tracer made current last,
// after the functions it may patch are named, so that it never runs over
// the whole kernel; its options are set once it is current.
func (f *FuncLatency) plan() ([]tracefsWrite, error) {
	on, err := f.read("tracing_on")
	if err != nil {
		return nil, err
	}
	plan := []tracefsWrite{
		{"tracing_on", "0", strings.TrimSpace(on)},
		{"trace", "", ""},
	}
	for _, name := range []string{"tracing_thresh", "max_graph_depth"} {
		v, err := f.read(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		// A threshold drops the calls shorter than it; a depth limit
		// drops a function called from another timed one.
		if v = strings.TrimSpace(v); v != "0" {
			plan = append(plan, tracefsWrite{name, "0", v})
		}
	}
	plan = append(plan, tracefsWrite{"set_ftrace_filter", strings.Join(f.o.Funcs, " "), ""})
	if f.o.Scope == ScopeTasks {
		plan = append(plan, tracefsWrite{"set_ftrace_pid", "", ""})
	}
	size, err := f.read("buffer_size_kb")
	if err != nil {
		return nil, err
	}
	cur, expanded, ok := parseBufferSize(size)
	if !ok {
		return nil, fmt.Errorf("%s: unexpected content %q", f.path("buffer_size_kb"), strings.TrimSpace(size))
	}
	f.perCPU = f.o.BufferKiB
	if f.perCPU == 0 {
		f.perCPU = bufferKiB(f.memAvailableKiB(), f.cpus(), expanded)
	}
	if f.perCPU != cur {
		plan = append(plan, tracefsWrite{"buffer_size_kb", strconv.Itoa(f.perCPU), strconv.Itoa(expanded)})
	}
	plan = append(plan, tracefsWrite{"current_tracer", FuncTracer, "nop"})
	opts := graphOptions
	if f.o.Scope == ScopeTasks {
		// The workload's tasks include those it creates during the run.
		opts = append(opts[:len(opts):len(opts)], struct{ name, want string }{"function-fork", "1"})
	}
	for _, o := range opts {
		name := "options/" + o.name
		v, err := f.read(name)
		if errors.Is(err, fs.ErrNotExist) {
			// An option this kernel does not have (funcgraph-retval
			// before 6.5): its default is what kdelta parses.
			continue
		}
		if err != nil {
			return nil, err
		}
		if o.name == "funcgraph-tail" {
			f.tail = true
		}
		if v = strings.TrimSpace(v); v != o.want {
			plan = append(plan, tracefsWrite{name, o.want, v})
		}
	}
	return plan, nil
}

// checkFilter reads set_ftrace_filter back: the kernel takes a name it
// cannot trace without a word on some versions.
func (f *FuncLatency) checkFilter() error {
	v, err := f.read("set_ftrace_filter")
	if err != nil {
		return err
	}
	got := map[string]bool{}
	for _, l := range listed(v) {
		// One function a line, "name" or "name [module]".
		for _, w := range strings.Fields(l) {
			got[w] = true
		}
	}
	for _, fn := range f.o.Funcs {
		if !got[fn] {
			return fmt.Errorf("%s: the kernel cannot trace it (%s did not take it)", fn, f.path("set_ftrace_filter"))
		}
	}
	return nil
}

// parseBufferSize reads buffer_size_kb: "1408", or "7 (expanded: 1408)"
// before the buffer is first used (it is then expanded to 1408, which is
// the size to give back).
func parseBufferSize(s string) (cur, expanded int, ok bool) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return 0, 0, false
	}
	cur, err := strconv.Atoi(fields[0])
	if err != nil {
		return 0, 0, false
	}
	expanded = cur
	if len(fields) == 3 && fields[1] == "(expanded:" {
		if expanded, err = strconv.Atoi(strings.TrimSuffix(fields[2], ")")); err != nil {
			return 0, 0, false
		}
	}
	return cur, expanded, true
}

// bufferKiB sizes the trace buffer of each of cpus CPUs: an eighth of the
// memory available, and 1 GiB in all, at most 64 MiB a CPU, and never
// less than the kernel's own size. A call takes two events, about 70
// bytes: 64 MiB hold about a million calls.
func bufferKiB(availKiB, cpus, kernel int) int {
	if cpus < 1 {
		cpus = 1
	}
	per := min(64<<10, (1<<20)/cpus)
	if availKiB > 0 {
		per = min(per, availKiB/8/cpus)
	}
	return max(per, kernel)
}

// memAvailableKiB reads MemAvailable from meminfo; 0 when it cannot.
func (f *FuncLatency) memAvailableKiB() int {
	b, err := os.ReadFile(filepath.Join(f.o.Proc, "meminfo"))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "MemAvailable:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

// cpus counts the per-CPU buffers.
func (f *FuncLatency) cpus() int {
	ds, _ := filepath.Glob(f.path("per_cpu/cpu[0-9]*"))
	return len(ds)
}

// lost sums what the per-CPU buffers could not keep: events overwritten
// (overrun, commit overrun) and events dropped.
func (f *FuncLatency) lost() int64 {
	files, _ := filepath.Glob(f.path("per_cpu/cpu[0-9]*/stats"))
	var n int64
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(l, ":")
			if !ok {
				continue
			}
			switch strings.TrimSpace(k) {
			case "overrun", "commit overrun", "dropped events":
				x, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				n += x
			}
		}
	}
	return n
}

// start readies the tracer for a run whose child pid is set up and
// waiting: the buffer emptied and, for the tasks scope, the child's
// threads named (stopped meanwhile, so that none is created unseen; those
// created later are added by the kernel).
func (f *FuncLatency) start(pid int) error {
	if err := f.write("trace", ""); err != nil {
		return fmt.Errorf("--funclatency: empty %s: %w", f.path("trace"), err)
	}
	f.base = f.lost()
	if f.o.Scope != ScopeTasks {
		return nil
	}
	resume, _ := freeze(pid)
	defer resume()
	tids, err := tasks(pid)
	if err != nil {
		return fmt.Errorf("--funclatency: threads of pid %d: %w", pid, err)
	}
	ids := make([]string, len(tids))
	for i, t := range tids {
		ids[i] = strconv.Itoa(t)
	}
	if err := f.write("set_ftrace_pid", strings.Join(ids, " ")); err != nil {
		return fmt.Errorf("--funclatency: %s: %w", f.path("set_ftrace_pid"), err)
	}
	return nil
}

// finish reads what the window recorded into r, once the window is
// closed, and empties the buffer for the next run.
func (f *FuncLatency) finish(r *result.Run) {
	lost := max(0, f.lost()-f.base)
	calls, err := f.readTrace()
	if cerr := f.write("trace", ""); err == nil && cerr != nil {
		err = fmt.Errorf("empty %s: %w", f.path("trace"), cerr)
	}
	if f.o.Scope == ScopeTasks {
		if perr := f.write("set_ftrace_pid", ""); err == nil && perr != nil {
			err = fmt.Errorf("empty %s: %w", f.path("set_ftrace_pid"), perr)
		}
	}
	if r.Info == nil {
		r.Info = map[string]string{}
	}
	note := f.Describe()
	if lost > 0 {
		note += fmt.Sprintf("; the buffer lost %d events: the figures cover only the calls it kept", lost)
	}
	if err != nil {
		r.Info["funclatency"] = note + "; not read: " + err.Error()
		return
	}
	r.Info["funclatency"] = note
	if r.Values == nil {
		r.Values = map[string]float64{}
	}
	for _, fn := range f.o.Funcs {
		rf := FuncResult(fn, calls[fn], f.o.Scope, lost)
		r.Functions = append(r.Functions, rf)
		r.Values[fn+".calls"] = float64(rf.Calls.Count)
		if rf.Calls.Count == 0 {
			continue
		}
		for _, s := range funcStats {
			r.Values[fn+"."+s.name] = s.get(&rf.Calls)
		}
	}
}

// readTrace parses the trace buffer's text.
func (f *FuncLatency) readTrace() (map[string][]float64, error) {
	file, err := os.Open(f.path("trace"))
	if err != nil {
		return nil, err
	}
	defer file.Close()
	one := ""
	if !f.tail && len(f.o.Funcs) == 1 {
		one = f.o.Funcs[0]
	}
	return ParseGraphTrace(file, one)
}

// FuncResult summarises the latencies (us) of a function's calls in one
// run.
func FuncResult(name string, us []float64, scope string, lost int64) result.Function {
	return result.Function{Name: name, Tracer: FuncTracer, Scope: scope, Calls: *result.Summarize("us", us), Hist: Log2Hist(us), Lost: lost}
}

// Log2Hist counts values in log2 buckets, as bcc's funclatency prints
// them: [0, 1), [1, 2), [2, 4), [4, 8) ...; empty buckets are left out.
func Log2Hist(xs []float64) []result.Bucket {
	counts := map[int]int64{}
	top := -1
	for _, x := range xs {
		k := 0
		for lo := 1.0; x >= lo; lo *= 2 {
			k++
		}
		counts[k]++
		top = max(top, k)
	}
	var out []result.Bucket
	for k := 0; k <= top; k++ {
		if counts[k] == 0 {
			continue
		}
		lo, hi := 0.0, 1.0
		if k > 0 {
			lo, hi = float64(int64(1)<<(k-1)), float64(int64(1)<<k)
		}
		out = append(out, result.Bucket{Lo: lo, Hi: hi, Count: counts[k]})
	}
	return out
}
