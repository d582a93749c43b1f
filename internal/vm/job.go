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
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/workload"
)

// A Job is what the guest runs: the `kdelta run` command line given after
// `--`, parsed. It travels into the guest as a file of the initramfs,
// never on the kernel command line.
type Job struct {
	// Specs are the workload specs as the user wrote them
	// ("syscall:calls=100000").
	Specs   []string      `json:"specs,omitempty"`
	Quick   bool          `json:"quick,omitempty"`
	Repeat  int           `json:"repeat"`
	Warmup  int           `json:"warmup"`
	Timeout time.Duration `json:"timeout_ns"`
	CPUs    string        `json:"cpus,omitempty"`
	FIFO    int           `json:"fifo,omitempty"`
	// Labels are the run's --label pairs.
	Labels map[string]string `json:"labels,omitempty"`
	// Monitors is the run's --monitor list, taken in the guest around
	// each run ("" for none, the guest's default).
	Monitors string `json:"monitors,omitempty"`
	// FuncLatency and FuncScope are --funclatency and
	// --funclatency-scope: kernel functions timed in the guest's kernel.
	FuncLatency []string `json:"funclatency,omitempty"`
	FuncScope   string   `json:"funclatency_scope,omitempty"`
	// Version is the host kdelta's version, recorded in the result set.
	Version string `json:"version"`
	// Command is the host's command line, recorded in the result set.
	Command []string `json:"command,omitempty"`
	// ToolVersions are the host's reference tools (perf, stress-ng): the
	// guest has neither, and parameters that follow them (pipe's
	// order=auto, kill's pidmax=auto) follow the host's, which the results
	// will be compared with.
	ToolVersions map[string]string `json:"tool_versions,omitempty"`
	// Kexec, when set, makes the guest a loader (Options.KexecFrom): its
	// /init runs nothing but starts the kernel its initramfs carries
	// with kexec_file_load, and the job runs in that kernel's boot.
	Kexec *KexecStep `json:"kexec,omitempty"`
	// ReportBoot makes the guest say what it booted (a BootReport) on
	// the channel before it runs the job: the boot a loader kexeced into.
	ReportBoot bool `json:"report_boot,omitempty"`
	// RootFS is "host" for a guest that runs over the host's root file
	// system (Options.RootFS); "" for the initramfs alone.
	RootFS string `json:"rootfs,omitempty"`
	// Stat is the command of -- stat [-r N] -- CMD ARGS...: the guest
	// runs it as kdelta stat does (a program of the host's root, with
	// --rootfs host).
	Stat []string `json:"stat,omitempty"`
}

// A KexecStep is the kernel a loader guest starts: the release it must
// come up as and its whole command line.
type KexecStep struct {
	Release string `json:"release"`
	Cmdline string `json:"cmdline"`
}

// ParseJob parses the command line given after `--`: "run", then the
// workloads and the flags of kdelta run that mean something in a guest
// (-r, --warmup, --timeout, --cpus, --fifo, --label, --quick, --monitor,
// which takes no monitor unless given, --funclatency, --funclatency-scope).
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
	if j.Quick && !fs.Changed("repeat") {
		j.Repeat = 3
	}
	j.Specs = fs.Args()
	for _, l := range labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("vm: guest run: --label: %q is not key=value", l)
		}
		j.Labels[k] = v
	}
	if _, err := j.specs(); err != nil {
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

// specs parses the job's workloads.
func (j *Job) specs() ([]workload.Spec, error) {
	var specs []workload.Spec
	if j.Quick {
		q, err := workload.QuickSuite()
		if err != nil {
			return nil, err
		}
		specs = append(specs, q...)
	}
	for _, s := range j.Specs {
		sp, err := workload.ParseSpec(s)
		if err != nil {
			return nil, err
		}
		specs = append(specs, sp)
	}
	if len(j.Stat) > 0 {
		specs = append(specs, runner.CommandSpec(j.Stat))
	}
	if len(specs) == 0 {
		return nil, errors.New("no workloads given (name some, or use --quick; kdelta list shows them)")
	}
	return specs, nil
}

// marshal writes the job for the guest, with the host's tool versions.
// j itself is not changed: sessions that share a job (the variants of a
// test, the boots of several sessions) may marshal it at once.
func (j *Job) marshal() []byte {
	c := *j
	c.ToolVersions = workload.ToolVersions()
	b, _ := json.MarshalIndent(&c, "", "  ")
	return append(b, '\n')
}

func unmarshalJob(b []byte) (*Job, error) {
	var j Job
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, err
	}
	return &j, nil
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
