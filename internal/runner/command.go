package runner

import (
	"strings"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/workload"
)

// A Command is the benchmark of kdelta stat: an external command that the
// measured child execs after the go-ahead, counted from its first
// instruction like perf stat counts it. It is not a registered workload;
// its one metric, elapsed, is measured by the parent from the go-ahead to
// the command's exit.
type Command struct {
	Argv []string
}

// CommandSpec returns the spec that runs argv as kdelta stat does.
func CommandSpec(argv []string) workload.Spec {
	return workload.Spec{Workload: &Command{Argv: argv}, Values: workload.Values{"command": strings.Join(argv, " ")}}
}

func (*Command) Name() string { return "stat" }
func (*Command) Doc() string  { return "an external command, as perf stat runs it" }
func (*Command) Params() []workload.Param {
	return []workload.Param{{Name: "command", Doc: "the command line"}}
}
func (*Command) Metrics() []result.Metric {
	return []result.Metric{{Name: "elapsed", Unit: "s", Better: result.Lower, Doc: "seconds time elapsed"}}
}

// Run is never called: the child execs the command instead.
func (*Command) Run(*workload.Task) error { return nil }
