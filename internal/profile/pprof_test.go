package profile

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/testenv"
)

// TestPprofOpens is acceptance 3: the export opens with go tool pprof -top,
// from call stacks (perf script of a -g recording) and from a symbol table
// (seed 004's pasted report).
func TestPprofOpens(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		testenv.Skip(t, "go not in PATH: cannot run go tool pprof")
	}
	stacks, err := ParseScript("g", readTestdata(t, "perf-script-syscall-g.txt"))
	if err != nil {
		t.Fatal(err)
	}
	table, err := ParseReport("seed", readTestdata(t, "seed004-after.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		p     *result.Profile
		total int64
		want  string // a function -top lists
	}{
		{"stacks", stacks, stacks.Samples, "do_syscall_64"},
		{"table", table[0], sumSamples(table[0]), "__task_pid_nr_ns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			skipped, err := WritePprof(&buf, tc.name, []Group{{Name: tc.name, Profiles: []*result.Profile{tc.p}}})
			if err != nil || skipped != nil {
				t.Fatal(err, skipped)
			}
			// The file reads back with its samples.
			pp, err := profile.Parse(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			var total int64
			for _, s := range pp.Sample {
				total += s.Value[0]
			}
			if total != tc.total {
				t.Errorf("pprof holds %d samples, want %d", total, tc.total)
			}
			if tc.p.CallGraph {
				deep := 0
				for _, s := range pp.Sample {
					if len(s.Location) > 1 {
						deep++
					}
				}
				if deep == 0 {
					t.Error("no call stacks in the export")
				}
			}
			path := filepath.Join(t.TempDir(), "p.pb.gz")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(goBin, "tool", "pprof", "-top", path).CombinedOutput()
			if err != nil {
				t.Fatalf("go tool pprof -top: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), tc.want) {
				t.Errorf("go tool pprof -top does not list %s:\n%s", tc.want, out)
			}
		})
	}
}

func sumSamples(p *result.Profile) int64 {
	var n int64
	for _, s := range p.Symbols {
		n += s.Samples
	}
	return n
}

func TestPprofRefuses(t *testing.T) {
	for _, p := range []*result.Profile{{Unavailable: "perf not found"}, {}} {
		if _, err := Pprof(p); err == nil {
			t.Errorf("exported %+v", p)
		}
	}
}
