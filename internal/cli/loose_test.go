package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Tests of the loose ends of issue 12, point 8, that a new user hit: each
// message named the wrong thing or went to the wrong stream.

// TestHistoryNamesMissingLabel: a --by label no set carries (a typo) and a
// --label query that matches nothing are said so, with what the store's
// sets do carry, not as "no measured runs of kill".
func TestHistoryNamesMissingLabel(t *testing.T) {
	path := ownStore(t)
	elnStore(t, path)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"history", "--by", "kernl", "--workload", "kill"},
			"history: --by kernl: no result set of kill in " + path + " carries the label kernl (stored labels: host, kernel)"},
		{[]string{"history", "--by", "kernl", "--workload", "kill:mode=self", "--label", "host=p10"},
			"history: --by kernl: no result set of kill:mode=self in " + path + " carries the label kernl (stored labels: host, kernel)"},
		{[]string{"history", "--by", "kernel", "--workload", "kill", "--label", "host=x86"},
			"history: --label host=x86: no result set in " + path + " carries these labels; stored host values: p10"},
		{[]string{"history", "--by", "time", "--workload", "kill", "--label", "host=p10", "--label", "arch=s390x"},
			"history: --label host=p10,arch=s390x: no result set in " + path + " carries these labels; stored host values: p10; no stored set has the label arch (stored labels: host, kernel)"},
	}
	for _, tt := range tests {
		code, out, errs := kd(t, tt.args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tt.want) {
			t.Errorf("kdelta %s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", strings.Join(tt.args, " "), code, out, errs, tt.want)
		}
	}
	// The lister is the resolver's: a label query of compare says the same.
	code, _, errs := kd(t, "compare", "kernel=6.18,arch=s390x", "kernel=6.18")
	if want := "no stored set has the label arch (stored labels: host, kernel)"; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("compare kernel=6.18,arch=s390x: exit %d, stderr %q; want %q", code, errs, want)
	}
}

// TestSIGINTAfterWarmup: interrupted while its first measured run runs,
// kdelta run keeps the warm-up and says it kept no measured run.
func TestSIGINTAfterWarmup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.json")
	// The warm-up is capped at 1M calls; the measured run would take
	// minutes.
	cmd, mark := startMarked(t, "run", "--no-store", "syscall:calls=2000000000", "-r", "1", "--warmup", "1", "-o", path)
	waitRuns(t, path, 1)
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	stderr := cmd.Stderr.(*strings.Builder).String()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit after SIGINT: %d, want 130; stderr: %s", code, stderr)
	}
	if want := "kdelta: interrupted: kept 0 measured runs and 1 warm-up run in " + path + "\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr after SIGINT:\n%s\nwant the line %q", stderr, want)
	}
	waitNoSurvivors(t, mark, cmd.Process.Pid)
}

// TestABSIGINTAfterWarmup: kdelta ab says what it kept the same way,
// summed over the variants, and where; with no knob set it claims no
// restore.
func TestABSIGINTAfterWarmup(t *testing.T) {
	ownJournal(t)
	prefix := filepath.Join(t.TempDir(), "w")
	cmd, mark := startMarked(t, "ab", "--no-store", "--variant", "a:", "--variant", "b:", "-r", "1", "--warmup", "1",
		"-o", prefix, "--", "syscall:calls=2000000000")
	// Interleaved: b's warm-up ends after a's, and a's measured run starts.
	waitRuns(t, prefix+"-b.json", 1)
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	stderr := cmd.Stderr.(*strings.Builder).String()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit after SIGINT: %d, want 130; stderr: %s", code, stderr)
	}
	if want := "kdelta: interrupted: kept 0 measured runs and 2 warm-up runs in " + prefix + "-a.json, " + prefix + "-b.json\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr after SIGINT:\n%s\nwant the line %q", stderr, want)
	}
	waitNoSurvivors(t, mark, cmd.Process.Pid)
}

// TestRestoreReportsOnStdout: what kdelta restore wrote back is its
// output, on stdout, and nothing on stderr (before, the start-up recovery
// that every kdelta does wrote it on stderr, and restore itself then said
// "nothing to restore" on stdout); what it could not write back is a
// warning on stderr.
func TestRestoreReportsOnStdout(t *testing.T) {
	// A knob that changes nothing measured (it acts only on an RCU CPU
	// stall), so that tests running beside this one are not disturbed.
	const key, knobPath = "rcutree.rcu_kick_kthreads", "/sys/module/rcutree/parameters/rcu_kick_kthreads"
	orig := liveKnob(t, knobPath)
	jdir := ownJournal(t)
	other := "Y"
	if orig == "Y" {
		other = "N"
	}
	pid := deadPID(t)
	writeJournal(t, jdir, pid, key, knobPath, orig)
	if err := os.WriteFile(knobPath, []byte(other+"\n"), 0); err != nil {
		t.Fatal(err)
	}
	code, out, errs := kd(t, "restore")
	want := "restored " + key + "=" + orig + " (" + knobPath + "), left changed by kdelta pid " + strconv.Itoa(pid) + ", which is gone\n"
	if code != 0 || out != want || errs != "" {
		t.Errorf("kdelta restore: exit %d\nstdout %q\nstderr %q\nwant exit 0, stdout %q and no stderr", code, out, errs, want)
	}
	if got := knobValue(t, knobPath); got != orig {
		t.Errorf("after kdelta restore: %s=%s, want %s", knobPath, got, orig)
	}
	code, out, errs = kd(t, "restore")
	if code != 0 || !strings.HasPrefix(out, "nothing to restore") || errs != "" {
		t.Errorf("kdelta restore again: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	// A knob that cannot be written back: warnings on stderr, exit 1.
	writeJournal(t, jdir, pid, "kernel.kdelta_no_such_knob", "/sys/kernel/kdelta_no_such_knob", "1")
	code, out, errs = kd(t, "restore")
	if code != 1 || out != "" || !strings.Contains(errs, "kdelta: warning: could not restore what kdelta pid "+strconv.Itoa(pid)+" left changed: /sys/kernel/kdelta_no_such_knob=1") ||
		!strings.Contains(errs, "kdelta: restore: some knobs could not be written back") {
		t.Errorf("kdelta restore of a missing knob: exit %d\nstdout %q\nstderr %q", code, out, errs)
	}
}

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return c.ProcessState.Pid()
}

// writeJournal leaves the journal of a kdelta that is gone (nothing holds
// its lock) which changed the knob key, the file path, from value.
func writeJournal(t *testing.T, dir string, pid int, key, path, value string) {
	t.Helper()
	rec := map[string]any{
		"schema": "kdelta/restore/v1", "pid": pid, "started": "2026-07-27T09:00:00Z",
		"knobs": []map[string]string{{"key": key, "path": path, "value": value}},
	}
	b, _ := json.Marshal(rec)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(pid)+".json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestABSetsCarryKernel: kdelta ab's sets are labelled with host and
// kernel as kdelta run's are, so history by kernel (or host) finds them.
func TestABSetsCarryKernel(t *testing.T) {
	ownStore(t)
	ownJournal(t)
	code, _, errs := kd(t, "ab", "--variant", "a:", "--variant", "b:", "-r", "2", "--warmup", "0", "--", "syscall:calls=1000")
	if code != 0 {
		t.Fatalf("kdelta ab: exit %d: %s", code, errs)
	}
	rel, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Fatal(err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	for by, value := range map[string]string{"kernel": strings.TrimSpace(string(rel)), "host": host} {
		code, out, errs := kd(t, "history", "--by", by, "--workload", "syscall")
		if code != 0 || errs != "" {
			t.Errorf("history --by %s: exit %d, stderr %q", by, code, errs)
			continue
		}
		// One row: both variants' sets, 2 runs each.
		found := false
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == value && f[1] == "4" {
				found = true
			}
		}
		if !found {
			t.Errorf("history --by %s has no row %s with n=4:\n%s", by, value, out)
		}
	}
}
