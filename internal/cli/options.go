package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

// sessionOptions are the runner options that run, stat and bisect-run
// share, from their flags, checked against this machine, with the
// fingerprint taken and the tuning check's warnings in Warnings.
func sessionOptions(ctx context.Context, cpus string, fifo, warmup, repeat int, timeout time.Duration, output string, labels []string) (*runner.Options, error) {
	opt := &runner.Options{
		Repeat:  repeat,
		Warmup:  warmup,
		FIFO:    fifo,
		Timeout: timeout,
		Output:  output,
		Command: commandLine(ctx),
		Version: Version,
	}
	if cpus != "" {
		list, err := sys.ParseCPUList(cpus)
		if err != nil {
			return nil, fmt.Errorf("--cpus: %w", err)
		}
		opt.CPUs = list
	}
	var err error
	if opt.Labels, err = result.ParseLabels(labels); err != nil {
		return nil, err
	}
	if err := runner.Check(opt); err != nil {
		return nil, err
	}
	opt.Env = runner.Fingerprint(Version)
	opt.Warnings = sysinfo.Warnings(opt.Env, opt.CPUs)
	return opt, nil
}
