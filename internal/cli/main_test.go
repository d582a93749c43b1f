package cli_test

import (
	"context"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kdelta/kdelta/internal/cli"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/workload"
)

// TestMain makes the test binary act as kdelta: as the testscript command,
// and as the measured child and workload helpers that kdelta re-executes.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case runner.ChildArg:
			os.Exit(runner.ChildMain())
		case workload.WorkerArg:
			os.Exit(workload.WorkerMain(os.Args[2:]))
		}
	}
	testscript.Main(m, map[string]func(){
		"kdelta": func() { os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}
