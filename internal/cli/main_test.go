package cli_test

import (
	"context"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kdelta/kdelta/internal/cli"
	"github.com/kdelta/kdelta/internal/runner"
)

// TestMain makes the test binary act as kdelta: as the testscript command,
// and as the measured child and workload helpers that kdelta re-executes.
func TestMain(m *testing.M) {
	if code, ok := runner.Hidden(os.Args[1:]); ok {
		os.Exit(code)
	}
	testscript.Main(m, map[string]func(){
		"kdelta": func() { os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}
