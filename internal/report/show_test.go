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
