package sys

import (
	"reflect"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		bad  bool
	}{
		{in: "0", want: []int{0}},
		{in: "0-3", want: []int{0, 1, 2, 3}},
		{in: "0-1,8,10-11", want: []int{0, 1, 8, 10, 11}},
		{in: " 3,1,1 ", want: []int{1, 3}},
		{in: "", bad: true},
		{in: "a", bad: true},
		{in: "3-1", bad: true},
		{in: "-1", bad: true},
		{in: "1,,2", bad: true},
		{in: "99999", bad: true},
	}
	for _, tt := range tests {
		got, err := ParseCPUList(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("ParseCPUList(%q) = %v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseCPUList(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if back, _ := ParseCPUList(FormatCPUList(got)); !reflect.DeepEqual(back, got) {
			t.Errorf("FormatCPUList(%v) = %q does not parse back", got, FormatCPUList(got))
		}
	}
	if got := FormatCPUList([]int{5, 0, 1, 2, 7, 8}); got != "0-2,5,7-8" {
		t.Errorf("FormatCPUList = %q, want 0-2,5,7-8", got)
	}
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0", "0-3", "1,3-5", "", "x", "2-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := ParseCPUList(s)
		if err != nil {
			return
		}
		back, err := ParseCPUList(FormatCPUList(cpus))
		if err != nil || !reflect.DeepEqual(back, cpus) {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, cpus, FormatCPUList(cpus), back, err)
		}
	})
}
