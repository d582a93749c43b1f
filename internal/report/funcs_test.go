package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/golden"
	"github.com/kdelta/kdelta/internal/result"
)

// TestFuncTables renders two result sets of a kdelta vm guest of Debian's
// 6.1 kernel, booted as is and with rcupdate.rcu_expedited=1, each with
// bridge and rcu under --funclatency synchronize_rcu (testdata/funcs): the
// comparison in text and Markdown carries seed mail 002's "Per-
// synchronize_rcu() latency (in usec)" table, a column per set, and show
// the calls with their histogram. The figures are checked apart from the
// goldens: the table's median is the median of all calls of the set.
func TestFuncTables(t *testing.T) {
	var ins []compare.Input
	for _, f := range []string{"testdata/funcs/default.json", "testdata/funcs/expedited.json"} {
		s, err := result.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, compare.Input{Name: s.Labels["variant"], Set: s})
	}
	r, err := compare.Compare(ins, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Functions) != 2 || r.Functions[0].Workload != "bridge" || r.Functions[0].Function != "synchronize_rcu" {
		t.Fatalf("function tables: %+v", r.Functions)
	}
	for _, ft := range r.Functions {
		for i, p := range ft.Sets {
			var all []float64
			for _, run := range ins[i].Set.Benchmarks[benchIndex(ins[i].Set, ft.Workload)].Measured() {
				all = append(all, run.Functions[0].Calls.Raw...)
			}
			if p.Calls != len(all) || !p.Pooled {
				t.Errorf("%s %s: %d calls pooled (%v), the runs hold %d", ft.Workload, letter(i), p.Calls, p.Pooled, len(all))
			}
		}
	}
	for _, f := range []string{"text", "markdown"} {
		var b bytes.Buffer
		if err := WriteCompare(&b, r, f); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "Per-synchronize_rcu() latency (in usec):") {
			t.Errorf("%s: no seed 002 table", f)
		}
		golden.Check(t, "funcs/compare."+f, b.Bytes())
	}
	var b bytes.Buffer
	Show(&b, ins[0].Set, ShowOptions{})
	golden.Check(t, "funcs/show.golden", b.Bytes())
}

func benchIndex(s *result.Set, workload string) int {
	for i, b := range s.Benchmarks {
		if b.Workload == workload {
			return i
		}
	}
	return -1
}

func TestUsNum(t *testing.T) {
	for v, want := range map[float64]string{37249.5: "37249.5", 15765: "15765", 7881.04: "7881", 42.78449: "42.784", 0.5: "0.500"} {
		if got := usNum(v); got != want {
			t.Errorf("usNum(%v) = %q, want %q", v, got, want)
		}
	}
}
