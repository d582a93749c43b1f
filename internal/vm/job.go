package vm

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kdelta/kdelta/internal/counter"
	"github.com/kdelta/kdelta/internal/guest"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/workload"
)

// A Job is what the guest runs: the command line given after `--`,
// parsed by ParseJob. Its type is the guest's, which reads it from the
// initramfs.
type Job = guest.Job

// A KexecStep is the kernel a loader guest starts.
type KexecStep = guest.KexecStep

// ParseJob parses the command line given after `--`: "run", then the
// workloads and the flags of kdelta run that mean something in a guest
// (-r, --warmup, --timeout, --cpus, --fifo, --label, --quick, --monitor,
// which takes no monitor unless given, --funclatency, --funclatency-scope,
// and the counters: -e, --probe-events, --counters, -a, which count
// nothing unless one is given). --quick is kdelta run's: the quick suite,
// with -r's default of 5 runs.
// The workloads are checked against this binary's registry, which is the
// guest's too.
func ParseJob(args []string) (*Job, error) {
	if len(args) == 0 {
		return nil, errors.New("vm: nothing to run: give the guest's command after --, e.g. -- run syscall -r 5")
	}
	if args[0] == "stat" {
		return parseStatJob(args[1:])
	}
	if args[0] != "run" {
		return nil, fmt.Errorf("vm: the guest runs `run WORKLOAD... [flags]` or `stat [-r N] -- CMD...`, not %q", args[0])
	}
	j := &Job{Labels: map[string]string{}}
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	var labels []string
	fs.IntVarP(&j.Repeat, "repeat", "r", 5, "")
	fs.IntVar(&j.Warmup, "warmup", 1, "")
	fs.DurationVar(&j.Timeout, "timeout", 10*time.Minute, "")
	fs.StringVar(&j.CPUs, "cpus", "", "")
	fs.IntVar(&j.FIFO, "fifo", 0, "")
	fs.StringArrayVar(&labels, "label", nil, "")
	fs.BoolVar(&j.Quick, "quick", false, "")
	fs.StringVar(&j.Monitors, "monitor", "", "")
	var cs counter.Setup
	fs.StringVarP(&cs.Events, "events", "e", counter.DefaultEventList, "")
	fs.StringVar(&cs.Probes, "probe-events", "none", "")
	fs.StringVar(&cs.Counters, "counters", "on", "")
	fs.BoolVarP(&cs.SystemWide, "all-cpus", "a", false, "")
	var funcs string
	fs.StringVar(&funcs, "funclatency", "", "")
	fs.StringVar(&j.FuncScope, "funclatency-scope", "", "")
	if err := fs.Parse(args[1:]); err != nil {
		return nil, fmt.Errorf("vm: guest run: %w", err)
	}
	if funcs != "" {
		var err error
		if j.FuncLatency, err = counter.ParseFuncs(funcs); err != nil {
			return nil, fmt.Errorf("vm: guest run: --funclatency: %w", err)
		}
	}
	if err := checkFuncScope(j); err != nil {
		return nil, fmt.Errorf("vm: guest run: %w", err)
	}
	if fs.Changed("events") || fs.Changed("probe-events") || fs.Changed("counters") || fs.Changed("all-cpus") {
		if err := checkCounters(cs); err != nil {
			return nil, fmt.Errorf("vm: guest run: %w", err)
		}
		j.Counters = &cs
	}
	j.Specs = fs.Args()
	for _, l := range labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("vm: guest run: --label: %q is not key=value", l)
		}
		j.Labels[k] = v
	}
	if _, err := j.Workloads(); err != nil {
		return nil, fmt.Errorf("vm: guest run: %w", err)
	}
	if j.Repeat < 1 {
		return nil, fmt.Errorf("vm: guest run: -r/--repeat: must be at least 1, got %d", j.Repeat)
	}
	if j.Warmup < 0 {
		return nil, fmt.Errorf("vm: guest run: --warmup: must not be negative, got %d", j.Warmup)
	}
	if j.CPUs != "" {
		if _, err := sys.ParseCPUList(j.CPUs); err != nil {
			return nil, fmt.Errorf("vm: guest run: --cpus: %w", err)
		}
	}
	if j.Monitors != "" {
		if _, err := counter.ParseMonitors(j.Monitors); err != nil {
			return nil, fmt.Errorf("vm: guest run: %w", err)
		}
	}
	return j, nil
}

// checkCounters checks the guest's counters as far as the host can: the
// --counters value, the flags it drops, and every event that is not a
// tracepoint (a tracepoint is the guest kernel's, looked up there).
func checkCounters(cs counter.Setup) error {
	switch cs.Counters {
	case "on":
	case "none":
		if cs.Events != counter.DefaultEventList {
			return fmt.Errorf("--counters none counts nothing, so -e %s would be dropped: give one or the other", cs.Events)
		}
		if cs.Probes != "none" {
			return fmt.Errorf("--counters none counts nothing, so --probe-events %s would be dropped: give one or the other", cs.Probes)
		}
		return nil
	default:
		return fmt.Errorf("--counters: unknown value %q (on or none)", cs.Counters)
	}
	for _, f := range []struct{ flag, list string }{{"--events", cs.Events}, {"--probe-events", cs.Probes}} {
		if f.list == "none" && f.flag == "--probe-events" {
			continue
		}
		if strings.TrimSpace(f.list) == "" {
			return fmt.Errorf("%s: empty event list", f.flag)
		}
		for _, name := range strings.Split(f.list, ",") {
			if tracepoint(strings.TrimSpace(name)) {
				continue
			}
			if _, err := counter.ParseEventsAt("/", name); err != nil {
				return fmt.Errorf("%s: %w", f.flag, err)
			}
		}
	}
	return nil
}

// tracepoint tells whether event name may be a tracepoint,
// subsys:name[:modifiers], not an event with modifiers (cycles:u): the
// guest looks it up, and says what is wrong with one that is neither.
func tracepoint(name string) bool {
	parts := strings.Split(name, ":")
	if len(parts) == 2 {
		return strings.Trim(parts[1], "ukh") != ""
	}
	return len(parts) == 3
}

// checkFuncScope checks --funclatency-scope.
func checkFuncScope(j *Job) error {
	if j.FuncScope != "" && !slices.Contains(counter.Scopes, j.FuncScope) {
		return fmt.Errorf("--funclatency-scope: unknown scope %q (%s)", j.FuncScope, strings.Join(counter.Scopes, " or "))
	}
	if j.FuncScope == counter.ScopeTasks && len(j.FuncLatency) == 0 {
		return errors.New("--funclatency-scope: tasks needs --funclatency FUNC")
	}
	return nil
}

// marshalJob writes the job for the guest, with the host's tool versions.
// j itself is not changed: sessions that share a job (the variants of a
// test, the boots of several sessions) may marshal it at once.
func marshalJob(j *Job) []byte {
	c := *j
	c.ToolVersions = workload.ToolVersions()
	b, _ := json.MarshalIndent(&c, "", "  ")
	return append(b, '\n')
}

// parseStatJob reads the guest's stat [-r N] [--warmup N] [--timeout D]
// [--] CMD ARGS...: the command run N times as kdelta stat runs it.
func parseStatJob(args []string) (*Job, error) {
	j := &Job{Labels: map[string]string{}}
	fs := pflag.NewFlagSet("stat", pflag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	fs.SetInterspersed(false)
	fs.IntVarP(&j.Repeat, "repeat", "r", 1, "")
	fs.IntVar(&j.Warmup, "warmup", 0, "")
	fs.DurationVar(&j.Timeout, "timeout", 10*time.Minute, "")
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("vm: guest stat: %w", err)
	}
	if fs.NArg() == 0 {
		return nil, errors.New("vm: guest stat: no command (stat -r N -- CMD ARGS...)")
	}
	if j.Repeat < 1 {
		return nil, fmt.Errorf("vm: guest stat: -r must be at least 1, got %d", j.Repeat)
	}
	j.Stat = fs.Args()
	return j, nil
}
