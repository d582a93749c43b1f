package job

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/knob"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/sysinfo"
	"github.com/kdelta/kdelta/internal/workload"
)

// TestMain makes the test binary the measured child runner re-executes.
func TestMain(m *testing.M) {
	if code, ok := runner.Hidden(os.Args[1:]); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// fakeKnobs makes a tree with one plain knob file, /sys/kernel/fake, and
// returns two variants that set it to 1 and 2.
func fakeKnobs(t *testing.T) (root string, vs []Variant) {
	t.Helper()
	root = t.TempDir()
	p := filepath.Join(root, "sys", "kernel", "fake")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"a:/sys/kernel/fake=1", "b:/sys/kernel/fake=2"} {
		v, err := ParseVariant(s)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	return root, vs
}

func quickSpecs(t *testing.T) []workload.Spec {
	t.Helper()
	sp, err := workload.ParseSpec("syscall:calls=2000")
	if err != nil {
		t.Fatal(err)
	}
	return []workload.Spec{sp}
}

// order lists the cells' measured and warm-up runs by start time.
func order(sets []*result.Set) string {
	type run struct {
		cell string
		r    *result.Run
	}
	var all []run
	for _, s := range sets {
		for _, b := range s.Benchmarks {
			for _, r := range b.Runs {
				all = append(all, run{s.Labels["variant"], r})
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].r.Start.Before(all[j].r.Start) })
	var b strings.Builder
	for _, r := range all {
		b.WriteString(r.cell)
	}
	return b.String()
}

func TestRunOrders(t *testing.T) {
	for _, tt := range []struct{ order, want string }{
		{"interleaved", "abababab"},
		{"blocks", "aaaabbbb"},
		{"random", ""},
	} {
		t.Run(tt.order, func(t *testing.T) {
			root, vs := fakeKnobs(t)
			cells := Cells(nil, vs, nil)
			sess, err := knob.Open(KnobGroups(cells), knob.Options{Root: root, JournalDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Restore()
			saves := 0
			opt := RunOptions{
				Runner: &runner.Options{Repeat: 3, Warmup: 1, Version: "test", Labels: map[string]string{"l": "1"}},
				Order:  tt.order, Seed: 7, Knobs: sess,
				Env:  func() (*sysinfo.Fingerprint, []string) { return &sysinfo.Fingerprint{Schema: "test"}, []string{"w"} },
				Save: func(int, *result.Set) error { saves++; return nil },
			}
			sets, err := Run(context.Background(), cells, quickSpecs(t), opt)
			if err != nil {
				t.Fatal(err)
			}
			got := order(sets)
			if tt.want != "" && got != tt.want {
				t.Errorf("order %s, want %s", got, tt.want)
			}
			for r := 0; r < len(got); r += 2 {
				if pair := got[r : r+2]; tt.order != "blocks" && pair != "ab" && pair != "ba" {
					t.Errorf("round %d ran %q: both variants belong in every round", r/2, pair)
				}
			}
			for i, s := range sets {
				want := []string{"1", "2"}[i]
				if !s.Complete || s.Labels["variant"] != vs[i].Name || s.Labels["sys.kernel.fake"] != want || s.Labels["l"] != "1" || s.Env == nil || len(s.Warnings) != 1 {
					t.Errorf("set %d: complete %v labels %v env %v warnings %v", i, s.Complete, s.Labels, s.Env, s.Warnings)
				}
				var idx []int
				for _, r := range s.Benchmarks[0].Runs {
					idx = append(idx, r.Index)
					if r.Status != result.StatusOK || r.Info[InfoPrefix+"sys.kernel.fake"] != want {
						t.Errorf("set %d run %d: %s %s, knob %q", i, r.Index, r.Status, r.Reason, r.Info[InfoPrefix+"sys.kernel.fake"])
					}
					// The cells alternate in one session, the first set's.
					if r.Session != sets[0].ID {
						t.Errorf("set %d run %d: session %q, want the shared %q", i, r.Index, r.Session, sets[0].ID)
					}
				}
				if len(idx) != 4 || idx[0] != 0 || idx[1] != 0 || idx[3] != 2 || !s.Benchmarks[0].Runs[0].Warmup {
					t.Errorf("set %d: run indexes %v", i, idx)
				}
			}
			if saves < 2+8 {
				t.Errorf("%d saves, want one per set and one per run", saves)
			}
			if err := sess.Restore(); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(root, "sys/kernel/fake")); string(b) != "0\n" {
				t.Errorf("knob after Restore: %q", b)
			}
		})
	}
}

func TestRunMoreAndInterrupt(t *testing.T) {
	root, vs := fakeKnobs(t)
	cells := Cells(nil, vs, nil)
	sess, err := knob.Open(KnobGroups(cells), knob.Options{Root: root, JournalDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Restore()
	asked := 0
	opt := RunOptions{
		Runner: &runner.Options{Repeat: 2, Version: "test"},
		Knobs:  sess,
		Until: runner.Until{MaxRuns: 4, MoreOf: func(sets []*result.Set) [][]bool {
			asked++
			return [][]bool{{true}, {true}}
		}},
	}
	sets, err := Run(context.Background(), cells, quickSpecs(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		if n := len(s.Benchmarks[0].Measured()); n != 4 {
			t.Errorf("%s: %d measured runs, want MaxRuns 4", s.Labels["variant"], n)
		}
	}
	// Asked after rounds 2, 3 and 4: the cap, not the question, ends it.
	if asked != 3 {
		t.Errorf("More asked %d times, want 3", asked)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt = RunOptions{
		Runner: &runner.Options{Repeat: 10, Version: "test"},
		Knobs:  sess,
		Save: func(i int, s *result.Set) error {
			if len(s.Benchmarks[0].Runs) == 2 {
				cancel()
			}
			return nil
		},
	}
	sets, err = Run(ctx, cells, quickSpecs(t), opt)
	if !errors.Is(err, runner.ErrInterrupted) {
		t.Fatalf("after cancel: %v", err)
	}
	if sets[0].Complete || len(sets[0].Benchmarks[0].Runs) > 3 {
		t.Errorf("interrupted set: complete %v, %d runs", sets[0].Complete, len(sets[0].Benchmarks[0].Runs))
	}
}

func TestCellsAndExpand(t *testing.T) {
	vs := []Variant{{Name: "a"}, {Name: "b"}}
	st, _ := knob.Parse("/sys/kernel/rcu_expedited=0")
	groups, _ := ParseAxis("groups=1,2")
	smt, _ := ParseAxis("smt=on,off")
	cells := Cells([]knob.Setting{st}, vs, []Axis{groups, smt})
	var names []string
	for _, c := range cells {
		names = append(names, c.Name)
	}
	if strings.Join(names, " ") != "a,smt=on b,smt=on a,smt=off b,smt=off" {
		t.Errorf("cells: %v", names)
	}
	c := cells[3]
	if len(c.Settings) != 2 || c.Labels["smt"] != "off" || c.Labels["variant"] != "b" || c.Labels["sys.kernel.rcu_expedited"] != "0" {
		t.Errorf("cell %s: settings %v labels %v", c.Name, c.Settings, c.Labels)
	}
	if one := Cells(nil, nil, nil); len(one) != 1 || one[0].Name != "" || len(one[0].Labels) != 0 {
		t.Errorf("no variants, no matrix: %+v", one)
	}

	specs := quickSpecs(t)
	msg, _ := workload.ParseSpec("messaging:loops=5")
	specs = append(specs, msg)
	mode, _ := ParseAxis("mode=thread,process")
	out, err := ExpandParams(specs, []Axis{groups, mode, smt})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, sp := range out {
		keys = append(keys, sp.Workload.Name()+":"+sp.Values["groups"]+sp.Values["mode"])
	}
	if strings.Join(keys, " ") != "syscall: messaging:1thread messaging:1process messaging:2thread messaging:2process" {
		t.Errorf("expanded: %v", keys)
	}
	bad, _ := ParseAxis("nosuch=1,2")
	if _, err := ExpandParams(specs, []Axis{bad}); err == nil || !strings.Contains(err.Error(), "--matrix nosuch: nosuch is neither a knob nor a parameter of syscall, messaging") {
		t.Errorf("unknown parameter axis: %v", err)
	}
	badv, _ := ParseAxis("groups=0")
	if _, err := ExpandParams(specs, []Axis{badv}); err == nil || !strings.Contains(err.Error(), "--matrix groups: workload messaging: parameter groups: bad value \"0\"") {
		t.Errorf("bad parameter value: %v", err)
	}
}
