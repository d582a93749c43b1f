package workload

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sys"
)

// commandRun runs any external command as a workload: its wall time, and
// the figures it prints when a parser for its output is named. This is how
// the C references themselves (perf bench, stress-ng, hackbench) run under
// kdelta's runner, beside the built-in workloads that re-implement them.
type commandRun struct{}

func init() { Register(commandRun{}) }

const (
	// outputKeep is how much of a command's output is kept for the
	// parsers: the figures they read come at the end.
	outputKeep = 1 << 20
	// outputTail is how much of it a failed run's Info keeps.
	outputTail = 64 << 10
	// errorLines is how many of its last lines a failure's error shows.
	errorLines = 10
)

func (commandRun) Name() string { return "command" }

func (commandRun) Doc() string {
	return "any external command: wall time, and the figures of perf bench, stress-ng, hackbench or a regexp"
}

func (commandRun) Params() []Param {
	return []Param{
		{Name: "cmd", Doc: "the command line, e.g. cmd='stress-ng --kill 1 --kill-ops 20000' (required)"},
		{Name: "shell", Kind: Bool, Default: "false",
			Doc: "run cmd with /bin/sh -c; otherwise split it into words with shell-like quoting ('...', \"...\", \\) and run it directly"},
		{Name: "parse", Default: "none", Choices: []string{"none", "perf-bench", "stress-ng", "hackbench"},
			Doc: "read these figures from the output: perf-bench time, usecs/op, ops/sec; stress-ng bogo-ops/s, kill-calls/s; hackbench time"},
		{Name: "regex", Doc: "a Go regexp with one group: the last match in the output is metric value"},
		{Name: "unit", Doc: "unit of metric value"},
		{Name: "better", Default: "lower", Choices: []string{"lower", "higher"}, Doc: "direction of metric value"},
	}
}

// commandMetrics are all the metrics a command run may report. A run sets
// wall, the metrics of its parser, and value when it has a regex; the rest
// stay unset.
var commandMetrics = []result.Metric{
	{Name: "wall", Unit: "s", Better: result.Lower, Doc: "wall time from start to exit"},
	{Name: "time", Unit: "s", Better: result.Lower, Doc: "the tool's own time: perf bench Total time, hackbench Time"},
	{Name: "usecs/op", Unit: "usecs/op", Better: result.Lower, Doc: "perf bench usecs/op"},
	{Name: "ops/sec", Unit: "ops/s", Better: result.Higher, Doc: "perf bench ops/sec"},
	{Name: "bogo-ops/s", Unit: "bogo-ops/s", Better: result.Higher, Doc: "stress-ng bogo ops/s (real time)"},
	{Name: "kill-calls/s", Unit: "calls/s", Better: result.Higher, Doc: "stress-ng kill calls per sec"},
	// value's unit and direction come from the unit and better
	// parameters: see MetricsFor, and the run's Info value_unit.
	{Name: "value", Unit: "", Better: result.Lower, Doc: "the regex's capture; unit and direction from parameters unit and better"},
}

func (commandRun) Metrics() []result.Metric {
	return append([]result.Metric(nil), commandMetrics...)
}

// MetricsFor returns the metrics a run with v reports.
func (commandRun) MetricsFor(v Values) []result.Metric {
	want := map[string]bool{"wall": true}
	if p, ok := outputParsers[v.String("parse")]; ok {
		for _, m := range p.metrics {
			want[m] = true
		}
	}
	var ms []result.Metric
	for _, m := range commandMetrics {
		if m.Name == "value" && v.String("regex") != "" {
			m.Unit = v.String("unit")
			m.Better = result.Better(v.String("better"))
			m.Doc = "the capture of regex " + strconv.Quote(v.String("regex"))
			ms = append(ms, m)
			continue
		}
		if want[m.Name] {
			ms = append(ms, m)
		}
	}
	return ms
}

func (commandRun) Validate(v Values) error {
	if strings.TrimSpace(v.String("cmd")) == "" {
		return fmt.Errorf("parameter cmd is required, e.g. command:cmd='stress-ng --kill 1 --kill-ops 20000'")
	}
	if _, err := commandArgv(v); err != nil {
		return err
	}
	if p := v.String("parse"); p != "none" {
		if _, ok := outputParsers[p]; !ok {
			return fmt.Errorf("parameter parse: unknown parser %q (one of none, perf-bench, stress-ng, hackbench)", p)
		}
	}
	if _, err := commandRegexp(v); err != nil {
		return err
	}
	if v.String("regex") == "" && v.String("unit") != "" {
		return fmt.Errorf("parameter unit %q is the unit of the regex metric, and regex is not set", v.String("unit"))
	}
	return nil
}

// commandArgv returns the argument vector the run executes.
func commandArgv(v Values) ([]string, error) {
	line := v.String("cmd")
	if v.Bool("shell") {
		return []string{"/bin/sh", "-c", line}, nil
	}
	argv, err := SplitArgs(line)
	if err != nil {
		return nil, fmt.Errorf("parameter cmd %q: %w", line, err)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("parameter cmd %q holds no command", line)
	}
	for _, a := range argv {
		switch a {
		case "|", "||", "&&", "&", ";", ">", ">>", "<", "2>&1":
			return nil, fmt.Errorf("parameter cmd %q: %q is shell syntax, which only shell=true runs (or quote it)", line, a)
		}
	}
	return argv, nil
}

// commandRegexp compiles the regex parameter; nil when it is not set.
func commandRegexp(v Values) (*regexp.Regexp, error) {
	s := v.String("regex")
	if s == "" {
		return nil, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, fmt.Errorf("parameter regex %q: %w", s, err)
	}
	if n := re.NumSubexp(); n != 1 {
		return nil, fmt.Errorf("parameter regex %q has %d groups, want exactly one (the value)", s, n)
	}
	return re, nil
}

func (commandRun) Run(t *Task) error {
	if err := (commandRun{}).Validate(t.Params); err != nil {
		return err
	}
	argv, _ := commandArgv(t.Params)
	re, _ := commandRegexp(t.Params)
	path, err := exec.LookPath(argv[0])
	if errors.Is(err, exec.ErrNotFound) {
		return fmt.Errorf("command %q not found (PATH=%s)", argv[0], os.Getenv("PATH"))
	}
	if err != nil {
		return fmt.Errorf("command %q: %w", argv[0], err)
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	t.Info("argv", quoteArgv(argv))

	// One pipe for stdout and stderr keeps their lines in the order the
	// command wrote them. The pipe is ours, not exec's, so Wait returns
	// when the command exits even if a process it left behind still
	// holds the pipe open.
	pr, pw, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("output pipe: %w", err)
	}
	defer pr.Close()
	cmd.Stdout, cmd.Stderr = pw, pw
	out := &tailBuffer{max: outputKeep}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		io.Copy(out, pr)
	}()

	if err := t.Ready(); err != nil {
		pw.Close()
		return err
	}
	// The spawner's thread outlives the command, so PR_SET_PDEATHSIG
	// (SIGKILL) fires only when this process dies; the command stays in
	// this process's group, which the runner kills on timeout.
	start := time.Now()
	err = sys.DefaultSpawner().Start(cmd, sys.SpawnOptions{})
	pw.Close()
	if err != nil {
		return fmt.Errorf("start %s: %w", argv[0], err)
	}
	werr := cmd.Wait()
	wall := time.Since(start)
	if err := t.End(); err != nil {
		return err
	}
	select {
	case <-drained:
	case <-time.After(time.Second):
		// A background child still holds the pipe: go on with the
		// output so far.
		pr.Close()
		<-drained
	}
	text := out.String()

	if werr != nil {
		t.Info("output_tail", lastBytes(text, outputTail))
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			t.Info("exit_status", ee.ProcessState.String())
			return fmt.Errorf("%s: %s; last output:\n%s", argv[0], ee.ProcessState, lastLines(text, errorLines))
		}
		return fmt.Errorf("%s: %w", argv[0], werr)
	}

	t.Set("wall", wall.Seconds())
	if p := t.Params.String("parse"); p != "none" {
		m, err := outputParsers[p].parse(text)
		if err != nil {
			t.Info("output_tail", lastBytes(text, outputTail))
			return fmt.Errorf("parse=%s: %w; last output:\n%s", p, err, lastLines(text, errorLines))
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Set(k, m[k])
		}
	}
	if re != nil {
		all := re.FindAllStringSubmatch(text, -1)
		if len(all) == 0 {
			t.Info("output_tail", lastBytes(text, outputTail))
			return fmt.Errorf("regex %q matches nothing in the output; last output:\n%s", re, lastLines(text, errorLines))
		}
		s := all[len(all)-1][1]
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return fmt.Errorf("regex %q captured %q, not a number", re, s)
		}
		t.Set("value", v)
		t.Info("value_unit", t.Params.String("unit"))
		t.Info("value_better", t.Params.String("better"))
	}
	return nil
}

// SplitArgs splits a command line into words as a POSIX shell would,
// without expansions: words are separated by blanks; '...' keeps its text
// as is; "..." keeps its text, a backslash there escaping only \ " $ ` and
// newline; outside quotes a backslash keeps the next character (and joins
// lines). Variables, globs, pipes and redirections are not interpreted:
// use shell=true for them.
func SplitArgs(s string) ([]string, error) {
	var (
		args  []string
		cur   strings.Builder
		inArg bool // cur holds a word, perhaps empty ('')
	)
	// Every character with a meaning here is ASCII, so walking bytes
	// keeps any other bytes, valid UTF-8 or not, as they are.
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		case c == '\\':
			if i+1 == len(s) {
				return nil, fmt.Errorf("backslash at the end")
			}
			i++
			if s[i] != '\n' {
				cur.WriteByte(s[i])
				inArg = true
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' at byte %d", i+1)
			}
			cur.WriteString(s[i+1 : i+1+j])
			inArg = true
			i += j + 1
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && strings.IndexByte("\\\"$`\n", s[j+1]) >= 0 {
					j++
					if s[j] != '\n' {
						cur.WriteByte(s[j])
					}
					continue
				}
				cur.WriteByte(s[j])
			}
			if j == len(s) {
				return nil, fmt.Errorf("unterminated \" at byte %d", i+1)
			}
			inArg = true
			i = j
		default:
			cur.WriteByte(c)
			inArg = true
		}
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args, nil
}

// quoteArgv writes argv so SplitArgs reads it back: words with anything
// but safe characters go in single quotes.
func quoteArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

func shellQuote(a string) string {
	if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// A tailBuffer keeps the last max bytes written to it (up to twice that
// between trims).
type tailBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

// String returns the kept output, trimmed to max bytes.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return lastBytes(string(t.b), t.max)
}

// lastBytes returns about the last n bytes of s, starting at a line
// boundary when one is near.
func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < 1024 {
		s = s[i+1:]
	}
	return s
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
