package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// abVariants are two variants over two real knobs, so that whatever round
// a signal lands in, some knob is away from the machine's value.
func abVariants(t *testing.T) (args []string, knobs map[string]string) {
	t.Helper()
	knobs = map[string]string{wakeKnob: liveKnob(t, wakeKnob)}
	a, b := "a:"+wakeKnob+"=0", "b:"+wakeKnob+"=1"
	if _, err := os.Stat(thpKnob); err == nil {
		knobs[thpKnob] = liveKnob(t, thpKnob)
		a += "," + thpKnob + "=never"
		b += "," + thpKnob + "=always"
	}
	return []string{"ab", "--no-store", "-r", "40", "--variant", a, "--variant", b}, knobs
}

func checkKnobs(t *testing.T, when string, knobs map[string]string) {
	t.Helper()
	for p, v := range knobs {
		if got := knobValue(t, p); got != v {
			t.Errorf("%s: %s=%s, want %s", when, p, got, v)
		}
	}
}

// TestABSIGINTRestores is acceptance test 3, first half: kdelta ab
// interrupted mid-run puts every knob back and removes its journal; while
// it runs, kdelta restore leaves its knobs alone.
func TestABSIGINTRestores(t *testing.T) {
	needMembarrier(t)
	args, knobs := abVariants(t)
	jdir := ownJournal(t)
	prefix := filepath.Join(t.TempDir(), "int")
	cmd, mark := startMarked(t, append(args, "-o", prefix, "--", "rcu:calls=10")...)
	waitRuns(t, prefix+"-b.json", 2)
	js := journalsIn(jdir)
	if len(js) != 1 || filepath.Base(js[0]) != strconv.Itoa(cmd.Process.Pid)+".json" {
		t.Fatalf("journal of the running kdelta: %v", js)
	}
	// A kdelta that starts now must not restore a running one's knobs.
	out, err := exec.Command(kdeltaBinary(t), "restore").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "kdelta pid "+strconv.Itoa(cmd.Process.Pid)+" is running") {
		t.Errorf("kdelta restore beside a running kdelta: %v: %s", err, out)
	}
	if js := journalsIn(jdir); len(js) != 1 {
		t.Errorf("kdelta restore took a running kdelta's journal: %v", js)
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit after SIGINT: %d, want 130; stderr: %s", code, cmd.Stderr)
	}
	// What was kept, and where, and that the knobs are back.
	said := regexp.MustCompile(`(?m)^kdelta: interrupted: kept [1-9]\d* measured runs? and 2 warm-up runs in ` +
		regexp.QuoteMeta(prefix+"-a.json, "+prefix+"-b.json") + `; knobs restored$`)
	if !said.MatchString(cmd.Stderr.(*strings.Builder).String()) {
		t.Errorf("stderr does not say what was kept and that the knobs are restored (%s): %s", said, cmd.Stderr)
	}
	checkKnobs(t, "after SIGINT", knobs)
	if js := journalsIn(jdir); len(js) != 0 {
		t.Errorf("journal left after SIGINT: %v", js)
	}
	waitNoSurvivors(t, mark, cmd.Process.Pid)
}

// TestABSIGKILLRecovered is acceptance test 3, second half: after SIGKILL
// mid-run the journal stays, and the next kdelta start (any command) or
// kdelta restore puts every knob back.
func TestABSIGKILLRecovered(t *testing.T) {
	needMembarrier(t)
	for _, next := range [][]string{{"restore"}, {"list"}} {
		t.Run(next[0], func(t *testing.T) {
			args, knobs := abVariants(t)
			jdir := ownJournal(t)
			prefix := filepath.Join(t.TempDir(), "kill")
			cmd, mark := startMarked(t, append(args, "-o", prefix, "--", "rcu:calls=10")...)
			waitRuns(t, prefix+"-a.json", 2)
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			waitNoSurvivors(t, mark, cmd.Process.Pid)
			if js := journalsIn(jdir); len(js) != 1 {
				t.Fatalf("journal after SIGKILL: %v", js)
			}
			changed := false
			for p, v := range knobs {
				changed = changed || knobValue(t, p) != v
			}
			c := exec.Command(kdeltaBinary(t), next...)
			var stdout, stderr strings.Builder
			c.Stdout, c.Stderr = &stdout, &stderr
			if err := c.Run(); err != nil {
				t.Fatalf("kdelta %s: %v: %s", next[0], err, stderr.String())
			}
			said := stdout.String() + stderr.String()
			if changed && !strings.Contains(said, "left changed by kdelta pid "+strconv.Itoa(cmd.Process.Pid)+", which is gone") {
				t.Errorf("kdelta %s does not say what it restored: %s", next[0], said)
			}
			checkKnobs(t, "after SIGKILL and kdelta "+next[0], knobs)
			if js := journalsIn(jdir); len(js) != 0 {
				t.Errorf("journal left after recovery: %v", js)
			}
		})
	}
}
