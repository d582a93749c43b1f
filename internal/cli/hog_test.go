package cli_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kdelta/kdelta/internal/cli"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/testenv"
)

// TestCompareDetectsCPUHog takes two result sets of messaging on one CPU,
// the second with a busy process pinned to the same CPU, and checks that
// compare calls the second regressed.
func TestCompareDetectsCPUHog(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Skip(t, "the hogs run at nice -10, which needs root: skipped")
	}
	allowed, err := sys.Affinity(0)
	if err != nil {
		t.Fatal(err)
	}
	cpu := sys.FormatCPUList(allowed[len(allowed)-1:])
	dir := t.TempDir()
	ownStore(t)
	run := func(out string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args := []string{"run", "messaging:groups=1,loops=100", "syscall:calls=50000", "-r", "5", "--cpus", cpu, "--counters", "none", "--monitor", "none", "-o", filepath.Join(dir, out)}
		if code := cli.Main(context.Background(), args, &stdout, &stderr); code != 0 {
			t.Fatalf("kdelta %v: exit %d: %s", args, code, stderr.String())
		}
	}
	run("a.json")
	// The host's session noise, calibrated as the runs run; then b, a
	// session of its own.
	code, noise, errs := kd(t, "calibrate", "messaging:groups=1,loops=100", "syscall:calls=50000", "--sessions", "3", "-r", "5", "--cpus", cpu)
	if code != 0 {
		t.Fatalf("calibrate: exit %d: %s", code, errs)
	}
	t.Log(noise)
	// kdelta env lists this host's noises.
	if _, env, _ := kd(t, "env"); !strings.Contains(env, "session noise on") || !strings.Contains(env, "syscall:calls=50000") {
		t.Errorf("env lacks the session noise:\n%s", env)
	}
	// The hog: a shell spinning in a loop at nice -10, confined to the
	// same CPU. At the default nice the woken messaging tasks preempt a
	// hog almost at once and the slowdown drowns in noise; at -10 the hog
	// weighs about nine times a messaging task.
	hog := exec.Command("nice", "-n", "-10", "taskset", "-c", cpu, "sh", "-c", "while :; do :; done")
	if err := hog.Start(); err != nil {
		testenv.Skipf(t, "nice or taskset not available: %v", err)
	}
	var once sync.Once
	stop := func() { once.Do(func() { hog.Process.Kill(); hog.Wait() }) }
	defer stop()
	run("b.json")
	stop()

	var stdout, stderr bytes.Buffer
	args := []string{"compare", filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), "--format", "csv"}
	if code := cli.Main(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr.String())
	}
	recs, err := csv.NewReader(strings.NewReader(stdout.String())).ReadAll()
	if err != nil {
		t.Fatalf("compare --format csv: %v", err)
	}
	verdicts := map[string]string{}
	for _, f := range recs {
		if len(f) > 17 && (f[2] == "time" || f[2] == "ns/call") && f[5] == "b" {
			verdicts[f[0]] = f[17]
		}
	}
	// Two runs of kdelta are two sessions, judged with the host's session
	// noise. The syscall loop, CPU-bound beside a hog of nine times its
	// weight, is some ten times slower (+900 to +1000% here): far beyond
	// any session noise. Messaging slows by a third to two thirds, which a
	// loaded shared host's messaging sessions (±16% between them measured
	// once here) can hide: not improved, then.
	if verdicts["syscall"] != "regressed" || verdicts["messaging"] == "improved" {
		t.Errorf("with CPU hogs, one session each, calibrated: verdicts %v, want syscall regressed\n%s", verdicts, stdout.String())
	}
	// --fail-on regression turns the verdict into exit status 1.
	args = append(args[:3], "--fail-on", "regression")
	if code := cli.Main(context.Background(), args, &stdout, &stderr); code != 1 {
		t.Errorf("compare --fail-on regression: exit %d, want 1", code)
	}
	// Without the calibration (another store), the prior session noise
	// stands in, and the verdict names it.
	ownStore(t)
	if _, out, _ := kd(t, "compare", args[1], args[2]); !strings.Contains(strings.Join(strings.Fields(out), " "), "assumed for a virtual machine") {
		t.Errorf("uncalibrated:\n%s", out)
	}
}
