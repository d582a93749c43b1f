package guest

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/kdelta/kdelta/internal/counter"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/workload"
)

// Paths inside the guest, relative to its root: what the host's
// initramfs writer puts there and what /init reads.
const (
	// JobFile is the job, JSON.
	JobFile = "kdelta/job.json"
	// KexecKernel and KexecInitrd are a loader's second kernel and its
	// initramfs (Job.Kexec).
	KexecKernel = "kdelta/kexec/kernel"
	KexecInitrd = "kdelta/kexec/initrd.cpio"
	// ModuleDir holds one file per module to load, in the order the file
	// ModuleOrder lists them.
	ModuleDir   = "kdelta/modules"
	ModuleOrder = "kdelta/modules/order"
)

// RootFSHost is Job.RootFS for a guest that runs over the host's root
// file system, shared over 9p with the tag HostRootTag.
const (
	RootFSHost  = "host"
	HostRootTag = "kdroot"
)

// A Job is what the guest runs: the `kdelta run` (or stat) command line
// given after `--`, parsed on the host (vm.ParseJob). It travels into the
// guest as a file of the initramfs, never on the kernel command line.
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
	// Counters are the run's -e, --probe-events, --counters and -a, nil
	// when none was given: the guest then counts nothing. Its Monitor is
	// not used (Monitors is).
	Counters *counter.Setup `json:"counters,omitempty"`
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

// Workloads parses the job's workloads: the quick suite when Quick, the
// specs, and the command of a stat job. The guest's registry is the
// host's: both binaries link the same workload package.
func (j *Job) Workloads() ([]workload.Spec, error) {
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

// UnmarshalJob reads a job as the host wrote it.
func UnmarshalJob(b []byte) (*Job, error) {
	var j Job
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, err
	}
	return &j, nil
}
