package stats

import (
	"math"
	"testing"
)

func TestNum(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{{0, "0.000"}, {1.23456, "1.235"}, {12.345, "12.35"}, {123.45, "123.5"}, {1234.5, "1,234"},
		{-1234567, "-1,234,567"}, {0.000123, "0.000123"}, {130600, "130,600"}} {
		if got := Num(tt.v); got != tt.want {
			t.Errorf("Num(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
	for _, tt := range []struct {
		v    float64
		want string
	}{{0, "0"}, {12.4, "12"}, {999.6, "1,000"}, {3080508, "3,080,508"}, {-1234.4, "-1,234"}} {
		if got := WholeNum(tt.v); got != tt.want {
			t.Errorf("WholeNum(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// TestParsePercent checks the percentages --threshold and --min-change
// take: with or without %, as a fraction; nothing else.
func TestParsePercent(t *testing.T) {
	for in, want := range map[string]float64{"1%": 0.01, "1": 0.01, " 0.5% ": 0.005, "250%": 2.5} {
		if got, err := ParsePercent(in); err != nil || math.Abs(got-want) > 1e-15 {
			t.Errorf("ParsePercent(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "%", "0", "-1%", "1000", "x", "1%%"} {
		if got, err := ParsePercent(in); err == nil {
			t.Errorf("ParsePercent(%q) = %v, want an error", in, got)
		}
	}
}
