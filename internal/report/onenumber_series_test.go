package report

import (
	"bytes"
	"fmt"
	mrand "math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/history"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/vm"
)

// commitSet is one commit of a series kdelta built (vm.Series), measured over boots
// runs at a time around centre (a boot's centre spread by 3%, its runs by
// 1%), each boot a session of its own, as Series.Run brings it home,
// under TCG when emulated.
func commitSet(i int, hash, subject string, boots int, centre float64, emulated bool, seed uint64) *result.Set {
	rng := mrand.New(mrand.NewPCG(seed, 0x6f6e65))
	m := result.Metric{Name: "ns/call", Unit: "ns", Better: result.Lower}
	b := &result.Benchmark{Workload: "syscall", Params: map[string]string{"calls": "20000"}, Metrics: []result.Metric{m}}
	at := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	for s := range boots {
		c := centre * (1 + 0.03*rng.NormFloat64())
		for r := range 3 {
			b.Runs = append(b.Runs, &result.Run{Index: 3*s + r, Start: at, Status: result.StatusOK, Session: fmt.Sprintf("%s boot %d", hash, s),
				Values: map[string]float64{m.Name: c * (1 + 0.01*rng.NormFloat64())}})
		}
	}
	set := &result.Set{Schema: result.Schema, ID: fmt.Sprintf("set-%d", i), Created: at, Complete: true, Benchmarks: []*result.Benchmark{b},
		Labels: map[string]string{"build": fmt.Sprintf("#%d %s", i+1, hash), vm.LabelCommit: hash, vm.LabelSubject: subject}}
	if emulated {
		set.Warnings = []string{vm.TCGWarning}
	}
	return set
}

// TestOneNumberPerStep is issue 34's one number a change for kdelta
// series over commits: the step's marker in the history carries no
// figure of its own, only the verdict, and that verdict is the step
// line's, whose change is the comparison of the two commits (Point.Versus,
// computed once); under TCG both say so. A series whose marker printed
// the change point's segment means (+900%) beside a step line's pair
// change (+1571%) fails here.
func TestOneNumberPerStep(t *testing.T) {
	for _, emulated := range []bool{false, true} {
		t.Run(fmt.Sprintf("emulated=%v", emulated), func(t *testing.T) {
			var sets []*result.Set
			for i, c := range []struct {
				hash, subject string
				centre        float64
			}{
				{"aaaaaaaaaaaa", "base", 1000},
				{"bbbbbbbbbbbb", "a comment", 1010},
				{"cccccccccccc", "sys: wait in getppid", 9000},
				{"dddddddddddd", "a comment after it", 8900},
			} {
				sets = append(sets, commitSet(i, c.hash, c.subject, 3, c.centre, emulated, uint64(i+1)))
			}
			sr := &vm.Series{Sets: sets, ChangePoints: stats.DefaultChangePointOptions()}
			var err error
			if sr.History, err = history.Across(sets, "build", sr.ChangePoints); err != nil {
				t.Fatal(err)
			}
			for _, h := range sr.History {
				h.Judge(sets, compare.Options{})
			}
			var b bytes.Buffer
			if err := WriteSeriesRun(&b, sr); err != nil {
				t.Fatal(err)
			}
			WriteCommitSteps(&b, sr.Commits(compare.Options{}))
			out := b.String()
			marker := regexp.MustCompile(`(?m)^  #3 cccccccccccc .*<< step(.*)$`).FindStringSubmatch(out)
			steps := regexp.MustCompile(`(?m)^step at commit cccccccccccc .* ns/call (\S+) \[\S+, \S+\] against bbbbbbbbbbbb \(a comment\), (.*); design: `).FindAllStringSubmatch(out, -1)
			if marker == nil || len(steps) != 1 || strings.Count(out, "<< step") != 1 {
				t.Fatalf("want one step, at #3, with its marker and one step line:\n%s", out)
			}
			if strings.Contains(marker[1], "%") {
				t.Errorf("the marker %q prints a figure of its own beside the step line's %s", marker[1], steps[0][1])
			}
			n := sr.History[0].Points[2].Versus
			if n == nil || n.Comparison.A.N == 0 {
				t.Fatalf("the step's comparison is not on its point: %+v", n)
			}
			if d := n.Comparison.Design; d.Shared || d.Sessions != [2]int{3, 3} {
				t.Errorf("design %+v, want the two commits' 3 boots each as separate sessions", d)
			}
			if want := VerdictText(n.Comparison); marker[1] != ": "+want || steps[0][2] != want {
				t.Errorf("marker %q and step line %q, want both the comparison's verdict %q", marker[1], steps[0][2], want)
			}
			if steps[0][1] != fmt.Sprintf("%+.1f%%", 100*n.Comparison.Change) || n.Comparison.Verdict != stats.Regressed {
				t.Errorf("step line's change %s, verdict %s; want the comparison's %+.1f%%, regressed", steps[0][1], n.Comparison.Verdict, 100*n.Comparison.Change)
			}
			if got := strings.Contains(marker[1], EmulatedText) && strings.Contains(steps[0][2], EmulatedText); got != emulated {
				t.Errorf("emulated %v, but the marker %q and step line %q say TCG: %v", emulated, marker[1], steps[0][2], got)
			}
		})
	}
}
