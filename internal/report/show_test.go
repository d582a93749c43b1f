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

func TestNum(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{{0, "0.000"}, {1.23456, "1.235"}, {12.345, "12.35"}, {123.45, "123.5"}, {1234.5, "1,234"},
		{-1234567, "-1,234,567"}, {0.000123, "0.000123"}} {
		if got := Num(tt.v); got != tt.want {
			t.Errorf("Num(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
