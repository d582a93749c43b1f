package result

import (
	"reflect"
	"testing"
)

// TestConditions checks that only conditions both sides record are
// compared (an import knows none), in the order they are shown, and that
// the store's one-line form reads back.
func TestConditions(t *testing.T) {
	a := map[string]string{CondVersion: "1", CondCPUs: "all", CondFIFO: "off", "extra": "x"}
	b := map[string]string{CondVersion: "2", CondCPUs: "0", CondFIFO: "off", CondCounters: "cs"}
	got := DiffConditions(a, b)
	want := []ConditionDiff{{CondCPUs, "all", "0"}, {CondVersion, "1", "2"}}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("DiffConditions %v, want %v", got, want)
	}
	if s := got[0].String(); s != "placement (--cpus): all -> 0" {
		t.Errorf("String %q", s)
	}
	if ds := DiffConditions(nil, b); ds != nil {
		t.Errorf("unknown conditions differ: %v", ds)
	}
	line := FormatConditions(a)
	if line != "cpus=all; fifo=off; version=1; extra=x" {
		t.Errorf("FormatConditions %q", line)
	}
	if back := ParseConditions(line); !reflect.DeepEqual(a, back) {
		t.Errorf("round trip %v, want %v", back, a)
	}
	if ParseConditions("") != nil {
		t.Error("an empty line is not unknown")
	}
}
