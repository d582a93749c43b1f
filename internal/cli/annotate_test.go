package cli_test

import (
	"math"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/cli"
	kprofile "github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/testenv"
)

// annotatedRow is a line of profile annotate: share, samples, offset.
var annotatedRow = regexp.MustCompile(`^\s+(\d+\.\d+)%\s+(\d+)\s+(0x[0-9a-f]+)\s+(.*)$`)

// TestProfileAnnotate is issue 18's annotate acceptance: kdelta run
// syscall --profile (the built binary, whose symbols perf can name), then
// profile annotate of the hottest kernel symbol and of the hottest user
// one (which perf annotate disassembles) shows instructions whose shares
// add up to 100% ± 1 and whose samples add up to the symbol's in the
// profile's table; --diff of the run's two profiles lines them up; a
// symbol not in the profile, or a set without annotations, is one line
// and exit 2.
func TestProfileAnnotate(t *testing.T) {
	if err := kprofile.Check(kprofile.Options{}); err != nil {
		testenv.Skipf(t, "perf cannot record here: %v", err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	if msg, err := exec.Command(kdeltaBinary(t), "run", "syscall:calls=1500000", "--profile", "--profile-runs", "2", "-r", "1", "--warmup", "0",
		"-o", out, "--no-store").CombinedOutput(); err != nil {
		t.Fatalf("kdelta run: %v: %s", err, msg)
	}
	set, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	// Each profile a set of its own: A and B.
	refs := make([]string, 2)
	for i := range refs {
		s := *set
		b := *set.Benchmarks[0]
		b.Profiles = b.Profiles[i : i+1]
		s.Benchmarks = []*result.Benchmark{&b}
		refs[i] = filepath.Join(dir, string(rune('a'+i))+".json")
		if err := result.Save(refs[i], &s); err != nil {
			t.Fatal(err)
		}
	}
	p := set.Benchmarks[0].Profiles[0]
	kernel, user := hottest(p, true), hottest(p, false)
	userText := map[string]string{} // offset → instruction, as perf annotate gave it
	for _, sym := range []string{kernel, user} {
		code, stdout, stderr := profileCmd(t, "profile", "annotate", refs[0], sym)
		if code != 0 {
			t.Fatalf("annotate %s: exit %d: %s", sym, code, stderr)
		}
		var pct float64
		var n int64
		text := 0
		for _, l := range strings.Split(stdout, "\n") {
			if m := annotatedRow.FindStringSubmatch(l); m != nil {
				v, _ := strconv.ParseFloat(m[1], 64)
				k, _ := strconv.ParseInt(m[2], 10, 64)
				pct, n = pct+v, n+k
				if m[4] != "?" {
					text++
				}
				if sym == user {
					userText[m[3]] = m[4]
				}
			}
		}
		want := samplesOf(p, sym)
		if math.Abs(pct-100) > 1 || math.Abs(float64(n-want)) > 0.01*float64(want) {
			t.Errorf("annotate %s: shares add up to %.2f%%, samples to %d (the table's %d)\n%s", sym, pct, n, want, stdout)
		}
		if sym == user && text == 0 {
			t.Errorf("annotate %s: no instruction text\n%s", sym, stdout)
		}
		t.Logf("%s: %.2f%% over %d samples, %d instructions with text", sym, pct, n, text)
	}

	code, stdout, stderr := profileCmd(t, "profile", "annotate", refs[0], user, "--diff", refs[1], "--top", "0")
	if code != 0 || !strings.Contains(stdout, "lines ranked") {
		t.Fatalf("--diff: exit %d: %s\n%s", code, stderr, stdout)
	}
	diffRow := regexp.MustCompile(`^\s+(-|\d+\.\d+%)\s+(-|\d+\.\d+%)\s+([-+]\d+\.\d+)\s+(\S+)/(\S+)\s+(.*)$`)
	rows, lined := 0, 0
	prev := math.Inf(1)
	for _, l := range strings.Split(stdout, "\n") {
		m := diffRow.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		rows++
		d, _ := strconv.ParseFloat(m[3], 64)
		if math.Abs(d) > prev+0.005 {
			t.Errorf("--diff: %q ranked after a change of %.2f", l, prev)
		}
		prev = math.Abs(d)
		// Same binary on both sides: a line in both is at one offset.
		if m[1] != "-" && m[2] != "-" {
			lined++
			if m[4] != m[5] {
				t.Errorf("--diff: %q lined up at two offsets", l)
			}
		}
	}
	if rows == 0 || lined == 0 {
		t.Errorf("--diff: %d rows, %d lined up\n%s", rows, lined, stdout)
	}

	// The user symbol kept with offsets only, as a kernel without vmlinux
	// is: --vmlinux (here the binary itself) disassembles it with
	// objdump, to the instructions perf annotate showed at those offsets.
	bare := *set
	bb := *set.Benchmarks[0]
	bb.Profiles = []result.Profile{p}
	bare.Benchmarks = []*result.Benchmark{&bb}
	var anns []result.ProfileAnnotation
	for _, a := range p.Annotations {
		if a.Symbol == user {
			var lines []result.AnnotatedLine
			for _, l := range a.Lines {
				if !l.Source && l.Samples > 0 {
					lines = append(lines, result.AnnotatedLine{Offset: l.Offset, Samples: l.Samples})
				}
			}
			a.Lines, a.Source, a.NoText = lines, "perf script", "kept without text for the test"
			anns = append(anns, a)
		}
	}
	bb.Profiles[0].Annotations = anns
	bareRef := filepath.Join(dir, "bare.json")
	if err := result.Save(bareRef, &bare); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = profileCmd(t, "profile", "annotate", bareRef, user, "--vmlinux", kdeltaBinary(t))
	if code != 0 {
		t.Fatalf("--vmlinux: exit %d: %s", code, stderr)
	}
	matched := 0
	for _, l := range strings.Split(stdout, "\n") {
		if m := annotatedRow.FindStringSubmatch(l); m != nil {
			if want := userText[m[3]]; m[4] != want {
				t.Errorf("--vmlinux: %s at %s, perf annotate showed %q", m[4], m[3], want)
			}
			matched++
		}
	}
	if matched == 0 {
		t.Errorf("--vmlinux: no sampled instruction shown\n%s", stdout)
	}
	code, _, stderr = profileCmd(t, "profile", "annotate", refs[0], "no_such_symbol_zz")
	if code != cli.ExitUsage || !strings.Contains(stderr, "no symbol no_such_symbol_zz") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("a symbol not in the profile: exit %d, %q", code, stderr)
	}
	s := *set
	b := *set.Benchmarks[0]
	b.Profiles = []result.Profile{p}
	b.Profiles[0].Annotated, b.Profiles[0].Annotations = false, nil
	s.Benchmarks = []*result.Benchmark{&b}
	old := filepath.Join(dir, "old.json")
	if err := result.Save(old, &s); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = profileCmd(t, "profile", "annotate", old, kernel)
	if code != cli.ExitUsage || !strings.Contains(stderr, "kdelta run --profile") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("a set recorded before annotations: exit %d, %q", code, stderr)
	}
}

// hottest is the symbol of p's table, kernel or not, with most samples.
func hottest(p result.Profile, kernel bool) string {
	best := ""
	for _, s := range p.Symbols {
		if s.Kernel == kernel && (best == "" || samplesOf(p, s.Symbol) > samplesOf(p, best)) {
			best = s.Symbol
		}
	}
	return best
}

// samplesOf sums a symbol's rows of p's table over commands.
func samplesOf(p result.Profile, sym string) int64 {
	var n int64
	for _, s := range p.Symbols {
		if s.Symbol == sym {
			n += s.Samples
		}
	}
	return n
}
