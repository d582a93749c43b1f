package cli_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/testenv"
)

// TestKillSwitchesMatchStressNG is issue 14's check that a run's resource
// usage covers every task of it: kill's voluntary and involuntary context
// switches per run (wait4 of the measured child, which reaps the instance,
// which reaps its helper) agree within 20% with what /usr/bin/time gives
// for stress-ng --kill 1 --kill-ops N, median of three interleaved pairs,
// both on one CPU: unpinned, both tools' counts swing between two modes
// (25,000 and 38,000 a run here) with where the helper lands.
// The helper's pause() makes most of the voluntary ones: when the kernel
// reaped the helper itself (SIGCHLD ignored) they went missing, 300
// against 35,000.
func TestKillSwitchesMatchStressNG(t *testing.T) {
	timeBin := testenv.NeedCommand(t, "/usr/bin/time", "time")
	testenv.NeedCommand(t, "stress-ng", "stress-ng")
	testenv.NeedCommand(t, "taskset", "util-linux")
	const ops = "20000"
	re := regexp.MustCompile(`vol (\d+) invol (\d+)`)
	var kd, ref [2][]float64
	for i := 0; i < 3; i++ {
		out, err := exec.Command(timeBin, "-f", "vol %w invol %c", "taskset", "-c", "1", "stress-ng", "--kill", "1", "--kill-ops", ops).CombinedOutput()
		m := re.FindSubmatch(out)
		if err != nil || m == nil {
			t.Fatalf("stress-ng under time: %v: %s", err, out)
		}
		for k := range 2 {
			v, _ := strconv.ParseFloat(string(m[k+1]), 64)
			ref[k] = append(ref[k], v)
		}
		path := filepath.Join(t.TempDir(), "kill.json")
		if out, err := exec.Command(kdeltaBinary(t), "run", "kill:instances=1,ops="+ops, "-r", "1", "--warmup", "0", "--cpus", "1",
			"--no-store", "--counters", "none", "--monitor", "none", "-o", path).CombinedOutput(); err != nil {
			t.Fatalf("kdelta run kill: %v: %s", err, out)
		}
		s, err := result.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		r := s.Benchmarks[0].Runs[0]
		kd[0], kd[1] = append(kd[0], float64(r.VolCtxSw)), append(kd[1], float64(r.InvolCtxSw))
	}
	for k, what := range []string{"voluntary", "involuntary"} {
		a, b := median(kd[k]), median(ref[k])
		t.Logf("%s switches per run: kdelta %.0f, stress-ng %.0f, ratio %.3f", what, a, b, a/b)
		if a/b < 0.8 || a/b > 1.2 {
			t.Errorf("%s switches: kdelta %.0f vs stress-ng %.0f (%v vs %v): not within 20%%", what, a, b, kd[k], ref[k])
		}
	}
}
