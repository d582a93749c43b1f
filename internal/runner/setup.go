package runner

import (
	"fmt"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

// A Setup is what the commands that measure (run, stat, bisect-run,
// calibrate) take from their flags for their runs, as given.
type Setup struct {
	CPUs                 string // a CPU list, as taskset -c takes it; "": inherit
	FIFO, Warmup, Repeat int
	Timeout              time.Duration
	Output               string
	Labels               []string // k=v
	Command              []string
	Version              string
}

// Options checks the setup against this machine (Check) and returns the
// runner options it makes, with the fingerprint taken and the tuning
// check's warnings in Warnings.
func (s Setup) Options() (*Options, error) {
	opt := &Options{
		Repeat:  s.Repeat,
		Warmup:  s.Warmup,
		FIFO:    s.FIFO,
		Timeout: s.Timeout,
		Output:  s.Output,
		Command: s.Command,
		Version: s.Version,
	}
	if s.Timeout < 0 {
		return nil, fmt.Errorf("--timeout: %s is negative (a run's time limit, or 0 for none)", s.Timeout)
	}
	if s.CPUs != "" {
		list, err := sys.ParseCPUList(s.CPUs)
		if err != nil {
			return nil, fmt.Errorf("--cpus: %w", err)
		}
		opt.CPUs = list
	}
	var err error
	if opt.Labels, err = result.ParseLabels(s.Labels); err != nil {
		return nil, err
	}
	if err := Check(opt); err != nil {
		return nil, err
	}
	opt.Env = Fingerprint(s.Version)
	opt.Warnings = sysinfo.Warnings(opt.Env, opt.CPUs)
	return opt, nil
}
