package cli_test

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// TestRunUntilConclusiveSessions is issue 15's scope point 5: kdelta run
// --until-conclusive against a baseline of another session, with the
// host's session noise known, adds sessions when the session level is
// what limits the verdict, and says which design it judged.
//
// The runs are real, pinned to one CPU under SCHED_FIFO as in
// TestRunUntilConclusive. The host's noise is set, not measured, so that
// the case is the same on a quiet machine and a busy one: kdelta
// calibrate --from four A/A sets made from a real one, their sessions
// apart by ±9% (a session noise of about 7%, 3 degrees of freedom). The
// baseline is the real set 30% slower. One session each cannot tell a
// 23% change from two sessions' difference at that noise (its interval
// is some ±30%); two or three sessions of the run can.
func TestRunUntilConclusiveSessions(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	const spec = "syscall:calls=20000"
	first := filepath.Join(dir, "first.json")
	pin := pinnedRun(t, spec, first, "--no-store")
	// planted is the first set as a set (and a session) of its own whose
	// runs are its median time f times longer, ±1% from run to run: the
	// sessions' spread is the offsets', whatever the real runs' was (one
	// slow run among five made the runs' spread swamp ±9% once).
	planted := func(name string, f float64) string {
		s, err := result.Load(first)
		if err != nil {
			t.Fatal(err)
		}
		s.ID += "-" + strings.TrimSuffix(name, ".json")
		for _, b := range s.Benchmarks {
			med := stats.Summarize(b.Values("ns/call")).Median
			for i, r := range b.Runs {
				ns := med * f * (1 + 0.01*float64(i%3-1))
				r.Values["ns/call"] = ns
				r.Values["calls/s"] = 1e9 / ns
				r.Session = s.ID
			}
		}
		p := filepath.Join(dir, name)
		if err := result.Save(p, s); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cal := []string{"calibrate"}
	for i, off := range []float64{0, 0.09, -0.09, 0.02} {
		cal = append(cal, "--from", planted(fmt.Sprintf("aa%d.json", i), math.Exp(off)))
	}
	if code, stdout, stderr := runKdelta(cal...); code != 0 {
		t.Fatalf("calibrate --from: exit %d: %s", code, stderr)
	} else {
		t.Logf("kdelta calibrate --from:\n%s", stdout)
	}
	slow, out := planted("slow.json", 1.3), filepath.Join(dir, "out.json")
	code, stdout, stderr := runKdelta(append([]string{"run", spec, "-r", "5",
		"--until-conclusive", "--baseline", slow, "--max-runs", "20", "-o", out}, pin...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Logf("kdelta run --until-conclusive:\n%s", stdout)
	s, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	b := s.Benchmarks[0]
	_, sessions := b.SessionValues("ns/call")
	// The planted change is 23%. On a shared VM the machine can change
	// between the first set and the run by more than that (CI runs saw
	// the run 29%, 37% and 48% faster than the baseline, the first set
	// having been measured under load): then one session rightly
	// suffices, and the stop must still agree with the evidence it
	// prints. At the planted noise (±7% a session, 3 degrees of freedom)
	// one session against one has an interval of about ±32% in log
	// terms, so a change of some 27.5% or more is decided by one session
	// and a change near the planted 23% is not. The escape asks for both:
	// a change past 27% and a printed interval that excludes zero.
	if m := regexp.MustCompile(`stopped after \d+ runs: improved \(ns/call -(\d+\.\d)% \[-\d+\.\d%, (-\d+\.\d)%\]`).FindStringSubmatch(stdout); m != nil && len(sessions) == 1 {
		pct, _ := strconv.ParseFloat(m[1], 64)
		hi, _ := strconv.ParseFloat(m[2], 64)
		if pct >= 27 && hi < 0 {
			t.Logf("the run is %.1f%% faster than the 30%%-slower baseline (interval up to %.1f%%): the machine sped up since the first set, and one session decided it", pct, hi)
			return
		}
	}
	if len(sessions) < 2 || !s.Complete {
		t.Errorf("the set has %d sessions (%q), complete %v; want more than one", len(sessions), sessions, s.Complete)
	}
	// Every session opens with its warm-up.
	warm := map[string]bool{}
	for i, r := range b.Runs {
		if r.Warmup {
			warm[r.Session] = true
		} else if !warm[r.Session] {
			t.Errorf("run %d of session %q before the session's warm-up", i, r.Session)
		}
	}
	// The stop names the design: the baseline's one session against the
	// run's sessions, with the host's noise.
	re := regexp.MustCompile(`(?m)^until-conclusive: syscall calls=20000,soak=0s,syscall=getppid: ` +
		`(stopped after \d+ runs: improved|reached --max-runs 20: inconclusive.*) ` +
		fmt.Sprintf(`\(ns/call .* vs baseline, 5 runs × 1 session vs ≈?[\d.]+ runs × %d sessions, session noise ±\d+\.\d%%\)$`, len(sessions)))
	if !re.MatchString(stdout) {
		t.Errorf("stdout does not match %s:\n%s", re, stdout)
	}
	// kdelta compare judges the two sets as the loop did.
	if code, cmp, stderr := runKdelta("compare", slow, out); code != 0 {
		t.Errorf("compare: exit %d: %s", code, stderr)
	} else if flat := strings.Join(strings.Fields(cmp), " "); !strings.Contains(flat, fmt.Sprintf("× %d sessions, session noise ±", len(sessions))) {
		t.Errorf("compare does not name the design of %d sessions:\n%s", len(sessions), cmp)
	}
}
