package cli

import (
	"context"
	"time"

	"github.com/kdelta/kdelta/internal/runner"
)

// sessionOptions are the runner options that run, stat, bisect-run and
// calibrate share, from their flags (runner.Setup).
func sessionOptions(ctx context.Context, cpus string, fifo, warmup, repeat int, timeout time.Duration, output string, labels []string) (*runner.Options, error) {
	return runner.Setup{CPUs: cpus, FIFO: fifo, Warmup: warmup, Repeat: repeat, Timeout: timeout,
		Output: output, Labels: labels, Command: commandLine(ctx), Version: Version}.Options()
}
