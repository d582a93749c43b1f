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

// TestUsageErrors checks that bad input gives one line per problem, each
// naming what was wrong, exit status 2, and no Go trace. Each case lists
// every line it must print, so a problem dropped (or a line cut short) is
// a failure, not a line that was never looked at.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o644)
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	tests := []struct {
		args []string
		want []string // the lines of stderr, after "kdelta: ", in order
	}{
		{[]string{"run", "nosuch"}, []string{`unknown workload "nosuch"`}},
		{[]string{"run", "syscall:bogus=1"}, []string{`workload syscall: unknown parameter "bogus"`}},
		{[]string{"run", "syscall:calls=many"}, []string{`parameter calls: bad value "many"`}},
		{[]string{"run", "syscall:calls=1,calls=2"}, []string{`workload syscall: parameter calls given twice in "syscall:calls=1,calls=2"`}},
		{[]string{"run", "pipe:mode=fork"}, []string{`parameter mode: bad value "fork" (one of process|thread)`}},
		{[]string{"run", "--cpus", "x", "syscall"}, []string{`--cpus: bad CPU "x"`}},
		{[]string{"run", "--cpus", "4000", "syscall"}, []string{`--cpus: CPU 4000 is not available here`}},
		{[]string{"run", "--fifo", "200", "syscall"}, []string{`--fifo: priority 200 out of range`}},
		{[]string{"run", "--bogus", "syscall"}, []string{`unknown flag: --bogus`}},
		{[]string{"run", "-r", "0", "syscall"}, []string{`-r/--repeat: must be at least 1`}},
		{[]string{"run", "--label", "nokey", "syscall"}, []string{`--label: "nokey" is not key=value`}},
		{[]string{"run"}, []string{`no workloads given`}},
		{[]string{"show", filepath.Join(dir, "missing.json")}, []string{`missing.json: no such file`}},
		{[]string{"show", bad}, []string{`bad.json: not a kdelta result set`}},
		{[]string{"nosuchcommand"}, []string{`unknown command "nosuchcommand"`}},
		{[]string{"series", "--no-store", "--kernel", "k", "--max-boots", "3", "--", "run", "rcu"}, []string{`--max-boots: only with --until-conclusive`}},
		{[]string{"series", "--no-store", "--kernel", "k", "--until-conclusive", "--boots", "3", "--max-boots", "2", "--", "run", "rcu"}, []string{`--max-boots: 2 is fewer than --boots 3`}},
		{[]string{"series", "--no-store", "--kernel", "k", "--until-conclusive", "--alpha", "2", "--", "run", "rcu"}, []string{`--alpha: alpha 2 is not in (0, 1)`}},
		{[]string{"vm", "--no-store", "--kernel", "k", "--until-conclusive", "--", "run", "rcu"}, []string{`--until-conclusive: one variant, nothing to compare it with: give two --kernel or --append`}},
		{[]string{"vm", "--no-store", "--kernel", "k", "--append", "a", "--append", "b", "--max-boots", "3", "--", "run", "rcu"}, []string{`--max-boots: only with --until-conclusive`}},
		{[]string{"vm", "--no-store", "--kernel", "k", "--append", "a", "--append", "b", "--until-conclusive", "--max-boots", "1", "--", "run", "rcu"},
			[]string{`--max-boots: 1 can never be conclusive: variants booted apart need 2 boots each at least (one boot a side cannot tell a change from two boots' own states)`}},
		// kdelta ab --kernel is kdelta vm, here and in a lab job, whose
		// until-conclusive flags are checked before it is queued.
		{[]string{"ab", "--no-store", "--kernel", "k", "--kernel", "k2", "--until-conclusive", "--boots", "3", "--max-boots", "2", "--", "run", "rcu"}, []string{`--max-boots: 2 is fewer than --boots 3`}},
		{[]string{"submit", "--", "vm", "--kernel", "k", "--until-conclusive", "--", "run", "rcu"}, []string{`submit: vm: --until-conclusive: one variant, nothing to compare it with: give two --kernel or --append`}},
		{[]string{"submit", "--", "ab", "--kernel", "k", "--append", "a", "--append", "b", "--until-conclusive", "--max-boots", "1", "--", "run", "rcu"},
			[]string{`submit: vm: --max-boots: 1 can never be conclusive: variants booted apart need 2 boots each at least (one boot a side cannot tell a change from two boots' own states)`}},
		// stats.Options.Validate joins its problems: each is a line, under
		// the flags it came from.
		{[]string{"compare", a, b, "--alpha", "2", "--test", "bogus"}, []string{
			`--alpha 2 is not in (0, 1)`,
			`--test: test "bogus" is not "mannwhitney" or "welch"`,
		}},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := cli.Main(context.Background(), tt.args, &stdout, &stderr)
		if code != 2 {
			t.Errorf("kdelta %v: exit %d, want 2", tt.args, code)
		}
		msg := stderr.String()
		lines := strings.Split(strings.TrimSuffix(msg, "\n"), "\n")
		if !strings.HasSuffix(msg, "\n") || len(lines) != len(tt.want) {
			t.Errorf("kdelta %v: stderr %q, want %d lines containing %q", tt.args, msg, len(tt.want), tt.want)
		} else {
			for i, line := range lines {
				if !strings.HasPrefix(line, "kdelta: ") || !strings.Contains(line, tt.want[i]) {
					t.Errorf("kdelta %v: line %d of stderr is %q, want kdelta: ...%s...", tt.args, i+1, line, tt.want[i])
				}
			}
		}
		if strings.Contains(msg, "goroutine") || strings.Contains(msg, "panic") {
			t.Errorf("kdelta %v: Go trace in stderr: %q", tt.args, msg)
		}
	}
}
