package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/golden"

	"github.com/kdelta/kdelta/internal/result"
)

func TestShowGolden(t *testing.T) {
	s, err := result.Load("testdata/set.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		opt  ShowOptions
	}{{"show.golden", ShowOptions{}}, {"show-runs.golden", ShowOptions{Runs: true}}} {
		var b bytes.Buffer
		Show(&b, s, tt.opt)
		golden.Check(t, tt.name, b.Bytes())
		for i, line := range strings.Split(b.String(), "\n") {
			if len([]rune(line)) > 100 {
				t.Errorf("%s line %d is %d columns: %q", tt.name, i+1, len([]rune(line)), line)
			}
		}
	}
}

// TestShowSessions says how many sessions a benchmark's runs come from
// when they are several (vm --boots), and nothing for the one of a run.
func TestShowSessions(t *testing.T) {
	s, err := result.Load("testdata/set.json")
	if err != nil {
		t.Fatal(err)
	}
	var one bytes.Buffer
	Show(&one, s, ShowOptions{})
	if strings.Contains(one.String(), "sessions)") {
		t.Errorf("one session said:\n%s", one.String())
	}
	b := s.Benchmarks[0]
	for i, r := range b.Runs {
		r.Session = []string{"boot 0", "boot 1", "boot 2"}[i%3]
	}
	var three bytes.Buffer
	Show(&three, s, ShowOptions{})
	if !strings.Contains(three.String(), "\n  (runs in 3 sessions)\n") {
		t.Errorf("three sessions not said:\n%s", three.String())
	}
}
