package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/cli"
)

// TestUsageErrors checks that bad input gives one line naming what was
// wrong, exit status 2, and no Go trace.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "nosuch"}, `unknown workload "nosuch"`},
		{[]string{"run", "syscall:bogus=1"}, `workload syscall: unknown parameter "bogus"`},
		{[]string{"run", "syscall:calls=many"}, `parameter calls: bad value "many"`},
		{[]string{"run", "syscall:calls=1,calls=2"}, `workload syscall: parameter calls given twice in "syscall:calls=1,calls=2"`},
		{[]string{"run", "pipe:mode=fork"}, `parameter mode: bad value "fork" (one of process|thread)`},
		{[]string{"run", "--cpus", "x", "syscall"}, `--cpus: bad CPU "x"`},
		{[]string{"run", "--cpus", "4000", "syscall"}, `--cpus: CPU 4000 is not available here`},
		{[]string{"run", "--fifo", "200", "syscall"}, `--fifo: priority 200 out of range`},
		{[]string{"run", "--bogus", "syscall"}, `unknown flag: --bogus`},
		{[]string{"run", "-r", "0", "syscall"}, `-r/--repeat: must be at least 1`},
		{[]string{"run", "--label", "nokey", "syscall"}, `--label: "nokey" is not key=value`},
		{[]string{"run"}, `no workloads given`},
		{[]string{"show", filepath.Join(dir, "missing.json")}, `missing.json: no such file`},
		{[]string{"show", bad}, `bad.json: not a kdelta result set`},
		{[]string{"nosuchcommand"}, `unknown command "nosuchcommand"`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := cli.Main(context.Background(), tt.args, &stdout, &stderr)
		if code != 2 {
			t.Errorf("kdelta %v: exit %d, want 2", tt.args, code)
		}
		msg := stderr.String()
		if strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "kdelta: ") || !strings.Contains(msg, tt.want) {
			t.Errorf("kdelta %v: stderr %q, want one line containing %q", tt.args, msg, tt.want)
		}
		if strings.Contains(msg, "goroutine") || strings.Contains(msg, "panic") {
			t.Errorf("kdelta %v: Go trace in stderr: %q", tt.args, msg)
		}
	}
}
