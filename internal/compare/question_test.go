package compare

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// TestQuestionSettled is the one rule of "is this question settled, run
// more?" on each kind of verdict and design.
func TestQuestionSettled(t *testing.T) {
	measured := stats.SessionNoise{SD: 0.05, MeanSD: 0.05, DF: 9}
	apart := func(k int) stats.Design { return stats.Design{Sessions: [2]int{k, k}, Runs: [2]int{5 * k, 5 * k}} }
	shared := stats.Design{Shared: true, Sessions: [2]int{1, 1}, Runs: [2]int{5, 5}}
	c := func(v stats.Verdict, d stats.Design, below bool) stats.Comparison {
		return stats.Comparison{A: stats.Summary{N: d.Runs[0]}, B: stats.Summary{N: d.Runs[1]}, Verdict: v, Design: d, BelowNoise: below}
	}
	withNoise := func(d stats.Design) stats.Design { d.Noise = measured; return d }
	step := &stats.ChangePoint{Index: 1, Change: 0.06}
	for _, tt := range []struct {
		name          string
		q             Question
		settled, open bool
	}{
		{"regressed", Question{Comparison: c(stats.Regressed, shared, false)}, true, false},
		{"improved", Question{Comparison: c(stats.Improved, apart(1), false)}, true, false},
		{"~", Question{Comparison: c(stats.NoChange, apart(1), false)}, true, false},
		{"~ where a change point is", Question{Comparison: c(stats.NoChange, apart(3), false), Step: step}, false, true},
		{"inconclusive", Question{Comparison: c(stats.Inconclusive, shared, false)}, false, true},
		{"not compared", Question{Why: "no measured values"}, false, false},
		{"one session a side, two needed", Question{Comparison: c(stats.Improved, apart(1), false), MinSessions: 2}, false, true},
		{"two sessions a side, two needed", Question{Comparison: c(stats.Improved, apart(2), false), MinSessions: 2}, true, false},
		{"shared, two needed", Question{Comparison: c(stats.Improved, shared, false), MinSessions: 2}, true, false},
		{"far below a stated noise", Question{Comparison: c(stats.Inconclusive, withNoise(apart(1)), true)}, false, false},
		{"far below the sides' own noise only", Question{Comparison: c(stats.Inconclusive, apart(2), true)}, false, true},
		{"far below, too few sessions", Question{Comparison: c(stats.Inconclusive, withNoise(apart(1)), true), MinSessions: 2}, false, true},
		{"below the noise in one session", Question{Comparison: c(stats.Inconclusive, shared, true)}, false, true},
	} {
		if got := tt.q.Settled(); got != tt.settled {
			t.Errorf("%s: settled %v, want %v", tt.name, got, tt.settled)
		}
		if got := tt.q.Open(); got != tt.open {
			t.Errorf("%s: open %v, want %v", tt.name, got, tt.open)
		}
	}
}

// TestVersusFirst checks the one "each variant against the first": each
// later set's benchmark against its counterpart in the first, the same
// figures as kdelta compare's row, under the host's session noise when
// known and the prior otherwise, and a question with its reason for a
// benchmark that could not be compared.
func TestVersusFirst(t *testing.T) {
	base := []float64{100, 101, 99, 100, 102, 100, 101, 99}
	slow := []float64{120, 121, 119, 120, 122, 120, 121, 119}
	host := func(*result.Set, *result.Benchmark, string) stats.SessionNoise {
		return stats.SessionNoise{SD: 0.03, MeanSD: 0.03, Runs: 8, DF: 7}
	}
	a := sessionSet(nil, nil, []string{"a"}, base...)
	b := sessionSet(nil, nil, []string{"b"}, slow...)
	skipped := sessionSet(nil, nil, []string{"c"})
	skipped.Benchmarks[0].Skipped = "needs root"
	for _, tt := range []struct {
		name   string
		noise  func(*result.Set, *result.Benchmark, string) stats.SessionNoise
		source stats.NoiseSource
		want   stats.Verdict
	}{
		{"the host's noise", host, stats.NoiseMeasured, stats.Regressed},
		{"the prior", nil, stats.NoisePrior, stats.Inconclusive},
	} {
		opt := Options{Noise: tt.noise}
		qs := VersusFirst([]*result.Set{a, b, skipped}, opt, Asking{})
		if len(qs) != 2 {
			t.Fatalf("%s: %d questions, want 2", tt.name, len(qs))
		}
		r, err := Compare([]Input{{"A", a}, {"B", b}}, opt)
		if err != nil {
			t.Fatal(err)
		}
		q, row := qs[0], r.Rows[0].Vs[0]
		if q.Baseline != 0 || q.Candidate != 1 || q.Metric != "ns/call" || q.Bench != "syscall calls=10" {
			t.Errorf("%s: question %+v", tt.name, q)
		}
		if q.Comparison.Verdict != tt.want || q.Comparison.Verdict != row.Verdict || q.Comparison.CI != row.CI || q.Comparison.Design.Noise.Source != tt.source {
			t.Errorf("%s: %s %v (noise %q), compare's row %s %v; want %s under %q", tt.name, q.Comparison.Verdict, q.Comparison.CI,
				q.Comparison.Design.Noise.Source, row.Verdict, row.CI, tt.want, tt.source)
		}
		if s := qs[1]; s.Candidate != 2 || s.Comparison.A.N != 0 || s.Why != "skipped: needs root" || s.Settled() || s.Open() {
			t.Errorf("%s: skipped benchmark's question %+v", tt.name, s)
		}
	}
	// A metric of none asks nothing.
	if qs := VersusFirst([]*result.Set{a, b}, Options{}, Asking{Metric: func(*result.Benchmark) string { return "" }}); len(qs) != 0 {
		t.Errorf("no metric: %d questions", len(qs))
	}
}

// TestOneSettled walks the module's Go source: "is this question
// settled?" has one body, Question.Settled, and the stopping rules of old
// (history.Neighbour.Clear, job.Pending, vm's few-boots test) are gone.
func TestOneSettled(t *testing.T) {
	root := filepath.Join("..", "..")
	var settled []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			switch name := fn.Name.Name; {
			case name == "Settled", name == "Clear" && fn.Recv != nil && recvName(fn) == "Neighbour", name == "Pending" && f.Name.Name == "job":
				settled = append(settled, path+": "+recvName(fn)+"."+name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(settled) != 1 || !strings.HasSuffix(settled[0], filepath.Join("internal", "compare", "question.go")+": Question.Settled") {
		t.Errorf("definitions of settled: %q, want Question.Settled in internal/compare alone", settled)
	}
}

// recvName is the type of fn's receiver, "" for a function.
func recvName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// TestQuestionSide checks bisect-run's question with a bad set: the
// interval against the geometric midpoint of the step to bad, oriented by
// the metric's direction; settled on either side, open astride it.
func TestQuestionSide(t *testing.T) {
	up := &stats.Comparison{Change: 1}      // a time doubled: the midpoint is +41.4%
	down := &stats.Comparison{Change: -0.5} // a rate halved: the midpoint is -29.3%
	for _, tt := range []struct {
		name   string
		ci     [2]float64
		toward *stats.Comparison
		better stats.Better
		side   int
	}{
		{"time near good", [2]float64{0.05, 0.2}, up, stats.Lower, -1},
		{"time near bad", [2]float64{0.6, 0.9}, up, stats.Lower, 1},
		{"time astride", [2]float64{0.2, 0.6}, up, stats.Lower, 0},
		{"rate near good", [2]float64{-0.1, -0.05}, down, stats.Higher, -1},
		{"rate near bad", [2]float64{-0.6, -0.4}, down, stats.Higher, 1},
		{"unbounded", [2]float64{-1, 0.1}, up, stats.Lower, 0},
	} {
		q := Question{Comparison: stats.Comparison{A: stats.Summary{N: 5}, CI: tt.ci, Verdict: stats.Inconclusive}, Toward: tt.toward, Better: tt.better}
		if got := q.Side(); got != tt.side {
			t.Errorf("%s: side %d, want %d", tt.name, got, tt.side)
		}
		if q.Settled() != (tt.side != 0) {
			t.Errorf("%s: settled %v with side %d", tt.name, q.Settled(), tt.side)
		}
	}
	if m := (Question{Toward: up}).Midpoint(); math.Abs(m-(math.Sqrt2-1)) > 1e-12 {
		t.Errorf("midpoint of +100%%: %v, want +41.4%%", m)
	}
}
